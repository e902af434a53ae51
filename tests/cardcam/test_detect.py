"""Index candidates from the glyphs on a card face."""
import cv2
import numpy as np
import pytest

from cardcam import detect, synth

from .conftest import needs_decks

pytestmark = needs_decks

#: Where bellot prints its top-left index, in card units (0..1 across, 0..1 down):
#: rank centre and suit centre, tight in the corner.
BELLOT_RANK_UV = (0.088, 0.113)
BELLOT_SUIT_UV = (0.085, 0.209)


@pytest.mark.parametrize("seed", [9, 20, 29])
def test_index_tight_in_the_card_corner_is_a_candidate(seed):
    # A nearly upright single card, no thumb: only the corner's paper ring (felt on two
    # sides, the card's shading on the others) stood between the index and a candidate.
    rng = np.random.default_rng(seed)
    f = synth.hand_frame(rng, "bellot", n_cards=1, level="moderate", thumb=False,
                         glare=False, upside_down=False)
    a = detect.analyse(f.image)
    to_img = cv2.getPerspectiveTransform(np.float32([[0, 0], [1, 0], [1, 1], [0, 1]]),
                                         np.float32(f.quads[0]))
    rank, suit = cv2.perspectiveTransform(
        np.float32([[BELLOT_RANK_UV, BELLOT_SUIT_UV]]), to_img)[0] * a.scale
    unit = float(np.hypot(*(suit - rank)))
    down = (suit - rank) / unit
    hits = [c for c in detect.candidates(a)
            if np.hypot(*(c.centre - (rank + suit) / 2)) < 0.35 * unit
            and abs(c.unit / unit - 1) < 0.3 and float(np.dot(c.down, down)) > 0.9]
    assert hits, f"no candidate at the {f.cards[0]} index"
