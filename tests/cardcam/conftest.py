import shutil
from pathlib import Path

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
