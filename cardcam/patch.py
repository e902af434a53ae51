"""The upright patch of a candidate index, and what it shows of how the index was cut.

:mod:`cardcam.detect` cuts every candidate pair as an upright, scale-normalised patch
(:func:`warp`: the rank over the suit, ``UNIT`` px apart).  Before the glyphs are read,
card outlines are taken out of the patch's ink (:func:`lines`); after, the cut is measured
for what it may have taken from the rank or left beside it: felt against the rank's top
(:func:`felt_top`), ink cut away next to it (:func:`cut_away`), pieces of a broken glyph
in its box (:func:`loose`), and the ink's colour against the paper's (:func:`tints`).
:mod:`cardcam.checks` holds a read to those measures.
"""
from __future__ import annotations

import cv2
import numpy as np

from .glyphs import K3
from .maps import INK, Analysis

#: Pixels per index unit (the distance between rank and suit centres) in patches.
UNIT = 24
#: Patch extent in units: x in [-PX, PX], y in [PY0, PY1] around the rank-suit midpoint.
PX, PY0, PY1 = 1.15, -1.45, 1.3


#: Patch size (w, h) in px, and the patch px of the rank-suit midpoint.
SIZE = (int(round(2 * PX * UNIT)), int(round((PY1 - PY0) * UNIT)))
U0, V0 = PX * UNIT, -PY0 * UNIT


def warp(a: Analysis, centre: np.ndarray, down: np.ndarray, unit: float,
         planes: list[np.ndarray]) -> tuple[list[np.ndarray], np.ndarray]:
    """Warp planes so that the index is upright; returns patches and the 2x3 map."""
    k = unit / UNIT  # working px per patch px
    dx, dy = float(down[0]), float(down[1])
    # patch (u, v) -> image: centre + (u - u0) * k * right + (v - v0) * k * down, where
    # right = (-dy, dx) is the card's x-axis (down turned -90 degrees); scalars, as this
    # runs about 90 times a searched frame and small numpy arrays cost more than the sums
    a00, a01, a10, a11 = -k * dy, k * dx, k * dx, k * dy
    # the planes of a region start at its origin
    t0 = float(centre[0]) - a.origin[0] - (a00 * U0 + a01 * V0)
    t1 = float(centre[1]) - a.origin[1] - (a10 * U0 + a11 * V0)
    M = np.array([[a00, a01, t0], [a10, a11, t1]])  # patch -> image
    return [upright(p, M, SIZE) for p in planes], M


def upright(plane: np.ndarray, M: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """``plane`` cut as a patch of ``size`` (w, h) through the patch -> image map ``M``."""
    return cv2.warpAffine(plane, M, size, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                          borderMode=cv2.BORDER_CONSTANT, borderValue=0)


#: A card outline runs on for at least this many patch px (1.9 rank-suit distances): no
#: glyph is that long.  KH and KV open out such runs across and down the patch; K5V and
#: K5H first join a run broken by a pixel or two of blur.
LINE = int(1.9 * UNIT)
KH = cv2.getStructuringElement(cv2.MORPH_RECT, (LINE, 1))
KV = cv2.getStructuringElement(cv2.MORPH_RECT, (1, LINE))
K5V = np.ones((5, 1), np.uint8)
K5H = np.ones((1, 5), np.uint8)


#: Ink this solid (a disc of this many patch px fits in it) is a pip, never an outline.
SOLID = 7
KSOLID = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (SOLID, SOLID))


#: Above this share of its pixels on solid ink, a long run is not a line (below).
LINE_SOLID = 0.3


def lines(ink: np.ndarray) -> np.ndarray:
    """Long straight strokes near axis-aligned (card outlines) in an upright patch.

    A run of ink that lies mostly on solid ink (a disc of ``SOLID`` px fits there: pips, not
    outlines) is not a line: a row of ink runs on across a suit joined to the big pip
    beside it (dondorf clubs) as it runs along an outline, and the band taken out went
    through the middle of the suit.  An outline running past a suit is still taken out."""
    runs = [m for m in (open_runs(cv2.dilate(ink, K5V), KH), open_runs(cv2.dilate(ink, K5H), KV))
            if m is not None]
    out = np.zeros_like(ink)
    if not runs:
        return out  # no line: most patches
    solid = cv2.morphologyEx(ink, cv2.MORPH_OPEN, KSOLID) > 0
    for m in runs:
        if (m.view(bool) & solid).any():
            k, lab = cv2.connectedComponents(m, connectivity=8)
            on_solid = np.bincount(lab[solid], minlength=k) / np.maximum(np.bincount(lab.ravel(), minlength=k), 1)
            m = (on_solid <= LINE_SOLID).astype(np.uint8)[lab] & m
        out |= m
    return cv2.dilate(out, K3)


def open_runs(mask: np.ndarray, kernel: np.ndarray) -> np.ndarray | None:
    """``mask`` opened with the long straight ``kernel``, or None when the opening is empty:
    the opening is an erosion, then a dilation, and the dilation is skipped when the
    erosion leaves nothing (no line: most patches' rows, and many patches' columns)."""
    runs = cv2.erode(mask, kernel)
    return cv2.dilate(runs, kernel) if cv2.countNonZero(runs) else None


