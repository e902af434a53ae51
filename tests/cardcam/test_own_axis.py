"""A pose whose refined axis finds no index is cut at its pair's own axis: the refinement
takes the axis from the centre of the rank's box, and a rank run into something beside it
turns the axis off the card's, where the cut finds no index layout."""
import numpy as np

from cardcam import detect, maps
from cardcam import recognize as rec

from .conftest import bench_frame, needs_decks

#: (deck, seed, frame, the card only the pair's own axis reads)
CASES = (("ornamental", 9001, 6, "Qs"), ("anglo", 9002, 15, "Qd"))


def _own_axis_reads(model, a):
    """The cards read from the poses whose refined cut found nothing, cut at their own axis."""
    cards = set()
    for q in detect.poses(a, screen=model.screen):
        if q.own is None or detect.cut(a, q) is not None:
            continue
        c = detect.cut(a, q, own_axis=True)
        if c is not None:
            cards |= {r.card for r in rec.classified([c], model, None, model.threshold)}
    return cards


@needs_decks
def test_a_card_whose_refined_axis_finds_no_index_is_read_at_its_pairs_own_axis(model, monkeypatch):
    for deck, seed, frame, card in CASES:
        f = bench_frame(deck, seed, frame)
        assert card in f.cards
        n = len(f.cards)
        monkeypatch.setattr(rec, "OWN_AXIS", False)
        assert card not in rec.recognize(f.image, n, model=model).identified, (deck, card)
        monkeypatch.setattr(rec, "OWN_AXIS", True)
        read = rec.recognize(f.image, n, model=model)
        assert card in read.identified, (deck, card)
        assert set(read.identified) <= set(f.cards)
        # and it is a pose's own axis that reads it, not another pair
        assert card in _own_axis_reads(model, maps.analyse(f.image)), (deck, card)


@needs_decks
def test_a_cut_the_refined_axis_found_is_left_as_it_was(model):
    deck, seed, frame, _ = CASES[0]
    a = maps.analyse(bench_frame(deck, seed, frame).image)
    found = 0
    for q in detect.poses(a):
        c = detect.cut(a, q)
        again = detect.cut(a, q, own_axis=True)
        if c is None:
            continue
        found += 1
        assert again is not None and again.box == c.box
        assert np.array_equal(again.centre, c.centre) and again.unit == c.unit
    assert found >= 5


@needs_decks
def test_a_pose_keeps_its_pairs_own_axis_only_when_the_refinement_moved_it(model):
    deck, seed, frame, _ = CASES[1]
    a = maps.analyse(bench_frame(deck, seed, frame).image)
    qs = detect.poses(a)
    moved = [q for q in qs if q.own is not None]
    assert moved, "the refinement moves most axes a little"
    for q in moved:
        centre, down, unit = q.own
        assert abs(float(np.hypot(*down)) - 1.0) < 1e-9 and unit > 0
        assert not (unit == q.unit and np.array_equal(down, q.down))


@needs_decks
def test_the_model_is_trained_on_refined_cuts_only(model):
    """The build cuts with :func:`detect.candidates`, which never falls back: model v10's
    samples are unchanged."""
    deck, seed, frame, _ = CASES[0]
    a = maps.analyse(bench_frame(deck, seed, frame).image)
    refined = [c for c in (detect.cut(a, q) for q in detect.poses(a)) if c is not None]
    own = [c for c in (detect.cut(a, q, own_axis=True) for q in detect.poses(a)) if c is not None]
    got = detect.candidates(a)
    assert [c.box for c in got] == [c.box for c in refined]
    assert len(own) > len(refined)
