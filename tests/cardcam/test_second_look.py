"""A read left unsure gets a second look when the search has not read the hand whole: cut
again at each jitter, it is read as its guess when every view guesses that card and the
views' mean probabilities are sure and pass the checks."""
import dataclasses

import numpy as np

from cardcam import recognize as rec
from cardcam import synth
from cardcam.recognize import UNKNOWN

from .conftest import bench_frame, needs_decks

#: (deck, seed, frame, the card only a second look reads)
CASE = ("bellot", 9101, 16, "7c")


def _unsure(model, image, card):
    """The analysis and reads of ``image`` without second looks, and the unsure reads
    that guess ``card``."""
    a, _, reads = rec.read_candidates(image, model)
    return a, reads, [r for r in reads if r.card == UNKNOWN and r.guess == card]


@needs_decks
def test_an_unsure_read_whose_views_all_agree_is_read_on_a_second_look(model, monkeypatch):
    deck, seed, frame, card = CASE
    f = bench_frame(deck, seed, frame)
    n = len(f.cards)
    monkeypatch.setattr(rec, "SECOND_LOOK", False)
    assert card not in rec.recognize(f.image, n, model=model).identified
    _, _, unsure = _unsure(model, f.image, card)
    assert unsure and all(0 < r.guess_p < model.threshold for r in unsure)
    monkeypatch.setattr(rec, "SECOND_LOOK", True)
    read = rec.recognize(f.image, n, model=model)
    assert card in read.identified
    assert set(read.identified) <= set(f.cards)
    hit = next(h for h in read.hits if h.card == card)
    assert hit.confidence >= model.threshold


@needs_decks
def test_a_second_look_reads_only_the_card_every_view_guesses(model, monkeypatch):
    deck, seed, frame, card = CASE
    monkeypatch.setattr(rec, "SECOND_LOOK", False)
    a, reads, unsure = _unsure(model, bench_frame(deck, seed, frame).image, card)
    i = reads.index(unsure[0])
    looked = rec._second_look(a, reads, model, None, model.threshold)
    assert looked[i].card == card
    # the same views, asked whether they are another card of the same rank: no view guesses it
    other = list(reads)
    other[i] = dataclasses.replace(reads[i], guess=card[0] + "s")
    assert rec._second_look(a, other, model, None, model.threshold)[i].card == UNKNOWN
    # one view that is another card's index: however low the threshold (a calibrated
    # deck's may be lower than the model's), the views do not agree and nothing is read
    elsewhere = next(r.cand for r in reads if r.card not in (UNKNOWN, card))
    low = 0.3
    assert rec._second_look(a, reads, model, None, low)[i].card == card
    real = rec._jittered
    monkeypatch.setattr(rec, "_jittered", lambda a_, c, j: elsewhere if j == rec.JITTERS[0] else real(a_, c, j))
    assert rec._second_look(a, reads, model, None, low)[i].card == UNKNOWN


@needs_decks
def test_no_second_look_for_a_card_already_read_or_a_faint_guess(model, monkeypatch):
    deck, seed, frame, card = CASE
    monkeypatch.setattr(rec, "SECOND_LOOK", False)
    a, reads, unsure = _unsure(model, bench_frame(deck, seed, frame).image, card)
    cuts = []
    real = rec._jittered
    monkeypatch.setattr(rec, "_jittered", lambda *args: cuts.append(1) or real(*args))
    i = reads.index(unsure[0])
    read_card = next(r.card for r in reads if r.card != UNKNOWN)
    for guess, p in ((read_card, unsure[0].guess_p), (card, rec.SECOND_LOOK_FROM / 2)):
        only = [dataclasses.replace(reads[i], guess=guess, guess_p=p)] + [r for r in reads if r.card != UNKNOWN]
        assert rec._second_look(a, only, model, None, model.threshold) == only
    assert not cuts


@needs_decks
def test_a_hand_read_whole_gets_no_second_look(model, monkeypatch):
    looks = []
    real = rec._second_look
    monkeypatch.setattr(rec, "_second_look", lambda *args: looks.append(1) or real(*args))
    # surest first (the screen), and every pair cut at once (no screen, as for a
    # calibrated deck): a hand read whole is not looked at again either way
    for m in (model, dataclasses.replace(model, screen=None)):
        whole = 0
        rng = np.random.default_rng(4300)
        for _ in range(6):
            f = synth.hand_frame(rng, "anglo", n_cards=2, level="easy")
            looks.clear()
            _, _, reads = rec.read_candidates(f.image, m, need=2)
            if len({r.card for r in rec._agreed(reads)}) >= 2:
                whole += 1
                assert not looks
        assert whole >= 3