#: Share of a rank glyph's top (from its box's top) where :func:`felt_top` looks.
FELT_TOP_ROWS = 0.3


def felt_top(dk: np.ndarray, gdk: np.ndarray, rmask: np.ndarray, rb) -> float:
    """How much felt was cut away against the top of a rank glyph: pixels next to the
    glyph's top part that are dark in the full darkness but not in the glyph darkness (the
    felt map took them), per pixel of the glyph's width.  An index printed tight to the
    card's edge touches the felt, and the felt map can take a stroke with it: the top loop
    of an 8 goes and a 6 is left."""
    x0, y0, x1, y1 = rb
    rows = (max(y0 - 2, 0), y0 + max(int(round(FELT_TOP_ROWS * (y1 - y0))), 1))
    return taken_next_to(dk, gdk > INK, rmask, rows, (max(x0 - 2, 0), x1 + 2)) / max(x1 - x0, 1)


def taken_next_to(dk: np.ndarray, kept: np.ndarray, rmask: np.ndarray, rows, cols) -> int:
    """Pixels in ``rows`` x ``cols`` of the patch touching the glyph ``rmask`` that are
    dark in the full darkness ``dk`` but not in ``kept``: ink the cut took away."""
    (ya, yb), (xa, xb) = rows, cols
    near = cv2.dilate(rmask[ya:yb, xa:xb].astype(np.uint8), K3) > 0
    return int((near & (dk[ya:yb, xa:xb] > INK) & ~kept[ya:yb, xa:xb]).sum())


def cut_away(dk: np.ndarray, ink: np.ndarray, rmask: np.ndarray, rb) -> float:
    """How much ink was cut away right next to a rank glyph, per pixel of its height:
    pixels touching the glyph that are dark in the full darkness but are not glyph ink,
    because the felt map or a card outline took them.  A rank that runs into the card's
    edge, or under the edge of the card lying over it, loses a stroke there, and what is
    left can read as another rank: an upside-down 8 cut by that edge was read as a Q, a 5
    whose bar ran into the felt as a J."""
    x0, y0, x1, y1 = rb
    taken = taken_next_to(dk, ink > 0, rmask, (max(y0 - 2, 0), y1 + 2), (max(x0 - 2, 0), x1 + 2))
    return taken / max(y1 - y0, 1)


def loose(ink: np.ndarray, glyphs: np.ndarray, rb) -> float:
    """Ink inside a rank's box (and a pixel round it) that is not the rank's or the suit's,
    per pixel of the rank's height: the other pieces of a glyph that came apart.  The ring
    of a blurred queen broke in three, and its left arc alone read as a sure 2."""
    x0, y0, x1, y1 = rb
    ya, xa = max(y0 - 1, 0), max(x0 - 1, 0)
    box = (ink[ya:y1 + 1, xa:x1 + 1] > 0) & ~glyphs[ya:y1 + 1, xa:x1 + 1]
    return float(box.sum()) / max(y1 - y0, 1)


#: Paper pixels (bright, no ink) a patch needs for its paper colour; fewer: no balance.
TINT_PAPER = 40


def tints(image: np.ndarray, M: np.ndarray, dk: np.ndarray, pp: np.ndarray, rmask: np.ndarray,
           smask: np.ndarray) -> tuple[tuple[float, float], tuple[float, float]]:
    """Redness and yellowness of the rank's and the suit's ink with the light's colour taken
    out, ((rank red, rank yellow), (suit red, suit yellow)): each channel of the ink over the
    same channel of the paper around it, then (r - max(g, b)) / r and (min(r, g) - b) / min(r, g).
    Warm light makes black ink look red in the frame (0.2-0.39 of ``maps`` redness), but the
    paper beside it is lit the same: black ink is as red as its paper, red ink much redder.
    A four-colour deck's diamonds are yellow ink, which is not red either.
    (-1, -1) each when the patch has too little clean paper to take the light's colour from."""
    bgr = upright(image, M, SIZE)
    clean = ((pp > 0.5) & (dk < 0.1)).astype(np.uint8)
    if cv2.countNonZero(clean) < TINT_PAPER:
        return (-1.0, -1.0), (-1.0, -1.0)
    paper = np.maximum(np.array(cv2.mean(bgr, mask=clean)[:3]), 1.0)
    flat = bgr.reshape(-1, 3).astype(np.float32).T  # 3 x px: the weighted sums are one product

    def tint(mask) -> tuple[float, float]:
        w = np.where(mask, dk, np.float32(0.0)).ravel()
        total = float(w.sum())
        if total <= 1e-6:
            return 0.0, 0.0
        b, g, r = (flat @ w) / total / paper
        return (float(max(r - max(b, g), 0.0) / max(r, 1e-3)),
                float(max(min(r, g) - b, 0.0) / max(min(r, g), 1e-3)))

    return tint(rmask), tint(smask)
