"""With the hand's size known, a searched frame's pairs get their layout passes a batch at a
time (the solidest suits first), each batch's pairs are cut surest first (the screen's
probability that a pair is an index), and the search stops once the hand's cards are read,
stand their jitters and agree: the same cards read, fewer pairs cut."""
import numpy as np

from cardcam import detect, maps, synth
from cardcam import recognize as rec
from cardcam.recognize import UNKNOWN

from .conftest import needs_decks


def _hands():
    for k, deck in enumerate(("anglo", "bellot", "paris", "tigullio", "plastic", "dondorf")):
        rng = np.random.default_rng(4200 + k)
        for i in range(5):
            yield synth.hand_frame(rng, deck, n_cards=2 if i % 2 else 4, level="moderate")


def _cards(reads) -> set[str]:
    return {r.card for r in rec._agreed(reads)}


@needs_decks
def test_a_hand_read_whole_reads_the_same_cards_from_fewer_cuts(model, monkeypatch):
    layouts = []
    real = detect._refined_pose
    monkeypatch.setattr(detect, "_refined_pose", lambda *a, **k: layouts.append(1) or real(*a, **k))
    whole = fewer = partial = 0
    every_work = need_work = 0
    for f in _hands():
        n = len(f.cards)
        layouts.clear()
        _, all_cands, all_reads = rec.read_candidates(f.image, model)
        all_layouts = len(layouts)
        layouts.clear()
        _, cands, reads = rec.read_candidates(f.image, model, need=n)
        every = _cards(all_reads)
        if len(every) >= n:
            whole += 1
            # the stop rule: the hand's cards, read and standing, and nothing else
            assert _cards(reads) == every
            # the work: layout passes, and full cuts (about twice a layout pass each)
            every_work += all_layouts + 2 * len(all_cands)
            need_work += len(layouts) + 2 * len(cands)
            fewer += len(cands) < len(all_cands)
        else:
            # a hand not read whole is cut whole: as many candidates (within one: the pairs
            # come in another order, and the same index reached from two pairs is cut at
            # the first one's axis), the same cards read
            assert len(layouts) == all_layouts
            assert abs(len(cands) - len(all_cands)) <= 1
            assert _cards(reads) == every
            partial += 1
    assert whole >= 10 and partial >= 5
    assert fewer >= whole // 2
    assert need_work < 0.8 * every_work, (need_work, every_work)


@needs_decks
def test_recognize_reads_what_the_whole_frame_reads(model):
    # recognize cuts surest first; the cards it names are those every pair cut would name
    for f in _hands():
        n = len(f.cards)
        got = rec.recognize(f.image, n, model=model)
        _, _, reads = rec.read_candidates(f.image, model)
        every = _cards(reads)
        assert set(got.identified) <= every
        if len(every) == n:
            assert set(got.identified) == every


@needs_decks
def test_the_poses_carry_the_screens_probability_and_keep_what_it_keeps(model):
    f = synth.hand_frame(np.random.default_rng(4300), "anglo", n_cards=4, level="moderate")
    a = maps.analyse(f.image)
    unscreened = detect.poses(a)
    screened = detect.poses(a, screen=model.screen)
    assert all(q.p == 1.0 for q in unscreened)
    assert 0 < len(screened) < len(unscreened)
    assert all(model.screen.cut <= q.p <= 1.0 for q in screened)
    # candidates() is the poses cut, in their order
    cut = [c for c in (detect.cut(a, q) for q in screened) if c is not None]
    cands = detect.candidates(a, screen=model.screen)
    assert [c.box for c in cands] == [c.box for c in cut]


def test_conflicting_sure_reads_of_the_same_glyphs_both_go():
    from cardcam.checks import CardRead

    def read(card, comps, centre):
        c = detect.Candidate(np.array(centre, float), np.array([0.0, 1.0]), 10.0, None, None, 0.0,
                             (0, 0, 1, 1), comps)
        return CardRead(card, 0.99, 0.99, (0, 0, 1, 1), c)

    a, b = read("As", (1, 2), (0, 0)), read("Ks", (1, 3), (100, 0))
    far = read("Qh", (7, 8), (300, 0))
    unsure = CardRead(UNKNOWN, 0.0, 0.9, (0, 0, 1, 1), far.cand)
    assert [r.card for r in rec._agreed([a, b, far, unsure])] == ["Qh"]
    # the same card read twice is no conflict
    assert [r.card for r in rec._agreed([a, read("As", (1, 5), (5, 0))])] == ["As", "As"]


@needs_decks
def test_a_search_for_the_cards_a_partial_track_lacks_cuts_every_pair(model, monkeypatch):
    # such a hand is seldom read whole, and cutting it a few pairs at a time costs more
    f = synth.hand_frame(np.random.default_rng(4400), "anglo", n_cards=2, level="moderate")
    first = rec.recognize(f.image, 2, model=model)
    asked = []
    real = rec.read_candidates
    monkeypatch.setattr(rec, "read_candidates", lambda *a, **k: asked.append(k.get("need")) or real(*a, **k))
    rec.recognize(f.image, 2, model=model)
    partial = rec.Track(first.track.size if first.track else (f.image.shape[1], f.image.shape[0]),
                        first.hits[:1], 0, 2, 2, 0) if first.hits else None
    assert partial is not None and not partial.complete
    rec.recognize(np.ascontiguousarray(f.image[:, ::-1]), 2, model=model, track=partial)
    assert asked == [2, None]


@needs_decks
def test_pose_batches_grow(monkeypatch):
    # a frame's pairs in batches of 2, 4, 8, ...: few batches for a hand not read early
    f = synth.hand_frame(np.random.default_rng(4500), "anglo", n_cards=4, level="moderate")
    a = maps.analyse(f.image)
    every = detect.poses(a)
    calls = []
    real = detect._refined_pose
    monkeypatch.setattr(detect, "_refined_pose", lambda *x, **k: calls.append(1) or real(*x, **k))
    sizes, batched = [], []
    for batch in detect.pose_batches(a, 2):
        sizes.append(len(calls))
        calls.clear()
        batched += batch
    assert len(sizes) >= 3
    assert sizes[:3] == [2, 4, 8]
    # the same poses as all at once, in the same order
    assert [(q.comps, q.unit) for q in batched] == [(q.comps, q.unit) for q in every]
