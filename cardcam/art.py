"""Render Debian's aisleriot card decks (``gnome-cards-data``) to cached PNGs.

The art never enters the repository: renders are cached under
``~/.cache/tvtable/cards/<deck>/<card>.png`` (or ``$TVTABLE_CACHE/cards``).
Card codes are two characters, rank ``23456789TJQKA`` and suit ``cdhs``.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import cv2
import numpy as np

DECK_DIR = Path(os.environ.get("TVTABLE_DECK_DIR", "/usr/share/aisleriot/cards"))
RANKS = "23456789TJQKA"
SUITS = "cdhs"
CARDS: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS)
UNKNOWN = "??"
BACK = "back"

_RANK_ID = {"A": "1", "T": "10", "J": "jack", "Q": "queen", "K": "king"}
_SUIT_ID = {"c": "club", "d": "diamond", "h": "heart", "s": "spade"}

#: Height in pixels at which cards are rendered and cached.
RENDER_HEIGHT = 360


def cache_dir() -> Path:
    base = os.environ.get("TVTABLE_CACHE")
    root = Path(base) if base else Path.home() / ".cache" / "tvtable"
    return root


def svg_id(card: str) -> str:
    """``"As"`` -> ``"spade_1"``; ``"back"`` -> ``"back"``."""
    if card == BACK:
        return BACK
    if len(card) != 2 or card[0] not in RANKS or card[1] not in SUITS:
        raise ValueError(f"not a card code: {card!r}")
    r, s = card
    return f"{_SUIT_ID[s]}_{_RANK_ID.get(r, r)}"


def available_decks() -> list[str]:
    """Deck names (file stems) found in :data:`DECK_DIR`, sorted."""
    if not DECK_DIR.is_dir():
        return []
    return sorted(p.name[: -len(".svgz")] for p in DECK_DIR.glob("*.svgz"))


def have_renderer() -> bool:
    return shutil.which("rsvg-convert") is not None


def _render_svg(deck: str, element: str, height: int) -> np.ndarray:
    src = DECK_DIR / f"{deck}.svgz"
    if not src.exists():
        raise FileNotFoundError(src)
    exe = shutil.which("rsvg-convert")
    if exe is None:
        raise RuntimeError("rsvg-convert not found (apt-get install librsvg2-bin)")
    proc = subprocess.run(
        [exe, "--export-id", element, "-a", "-h", str(height), str(src)],
        capture_output=True, check=False, timeout=60,
    )
    if proc.returncode != 0 or not proc.stdout:
        raise RuntimeError(f"rsvg-convert failed for {deck}/{element}: {proc.stderr[:200]!r}")
    img = cv2.imdecode(np.frombuffer(proc.stdout, np.uint8), cv2.IMREAD_UNCHANGED)
    if img is None:
        raise RuntimeError(f"could not decode render of {deck}/{element}")
    if img.ndim == 2:
        img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGRA)
    elif img.shape[2] == 3:
        img = cv2.cvtColor(img, cv2.COLOR_BGR2BGRA)
    return img


def crop_visible(img: np.ndarray, alpha_min: int = 8) -> np.ndarray:
    """Crop a BGRA image to the bounding box of its visible (alpha) pixels."""
    ys, xs = np.nonzero(img[:, :, 3] > alpha_min)
    if len(xs) == 0:
        return img
    return img[ys.min(): ys.max() + 1, xs.min(): xs.max() + 1].copy()


def card_image(deck: str, card: str, height: int = RENDER_HEIGHT) -> np.ndarray:
    """BGRA render of one card (``"As"`` or ``"back"``), cropped to its visible pixels.

    Cached as PNG; the cache key includes the height.
    """
    sub = deck if height == RENDER_HEIGHT else f"{deck}@{height}"
    path = cache_dir() / "cards" / sub / f"{card}.png"
    if path.exists():
        img = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
        if img is not None and img.ndim == 3 and img.shape[2] == 4:
            return img
    # Render a little larger than asked and then crop, so the visible card is ~height.
    img = crop_visible(_render_svg(deck, svg_id(card), height))
    if img.shape[0] != height:
        scale = height / img.shape[0]
        img = cv2.resize(img, (max(1, round(img.shape[1] * scale)), height),
                         interpolation=cv2.INTER_AREA)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(suffix=".png", dir=path.parent)
    os.close(fd)
    cv2.imwrite(tmp, img)
    os.replace(tmp, path)
    return img


def deck_images(deck: str, height: int = RENDER_HEIGHT) -> dict[str, np.ndarray]:
    """All 52 faces of a deck, keyed by card code."""
    return {c: card_image(deck, c, height) for c in CARDS}


def render_deck(deck: str, height: int = RENDER_HEIGHT, with_back: bool = True) -> None:
    for c in CARDS + ((BACK,) if with_back else ()):
        card_image(deck, c, height)
