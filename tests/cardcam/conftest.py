import shutil
from pathlib import Path

import numpy as np
import pytest

DECKS = Path("/usr/share/aisleriot/cards")


def have_decks() -> bool:
    return DECKS.is_dir() and any(DECKS.glob("*.svgz")) and shutil.which("rsvg-convert") is not None


needs_decks = pytest.mark.skipif(not have_decks(),
                                 reason="needs gnome-cards-data and librsvg2-bin")


@pytest.fixture(scope="session")
def model():
    if not have_decks():
        pytest.skip("needs gnome-cards-data and librsvg2-bin")
    from cardcam.model import get_model
    return get_model()  # cached in var/cardcam (built once, about 6 min on 2 cores, if missing)


def bench_frames(deck, seed, n, level="moderate"):
    """The first ``n`` of the misses benchmark's single frames of ``deck`` at ``seed``, in
    order (hands, backs and empty frames), at ``level``."""
    from cardcam import synth
    rng = np.random.default_rng(seed)
    for i in range(n):
        yield synth.frame(rng, deck, n_cards=2 if i % 2 else 4, level=level,
                          p_backs=0.1, p_empty=0.1)


def bench_frame(deck, seed, frame, level="moderate"):
    """Frame ``frame`` of the misses benchmark's single frames of ``deck`` at ``seed``."""
    for f in bench_frames(deck, seed, frame + 1, level):
        pass
    return f


def read_bench_cards(model, cases):
    """Read the misses benchmark's frames ``cases`` ((deck, seed, frame, cards) each) and
    count the ``cards`` read: (right, wrong cards read in those frames)."""
    from cardcam.recognize import recognize
    right, wrong = 0, []
    for deck, seed, frame, cards in cases:
        f = bench_frame(deck, seed, frame)
        assert set(cards) <= set(f.cards)
        r = recognize(f.image, len(f.cards), model=model)
        right += sum(c in r.identified for c in cards)
        wrong += [c for c in r.identified if c not in f.cards]
    return right, wrong
