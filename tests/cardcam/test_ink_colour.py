"""The colour check: spades and clubs are never printed in red or yellow ink, hearts and
diamonds always in coloured ink.  Redness is measured against the paper beside the index, so the
colour of the light does not change which suits a glyph's ink allows."""
import numpy as np

from cardcam import checks, synth
from cardcam.detect import Candidate, Glyph
from cardcam.recognize import read_candidates, recognize

from .conftest import bench_frame, needs_decks


def _lit(image, bgr_gain):
    """``image`` under light of another colour: each channel scaled, clipped to 8 bits."""
    return np.clip(image.astype(np.float32) * np.float32(bgr_gain), 0, 255).astype(np.uint8)


@needs_decks
def test_black_ink_under_warm_light_is_not_taken_for_red(model):
    # Pink light on a red felt: the 4s and the 3s measure 0.26-0.3 of the frame's own
    # redness (a black read had to stay under 0.2), and both were refused as red ink.
    f = bench_frame("anglo", 1000, 30)
    assert {"4s", "3s"} <= set(f.cards)
    _, cands, reads = read_candidates(f.image, model)
    black = [(c, r) for c, r in zip(cands, reads) if r.card in ("4s", "3s")]
    assert {r.card for _, r in black} == {"4s", "3s"}
    for c, _ in black:
        assert c.suit.red >= checks.RED_BLACK            # the frame's redness would refuse it
        assert 0 <= c.tints()[1] < checks.TINT_BLACK     # against its paper it is black
    r = recognize(f.image, 4, model=model)
    assert {"4s", "3s"} <= set(r.identified) and set(r.identified) <= set(f.cards)


@needs_decks
def test_red_ink_stays_red_and_black_stays_black_under_warm_and_cool_light(model):
    seen = {"red": 0, "black": 0}
    for seed in range(1, 9):
        f = synth.hand_frame(np.random.default_rng(seed), "anglo", n_cards=4, level="moderate",
                             thumb=False, glare=False)
        # warm and cool light (B, G, R gains) past the synthetic frames' own white balance
        # (0.9-1.08 a channel); much stronger casts take the paper for felt (docs/CARDCAM.md)
        for gain in ((0.87, 0.95, 1.12), (1.12, 1.0, 0.87)):
            img = _lit(f.image, gain)
            _, cands, reads = read_candidates(img, model)
            for c, r in zip(cands, reads):
                if r.card == "??" or min(c.tints()) < 0:
                    continue
                tint = sum(c.tints()) / 2
                if r.card[1] in "hd":
                    seen["red"] += 1
                    assert tint >= 1.5 * checks.TINT_BLACK, (seed, gain, r.card, tint)
                else:
                    seen["black"] += 1
                    assert tint < 0.75 * checks.TINT_BLACK, (seed, gain, r.card, tint)
            wrong = [c for c in recognize(img, 4, model=model).identified if c not in f.cards]
            assert not wrong, (seed, gain, wrong, f.cards)
    assert seen["red"] >= 8 and seen["black"] >= 8, seen


@needs_decks
def test_a_four_colour_decks_yellow_diamonds_are_never_black_ink_and_its_green_clubs_are(model):
    # neoclassical_4_color and anglo_modern_4_color print diamonds in yellow ink and clubs
    # in green: yellow is no redder than its paper, and a blurred 5d was read as a sure 5c
    seen = {"d": 0, "c": 0}
    for deck in ("neoclassical_4_color", "anglo_modern_4_color"):
        for seed in range(1, 31):
            f = synth.hand_frame(np.random.default_rng(seed), deck, n_cards=4, level="moderate")
            _, cands, reads = read_candidates(f.image, model)
            for c, r in zip(cands, reads):
                if r.card not in f.cards or min(c.yellows()) < 0:
                    continue
                if r.card[1] == "d":
                    seen["d"] += 1
                    assert not checks.colour_ok("c", c) and not checks.colour_ok("s", c), (deck, seed, r.card)
                elif r.card[1] == "c":
                    seen["c"] += 1
                    assert sum(c.yellows()) / 2 < 0.5 * checks.YELLOW_BLACK, (deck, seed, r.card)
    assert seen["d"] >= 12 and seen["c"] >= 30, seen  # 25 and 64 on 2026-12-07


def _glyph(red, tint, sat=0.0, yellow=None):
    return Glyph(np.zeros((32, 24), np.float32), 1.4, 1.0, red, sat, 0.3, tint=tint,
                 yellow=tint if yellow is None else yellow)


def _cand(red, tint, sat=0.0, yellow=None):
    return Candidate(np.zeros(2), np.array([0.0, 1.0]), 20.0, _glyph(red, tint, sat, yellow),
                     _glyph(red, tint, sat, yellow), 0.8, (0, 0, 10, 10), (1, 2))


def test_a_black_suit_in_yellow_ink_is_refused():
    assert checks.colour_ok("c", _cand(red=0.1, tint=0.05, yellow=0.1))
    assert not checks.colour_ok("c", _cand(red=0.1, tint=0.05, yellow=0.45))
    assert not checks.colour_ok("s", _cand(red=0.1, tint=0.05, yellow=0.45))
    assert checks.colour_ok("d", _cand(red=0.1, tint=0.05, sat=0.5, yellow=0.45))


def test_a_black_suit_in_ink_redder_than_its_paper_is_refused():
    assert checks.colour_ok("s", _cand(red=0.35, tint=0.05))
    assert not checks.colour_ok("s", _cand(red=0.35, tint=0.4))
    assert not checks.colour_ok("c", _cand(red=0.1, tint=0.3))


def test_without_paper_to_balance_against_the_frames_own_redness_decides():
    assert checks.colour_ok("c", _cand(red=0.1, tint=-1.0))
    assert not checks.colour_ok("c", _cand(red=0.3, tint=-1.0))


def test_red_suits_need_coloured_ink_whatever_the_light():
    assert checks.colour_ok("h", _cand(red=0.6, tint=0.6, sat=0.6))
    assert not checks.colour_ok("d", _cand(red=0.0, tint=0.0, sat=0.1))
