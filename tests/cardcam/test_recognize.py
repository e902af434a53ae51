"""The reader on synthetic frames: decks it has never seen, glare, backs, upside down."""
import numpy as np
import pytest

from cardcam import synth
from cardcam.model import HOLDOUT_DECKS, TRAIN_DECKS
from cardcam.recognize import Read, recognize

from .conftest import needs_decks

pytestmark = needs_decks


def score(frames, reads):
    truth = sum(len(f.cards) for f in frames)
    right = wrong = 0
    for f, r in zip(frames, reads):
        for c in r.identified:
            if c in f.cards:
                right += 1
            else:
                wrong += 1
    return right, wrong, truth


@pytest.mark.parametrize("deck", ["paris", "tigullio"])
def test_unseen_deck_precision_and_recall(model, deck):
    assert deck in HOLDOUT_DECKS and deck not in model.info.get("decks", [])
    rng = np.random.default_rng(2024)
    frames = [synth.hand_frame(rng, deck, n_cards=2 if i % 2 else 4, level="moderate")
              for i in range(16)]
    reads = [recognize(f.image, len(f.cards), model=model) for f in frames]
    right, wrong, truth = score(frames, reads)
    assert wrong <= 1, f"{wrong} wrong cards asserted"
    assert right / truth >= 0.55, f"recall {right}/{truth}"
    for f, r in zip(frames, reads):
        assert isinstance(r, Read) and len(r.cards) == len(f.cards) == len(r.confidence)
        assert r.shown
        for c, p in zip(r.cards, r.confidence):
            assert (c == "??") == (p == 0.0)


def test_upside_down_hands_are_read(model):
    rng = np.random.default_rng(7)
    frames = [synth.hand_frame(rng, deck, n_cards=2, level="moderate", upside_down=True,
                               thumb=False)
              for deck in ("tigullio", "paris", "anglo", "dondorf") for _ in range(3)]
    reads = [recognize(f.image, 2, model=model) for f in frames]
    right, wrong, truth = score(frames, reads)
    assert wrong == 0
    assert right / truth >= 0.6, f"recall {right}/{truth}"


def test_glare_does_not_hide_a_shown_hand(model):
    rng = np.random.default_rng(11)
    for deck in ("tigullio", "anglo", "paris"):
        for _ in range(3):
            f = synth.hand_frame(rng, deck, n_cards=2, level="moderate", glare=True)
            r = recognize(f.image, 2, model=model)
            assert r.shown and r.faces >= 1
            assert all(c in f.cards for c in r.identified)


def test_backs_and_empty_frames_are_not_shown(model):
    rng = np.random.default_rng(5)
    for deck in ("paris", "plastic", "tigullio", "anglo", "bellot", "tango"):
        f = synth.hand_frame(rng, deck, n_cards=2, level="moderate", backs=True)
        r = recognize(f.image, 2, model=model)
        assert not r.shown and r.cards == ("??", "??"), deck
    for _ in range(6):
        f = synth.empty_frame(rng)
        r = recognize(f.image, 2, model=model)
        assert not r.shown and r.faces == 0 and r.cards == ("??", "??")


def test_bad_input(model):
    with pytest.raises(ValueError):
        recognize(np.zeros((0, 0, 3), np.uint8), 2, model=model)
    r = recognize(np.zeros((40, 60), np.uint8), 2, model=model)  # grey, tiny: nothing
    assert r.cards == ("??", "??") and not r.shown


def test_synth_is_reproducible():
    a = synth.frame(np.random.default_rng(3), "anglo", 4)
    b = synth.frame(np.random.default_rng(3), "anglo", 4)
    assert a.cards == b.cards and np.array_equal(a.image, b.image)
    assert a.image.shape == (540, 960, 3)


def test_train_and_holdout_are_disjoint():
    assert not set(TRAIN_DECKS) & set(HOLDOUT_DECKS)
    from cardcam.model import PARTIAL_DECKS
    assert not set(PARTIAL_DECKS) & set(HOLDOUT_DECKS)
