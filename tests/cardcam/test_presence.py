"""The paper gate: a frame with no card-face paper is read as nothing shown, at once."""
import numpy as np
import pytest

from cardcam import maps, synth
from cardcam.recognize import recognize

from .conftest import needs_decks

pytestmark = needs_decks


@pytest.mark.parametrize("level", ["easy", "moderate", "hard"])
def test_no_shown_hand_is_taken_for_an_empty_frame(level):
    # Seen and unseen decks, 2 and 4 cards, thumbs and glare as the level gives them, and
    # glare forced on: every shown hand passes the gate (glare only adds paper).
    rng = np.random.default_rng(41)
    for i, deck in enumerate(["anglo", "bellot", "dondorf", "paris", "plastic", "tigullio"] * 2):
        f = synth.hand_frame(rng, deck, 2 if i % 2 else 4, level=level, glare=True if i % 3 == 0 else None)
        assert maps.has_paper(f.image), f"a {deck} hand ({level}) looked like an empty frame"


def test_felt_without_cards_stops_at_the_gate_and_reads_as_the_full_reader_would(monkeypatch):
    rng = np.random.default_rng(7)
    frames = [synth.empty_frame(rng, "easy").image for _ in range(16)]
    gated = [img for img in frames if not maps.has_paper(img)]
    assert len(gated) >= len(frames) // 2, "most felt-only frames should stop at the gate"
    quick = [recognize(img, 2) for img in gated]
    assert all(not r.shown and r.faces == 0 and r.cards == ("??", "??") for r in quick)
    monkeypatch.setattr(maps, "MIN_PAPER", 0.0)  # every frame through the whole reader
    assert [recognize(img, 2) for img in gated] == quick
