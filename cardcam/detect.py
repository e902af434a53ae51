"""Find corner-index candidates in a frame (card faces without a readable index:
:mod:`cardcam.faces`).

The reader does not try to segment whole cards (fanned hands overlap and thumbs cover
edges).  It works from the ink on the cards instead:

1. *paper*: bright, unsaturated pixels (card faces, and glare);
2. *ink*: pixels clearly darker than the paper around them (normalised by a blurred
   paper level, so lighting gradients and glare edges do not matter);
3. *glyphs*: ink components of glyph size that sit on paper;
4. *index candidates*: pairs of glyphs close together, one read as the rank and the
   other as the suit below it.  The pair's axis gives the card's "down" direction, so
   any rotation works, including upside-down hands where only the lower-right index
   shows.  Every ordered pair is tried, so both 180-degree readings are classified and
   the classifier rejects the wrong one.

Each candidate is warped to an upright, scale-normalised patch and the rank and suit
glyphs are cut out of it for :mod:`cardcam.classify`.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

#: Working frames are downscaled so the longer side is at most this.
MAX_SIDE = 1280
#: Pixels per index unit (the distance between rank and suit centres) in patches.
UNIT = 24
#: Patch extent in units: x in [-PX, PX], y in [PY0, PY1] around the rank-suit midpoint.
PX, PY0, PY1 = 1.15, -1.45, 1.3
RANK_SIZE = (24, 32)   # (w, h) of the normalised rank glyph
SUIT_SIZE = (24, 24)
#: Paper fraction a glyph needs in a ring around its box (ink on felt, chips or card backs
#: has little).  An index printed tight in the card's corner (bellot, paris) has only
#: about a third of that ring on paper: the rest is felt or the card behind, in shadow.
RING_PAPER = 0.25


@dataclass
class Analysis:
    image: np.ndarray        # BGR working image
    scale: float             # working / original
    m: np.ndarray            # min channel, uint8
    paper: np.ndarray        # bool
    dark: np.ndarray         # float32 0..1 "ink darkness" relative to local paper
    ink: np.ndarray          # bool
    red: np.ndarray          # float32 0..1 redness of ink
    sat: np.ndarray          # float32 0..1 saturation
    # ``dark`` less the felt and card backs around the cards: where glyph ink may be.  In an
    # upright patch the felt next to a card edge is as dark as ink and would merge with an
    # index printed close to the edge (the patch is re-thresholded, unlike ``ink``).
    glyph_dark: np.ndarray
    paper_f: np.ndarray | None = None  # paper as float32 (made once, warped per candidate)
    # working px of this analysis' top-left corner in the frame: (0, 0) for a whole frame,
    # the region's corner for :func:`analyse_region`.  Candidates are in frame px.
    origin: tuple[int, int] = (0, 0)
    frame: tuple[int, int] | None = None  # (w, h) of the whole working frame; None: ``image``'s


@dataclass
class Glyph:
    crop: np.ndarray         # float32, normalised size
    aspect: float            # h / w in the upright patch
    size: float              # height in units
    red: float               # mean redness of its ink
    sat: float               # mean saturation of its ink
    mass: float              # ink fraction of its box


@dataclass
class Candidate:
    centre: np.ndarray       # midpoint of rank and suit, working-image px
    down: np.ndarray         # unit vector, card "down" in image coords
    unit: float              # rank-suit centre distance, working px
    rank: Glyph
    suit: Glyph
    corner: float            # 0..1, how much this looks like a card corner
    box: tuple[float, float, float, float]  # index box in ORIGINAL image px (x0, y0, x1, y1)
    comps: tuple[int, int]   # glyph component ids (rank, suit)


def to_working(img: np.ndarray) -> tuple[np.ndarray, float]:
    if img.ndim == 2:
        img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    elif img.shape[2] == 4:
        img = cv2.cvtColor(img, cv2.COLOR_BGRA2BGR)
    h, w = img.shape[:2]
    s = min(1.0, MAX_SIDE / max(h, w))
    if s < 1.0:
        img = cv2.resize(img, (round(w * s), round(h * s)), interpolation=cv2.INTER_AREA)
    return img, s


#: Below this fraction of card-face paper in a quarter-size thumbnail, a frame shows no card
#: face.  Every synthetic hand frame (any level, seen and unseen decks) has 3 % or more; a
#: hole-cam looking at felt has about none, so most frames between showings stop here.
MIN_PAPER = 0.005


def has_paper(image: np.ndarray) -> bool:
    """Whether a frame may show a card face: card-face paper (bright, unsaturated, as in
    :func:`analyse`) covers at least ``MIN_PAPER`` of a quarter-size thumbnail.  About 1 ms,
    against about 20 ms for :func:`analyse` of a 960×540 frame.  Glare only adds paper, so
    it never makes a shown hand look empty."""
    return shows_paper(paper_map(thumbnail(to_working(image)[0])))


def thumbnail(img: np.ndarray) -> np.ndarray:
    """A quarter-size thumbnail of working frame ``img`` (what the paper gate looks at)."""
    h, w = img.shape[:2]
    if h < 8 or w < 8:
        return img
    return cv2.resize(img, (w // 4, h // 4), interpolation=cv2.INTER_AREA)


def paper_map(thumb: np.ndarray) -> np.ndarray:
    """Card-face paper (bool: bright, unsaturated, as in :func:`analyse`) of a thumbnail
    (:func:`thumbnail`, or a JPEG decoded at a quarter of its size)."""
    return _planes(thumb)[4]


def shows_paper(paper: np.ndarray) -> bool:
    """The paper gate: a thumbnail's card-face paper (:func:`paper_map`) covers at least
    ``MIN_PAPER`` of it."""
    return float(paper.mean()) >= MIN_PAPER


def _planes(img: np.ndarray, cut: float | None = None):
    """((b, g, r), min channel, min as float32, saturation, paper) of a BGR image.
    Paper is bright (over ``cut``, by default Otsu's cut of the min channel kept within
    100..190) and unsaturated."""
    b, g, r = cv2.split(img)
    m = _min_channel(b, g, r)
    mf = m.astype(np.float32)
    M = cv2.max(cv2.max(b, g), r)
    Mf = M.astype(np.float32)
    Mf += np.float32(1.0)
    sat = np.divide(cv2.subtract(M, m).astype(np.float32), Mf, out=Mf)  # (max - min) / (max + 1)
    if cut is None:
        cut = _otsu_cut(m)
    paper = (mf > cut) & (sat < 0.3)
    return (b, g, r), m, mf, sat, paper


def _min_channel(b: np.ndarray, g: np.ndarray, r: np.ndarray) -> np.ndarray:
    return cv2.min(cv2.min(b, g), r)


def _otsu_cut(m: np.ndarray) -> float:
    otsu, _ = cv2.threshold(m, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
    return float(np.clip(otsu, 100, 190))


def paper_cut(img: np.ndarray) -> float:
    """The paper cut :func:`analyse` would use on working image ``img`` (Otsu's cut of the
    min channel, kept within 100..190).  It moves from frame to frame with the light (by
    40 levels on a hand held still), so a region of a frame is analysed with its own
    frame's cut, never an earlier frame's.  About 1 ms at 960×540."""
    return _otsu_cut(_min_channel(*cv2.split(img)))


def _blur_small(x: np.ndarray, sigma: float, f: int = 4) -> np.ndarray:
    """Gaussian blur with a large sigma, computed at 1/f resolution."""
    h, w = x.shape[:2]
    small = cv2.resize(x, (max(1, w // f), max(1, h // f)), interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (0, 0), max(sigma / f, 0.5))
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)


def _remove_outlines(ink: np.ndarray, side: int) -> np.ndarray:
    """Erase long thin straight strokes (printed card outlines, edges of overlapping
    cards) so that glyphs printed close to them come apart from them."""
    thin = ink & ~cv2.morphologyEx(ink, cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))
    L = max(40, int(side * 0.06))
    lines = cv2.HoughLinesP(thin * 255, 1, np.pi / 180, threshold=int(L * 0.8),
                            minLineLength=L, maxLineGap=3)
    if lines is None:
        return ink
    erase = np.zeros_like(ink)
    for x0, y0, x1, y1 in lines.reshape(-1, 4):
        cv2.line(erase, (int(x0), int(y0)), (int(x1), int(y1)), 1, 3)
    return ink & ~erase


def analyse(image: np.ndarray, *, whole: bool = False, paper: np.ndarray | None = None) -> Analysis:
    """The paper, ink and glyph maps of a frame: of the part of it where card-face paper is
    (:func:`paper_box`; ``origin`` and ``frame`` say where), as the whole frame's maps
    would be there, or of all of it with ``whole``.  A hand covers about a third of a
    hole-cam frame (the median of 105 synthetic hands), and a searched frame's maps and
    glyphs then cost a third as much: 22.4 -> 18.8 ms a searched frame, the same cards read.
    ``paper``: the frame's thumbnail paper, when the paper gate has it already."""
    img, s = to_working(image)
    box = None if whole else paper_box(img, paper)
    if box is None:
        return _analyse(img, s)
    x0, y0, x1, y1 = box
    H, W = img.shape[:2]
    a = _analyse(img[y0:y1, x0:x1], s, cut=paper_cut(img), side=max(H, W), area=H * W, search=True)
    a.origin = (x0, y0)
    a.frame = (W, H)
    return a


#: Felt kept around the card-face paper when a frame is analysed in part (working px): the
#: paper level's blur (a sigma of 1/80 of the frame's side, 12 px at 960x540) and a
#: patch's reach beyond the index (about 30 px) stay inside.
PAPER_MARGIN = 40


def paper_box(img: np.ndarray, paper: np.ndarray | None = None) -> tuple[int, int, int, int] | None:
    """(x0, y0, x1, y1) of the working frame ``img`` holding all its card-face paper (as
    the paper gate sees it: ``paper``, its thumbnail's :func:`paper_map`, made here when not
    given) and ``PAPER_MARGIN`` px around it; None when that is most of the frame anyway
    (nothing to save)."""
    H, W = img.shape[:2]
    if H < 64 or W < 64:
        return None
    ys, xs = np.nonzero(paper_map(thumbnail(img)) if paper is None else paper)
    if not len(xs):
        return None
    x0 = max(0, int(xs.min()) * 4 - PAPER_MARGIN); x1 = min(W, int(xs.max()) * 4 + 4 + PAPER_MARGIN)
    y0 = max(0, int(ys.min()) * 4 - PAPER_MARGIN); y1 = min(H, int(ys.max()) * 4 + 4 + PAPER_MARGIN)
    if (x1 - x0) * (y1 - y0) > 0.8 * W * H:
        return None
    return x0, y0, x1, y1


def analyse_region(img: np.ndarray, scale: float, box: tuple[int, int, int, int],
                   cut: float) -> Analysis:
    """:func:`analyse` of the part ``box`` (x0, y0, x1, y1) of a working frame ``img``, as a
    whole frame's analysis would see it there: that frame's paper cut ``cut``, its lighting
    scale.  The felt is what touches the region's border (or is as big as felt in the whole
    frame).  Enough to re-read a known index (:func:`follow`); its ``ink`` is left rough
    (felt and outlines in it), as no glyph is searched for there."""
    x0, y0, x1, y1 = box
    a = _analyse(img[y0:y1, x0:x1], scale, cut=cut, side=max(img.shape[:2]),
                 area=img.shape[0] * img.shape[1])
    a.origin = (x0, y0)
    a.frame = (img.shape[1], img.shape[0])
    return a


def _analyse(img: np.ndarray, s: float, *, cut: float | None = None, side: int | None = None,
             area: int | None = None, search: bool = False) -> Analysis:
    """Maps of ``img``, a whole working frame, or a part of one when ``side`` (the frame's
    longer side) and ``area`` (its area) are given: felt is then also what runs out of the
    part.  The ink is cleaned for a glyph search (the felt and card outlines out of it) in
    a whole frame, and in a part with ``search``."""
    (b, g, r), m, mf, sat, paper = _planes(img, cut)
    region = side is not None
    side = side or max(img.shape[:2])
    pf = paper.astype(np.float32)
    sigma = side / 80.0
    num = _blur_small(mf * pf, sigma)
    den = _blur_small(pf, sigma)
    near = den > 0.2
    # dark = clip(1 - mf / max(num / max(den, 1e-3), 1), 0, 1), in place: a frame's worth of
    # float32 is allocated once instead of six times
    level = np.divide(num, np.maximum(den, np.float32(1e-3)), out=num)
    dark = np.divide(mf, np.maximum(level, np.float32(1.0), out=level), out=level)
    np.subtract(np.float32(1.0), dark, out=dark)
    np.clip(dark, 0.0, 1.0, out=dark)
    dark[~near] = 0.0
    ink = dark > 0.28
    # the felt (or a card back) around the cards is not ink: large non-paper areas,
    # found after an erosion that cuts the thin strokes linking them to glyphs
    nonpaper = cv2.erode((~paper).astype(np.uint8), np.ones((5, 5), np.uint8))
    if region:  # the boxes too, below
        nn, nlab, nst, _ = cv2.connectedComponentsWithStats(nonpaper, connectivity=4)
        sizes = nst[:, 4]
    else:  # only the sizes: OpenCV's stats cost twice the labelling itself on a whole frame
        nn, nlab = cv2.connectedComponents(nonpaper, connectivity=4)
        sizes = np.bincount(nlab.ravel(), minlength=nn)
    if nn > 1:
        lut = np.zeros(nn, np.uint8)
        lut[1:] = sizes[1:] > 0.01 * (area or nonpaper.size)
        if region:  # felt running out of the region is felt, however little of it is inside
            H, W = nonpaper.shape
            edge = ((nst[:, 0] == 0) | (nst[:, 1] == 0) | (nst[:, 0] + nst[:, 2] == W)
                    | (nst[:, 1] + nst[:, 3] == H)) & (nst[:, 4] >= 16)
            lut[1:] |= edge[1:]
        # for glyph_dark only the felt itself (the opening, no margin): the margin that keeps
        # the card's edge out of ``ink`` would eat into an index printed tight against it,
        # and the rest of a clipped 8 reads as a 6.  What is left of the edge is a thin
        # straight line, which :func:`_lines` takes out of the patch.
        felt = cv2.dilate(np.take(lut, nlab), np.ones((5, 5), np.uint8))  # take: 2x faster than lut[nlab]
        if not region or search:
            exterior = cv2.dilate(felt, np.ones((3, 3), np.uint8))  # = the big areas dilated 7x7
            ink &= exterior == 0
        glyph_dark = np.where(felt == 0, dark, np.float32(0.0))
    else:
        glyph_dark = dark
    if not region or search:  # a followed region's index is read from glyph_dark alone
        ink = _remove_outlines(ink.astype(np.uint8), side).astype(bool)
    # (r - max(g, b)) / (r + 1), from 0 (the uint8 subtraction stops there) to under 1
    red = cv2.subtract(r, cv2.max(g, b)).astype(np.float32) / (r.astype(np.float32) + np.float32(1.0))
    return Analysis(img, s, m, paper, dark, ink, red, sat, glyph_dark, pf)


# ----------------------------------------------------------------------------- glyphs

def _filter_glyphs(a: Analysis, st: np.ndarray, ii: np.ndarray) -> np.ndarray:
    x, y, w, h, area = st[:, 0], st[:, 1], st[:, 2], st[:, 3], st[:, 4]
    H, W = a.ink.shape
    big = max(a.frame or (W, H)) * 0.12  # of the whole frame, also when a part is analysed
    keep = (area >= 10) & (np.maximum(w, h) >= 5) & (np.maximum(w, h) <= big) \
        & (area >= 0.1 * w * h)
    # must sit on paper: paper fraction of a ring around the box
    pad = (np.maximum(w, h) * 0.45 + 2).astype(int)
    x0 = np.clip(x - pad, 0, W); y0 = np.clip(y - pad, 0, H)
    x1 = np.clip(x + w + pad, 0, W); y1 = np.clip(y + h + pad, 0, H)
    outer = ii[y1, x1] - ii[y0, x1] - ii[y1, x0] + ii[y0, x0]
    inner = ii[y + h, x + w] - ii[y, x + w] - ii[y + h, x] + ii[y, x]
    ring_area = (x1 - x0) * (y1 - y0) - w * h
    frac = (outer - inner) / np.maximum(ring_area, 1)
    keep &= frac > RING_PAPER
    return keep


def _components8(mask: np.ndarray):
    """``cv2.connectedComponentsWithStats(mask, connectivity=8)`` with the block-based
    (BBDT) labelling: the same labels, stats and centres, in a third of the time on a
    whole frame's ink (3.2 -> 1.0 ms at 960x540 with OpenCV 5.1, whose default labelling
    is slow to gather stats)."""
    return cv2.connectedComponentsWithStatsWithAlgorithm(mask, 8, cv2.CV_32S, cv2.CCL_BBDT)


def _glyph_components(a: Analysis):
    """Glyph-sized ink components on paper: (stats, centres, ids).

    Glyphs printed close to a card's outline stroke merge with it; such oversized,
    thin components are eroded once and split, which frees the glyph.
    """
    ink8 = a.ink.astype(np.uint8)
    n, labels, stats, cents = _components8(ink8)
    if n <= 1:
        return np.zeros((0, 5), np.int32), np.zeros((0, 2)), np.zeros(0, int)
    ii = cv2.integral(a.paper.astype(np.uint8))
    st, ce, ids = stats[1:], cents[1:], np.arange(1, n)
    keep = _filter_glyphs(a, st, ii)
    H, W = a.ink.shape
    w, h, area = st[:, 2], st[:, 3], st[:, 4]
    bad = (~keep) & (area >= 40) & ((np.maximum(w, h) > max(a.frame or (W, H)) * 0.12) | (area < 0.1 * w * h))
    out_st, out_ce, out_ids = [st[keep]], [ce[keep]], [ids[keep]]
    if bad.any():
        lut = np.zeros(n, np.uint8)
        lut[ids[bad]] = 1
        mask = lut[labels]
        er = cv2.erode(mask, np.ones((3, 3), np.uint8))
        n2, _, st2, ce2 = _components8(er)
        if n2 > 1:
            st2, ce2 = st2[1:].copy(), ce2[1:]
            # undo the erosion in the box sizes
            st2[:, 0] -= 1; st2[:, 1] -= 1; st2[:, 2] += 2; st2[:, 3] += 2
            st2[:, 0:2] = np.maximum(st2[:, 0:2], 0)
            st2[:, 2] = np.minimum(st2[:, 2], W - st2[:, 0])
            st2[:, 3] = np.minimum(st2[:, 3], H - st2[:, 1])
            k2 = _filter_glyphs(a, st2, ii)
            out_st.append(st2[k2]); out_ce.append(ce2[k2]); out_ids.append(n + np.arange(n2 - 1)[k2])
    return np.concatenate(out_st), np.concatenate(out_ce), np.concatenate(out_ids)


def _warp_patch(a: Analysis, centre: np.ndarray, down: np.ndarray, unit: float,
                planes: list[np.ndarray]) -> tuple[list[np.ndarray], np.ndarray]:
    """Warp planes so that the index is upright; returns patches and the 2x3 map."""
    k = unit / UNIT  # working px per patch px
    right = np.array([-down[1], down[0]])  # image x-axis of the card (down rotated -90deg)
    # patch (u, v) -> image: centre + (u - u0) * k * right + (v - v0) * k * down
    pw, ph = int(round(2 * PX * UNIT)), int(round((PY1 - PY0) * UNIT))
    u0, v0 = PX * UNIT, -PY0 * UNIT
    A = np.array([[k * right[0], k * down[0]], [k * right[1], k * down[1]]])
    t = centre - a.origin - A @ np.array([u0, v0])  # the planes of a region start at its origin
    M = np.hstack([A, t[:, None]])  # patch -> image
    out = [cv2.warpAffine(p, M, (pw, ph), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                          borderMode=cv2.BORDER_CONSTANT, borderValue=0) for p in planes]
    return out, M


_LINE = int(1.9 * UNIT)
_KH = cv2.getStructuringElement(cv2.MORPH_RECT, (_LINE, 1))
_KV = cv2.getStructuringElement(cv2.MORPH_RECT, (1, _LINE))
_K3V = np.ones((5, 1), np.uint8)
_K3H = np.ones((1, 5), np.uint8)


#: Above this fraction of the rank's box (one px around it) taken out as outline, the rank
#: is not read: a court card's picture frame touching a small queen's side ran on with
#: the queen's straight strokes as one long line, and what was left of the Q read as a
#: sure 5 on a clean board frame.  No right read of the benchmark's 280 frames is lost.
LINES_IN_RANK = 0.1


def _lines(ink: np.ndarray) -> np.ndarray:
    """Long straight strokes near axis-aligned (card outlines) in an upright patch."""
    hl = cv2.morphologyEx(cv2.dilate(ink, _K3V), cv2.MORPH_OPEN, _KH)
    vl = cv2.morphologyEx(cv2.dilate(ink, _K3H), cv2.MORPH_OPEN, _KV)
    return cv2.dilate(hl | vl, np.ones((3, 3), np.uint8))


def _norm_crop(p: np.ndarray, box, size) -> np.ndarray:
    x0, y0, x1, y1 = box
    c = p[y0:y1, x0:x1]
    if c.size == 0:
        return np.zeros((size[1], size[0]), np.float32)
    return cv2.resize(c, size, interpolation=cv2.INTER_AREA)


def _extract(a: Analysis, centre, down, unit, layout_only: bool = False):
    """Cut rank and suit glyphs from an upright patch.  None when there is no layout.

    ``layout_only``: stop once the rank and suit are placed (the glyphs are None); enough
    to refine a candidate's axis, at about half the cost."""
    # Most candidates fail the layout test below: warp the other planes only for those that pass.
    # Glyphs are found without the felt, so an index near the card's edge stays in one piece.
    (gdk,), M = _warp_patch(a, centre, down, unit, [a.glyph_dark])
    ink = (gdk > 0.28).astype(np.uint8)
    lines = _lines(ink)
    ink &= ~lines & 1
    n, lab, stats, cents = cv2.connectedComponentsWithStats(ink, connectivity=8)
    if n <= 1:
        return None
    cx = PX * UNIT
    suit_y = (0.5 - PY0) * UNIT
    rank_y = (-0.5 - PY0) * UNIT
    # suit: the component nearest the expected suit centre
    d_s = np.hypot(cents[1:, 0] - cx, cents[1:, 1] - suit_y) / UNIT
    d_r = np.hypot(cents[1:, 0] - cx, cents[1:, 1] - rank_y) / UNIT
    js = int(np.argmin(d_s)) + 1
    jr = int(np.argmin(d_r)) + 1
    if d_s[js - 1] > 0.3 or d_r[jr - 1] > 0.45 or js == jr:
        return None
    sx, sy, sw, sh, _ = stats[js]
    # rank: the nearest component plus side-by-side parts (e.g. "1" "0"), all above the suit
    rx, ry, rw, rh, _ = stats[jr]
    parts = [jr]
    for j in range(1, n):
        if j in (jr, js):
            continue
        x, y, w, h, area = stats[j]
        if area < 4:
            continue
        ov = min(y + h, ry + rh) - max(y, ry)
        if ov < 0.5 * min(h, rh):
            continue
        gap = max(x - (rx + rw), rx - (x + w))
        ux0, ux1 = min(x, rx), max(x + w, rx + rw)
        if (gap < 0.22 * rh and 0.55 * rh < h < 1.5 * rh and y + h <= sy + 2
                and ux1 - ux0 < 1.5 * max(h, rh)):
            parts.append(j)
    xs = [stats[j, 0] for j in parts]; ys = [stats[j, 1] for j in parts]
    xe = [stats[j, 0] + stats[j, 2] for j in parts]; ye = [stats[j, 1] + stats[j, 3] for j in parts]
    rb = (min(xs), min(ys), max(xe), max(ye))
    sb = (sx, sy, sx + sw, sy + sh)
    if rb[3] > sb[1] + 0.25 * sh:  # rank must be above the suit
        return None
    if layout_only:
        rc = np.array([(rb[0] + rb[2]) / 2, (rb[1] + rb[3]) / 2])
        return None, None, 0.0, rc, np.array([cents[js, 0], cents[js, 1]]), M, (rb, sb)
    paper_f = a.paper_f if a.paper_f is not None else a.paper.astype(np.float32)
    # the crops and the card-edge evidence below use the full darkness (felt included)
    (dk, rd, st, pp), _ = _warp_patch(a, centre, down, unit, [a.dark, a.red, a.sat, paper_f])
    in_rank = np.zeros(n, bool)
    in_rank[parts] = True
    rmask = in_rank[lab]
    smask = lab == js
    if _cut_by_frame(a, M, rmask | smask):
        return None
    if float(lines[max(rb[1] - 1, 0):rb[3] + 1, max(rb[0] - 1, 0):rb[2] + 1].mean()) > LINES_IN_RANK:
        return None  # an outline taken out through the rank: what is left may be part of it
    rank_crop = _norm_crop(np.where(rmask, dk, 0).astype(np.float32), rb, RANK_SIZE)
    suit_crop = _norm_crop(np.where(smask, dk, 0).astype(np.float32), sb, SUIT_SIZE)

    def stats_of(mask):
        w = dk[mask]
        tot = float(w.sum()) + 1e-6
        return float((rd[mask] * w).sum() / tot), float((st[mask] * w).sum() / tot)

    r_red, r_sat = stats_of(rmask)
    s_red, s_sat = stats_of(smask)
    rank = Glyph(rank_crop, (rb[3] - rb[1]) / max(rb[2] - rb[0], 1), (rb[3] - rb[1]) / UNIT,
                 r_red, r_sat, float(rmask.sum()) / max((rb[2] - rb[0]) * (rb[3] - rb[1]), 1))
    suit = Glyph(suit_crop, (sb[3] - sb[1]) / max(sb[2] - sb[0], 1), (sb[3] - sb[1]) / UNIT,
                 s_red, s_sat, float(smask.sum()) / max((sb[2] - sb[0]) * (sb[3] - sb[1]), 1))
    # corner evidence: paper continues right of and below the index, and the card edge
    # (end of paper, or an edge line) lies a little above and left of the rank.
    top = int(max(rb[1] - 0.6 * UNIT, 0)); left = int(max(rb[0] - 0.6 * UNIT, 0))
    above = pp[top:rb[1], rb[0]:rb[2]]
    leftz = pp[rb[1]:rb[3], left:rb[0]]
    g_above = np.abs(np.diff(dk[:rb[1] + 1, rb[0]:rb[2]], axis=0))
    g_left = np.abs(np.diff(dk[rb[1]:rb[3], :rb[0] + 1], axis=1))
    e_above = float(g_above.max(initial=0.0) if g_above.size else 0.0)
    e_left = float(g_left.max(initial=0.0) if g_left.size else 0.0)
    open_above = float(above.mean()) if above.size else 0.0
    open_left = float(leftz.mean()) if leftz.size else 0.0
    corner = float(np.clip(min(e_above + (1 - open_above), e_left + (1 - open_left)), 0, 1))
    # centroids of rank group and suit in patch px, for axis refinement
    rc = np.array([(rb[0] + rb[2]) / 2, (rb[1] + rb[3]) / 2])
    sc = np.array([cents[js, 0], cents[js, 1]])
    return rank, suit, corner, rc, sc, M, (rb, sb)


#: Glyphs whose width, height and ink area are all within this fraction of each other are twins.
TWINS = 0.12


def candidates(a: Analysis, max_pairs: int = 400) -> list[Candidate]:
    st, ce, ids = _glyph_components(a)
    n = len(ce)
    if n < 2:
        return []
    ce = ce + np.asarray(a.origin, np.float64)  # the analysis' px -> frame px (poses are in frame px)
    size = np.maximum(st[:, 2], st[:, 3]).astype(np.float64)
    d = np.hypot(ce[:, None, 0] - ce[None, :, 0], ce[:, None, 1] - ce[None, :, 1])
    ssum = size[:, None] + size[None, :]
    ratio = size[:, None] / size[None, :]          # rank / suit for (i=rank, j=suit)
    ok = (d <= 0.85 * ssum) & (d >= 0.3 * ssum / 2) & (ratio > 0.45) & (ratio < 4.5)
    # two glyphs of the same width, height and ink are two pips, not a rank over a suit
    w, h, area = (st[:, k].astype(np.float64) for k in (2, 3, 4))
    twins = ((np.abs(w[:, None] / w[None, :] - 1) < TWINS) & (np.abs(h[:, None] / h[None, :] - 1) < TWINS)
             & (np.abs(area[:, None] / area[None, :] - 1) < TWINS))
    ok &= ~twins
    np.fill_diagonal(ok, False)
    ri, si = np.nonzero(ok)
    if len(ri) > max_pairs:
        order = np.argsort(d[ri, si] / ssum[ri, si])[:max_pairs]
        ri, si = ri[order], si[order]
    out: list[Candidate] = []
    seen: list[tuple[float, float, float, float]] = []
    for i, j in zip(ri, si):
        pose = _refined_pose(a, ce[i], ce[j])
        if pose is None:
            continue
        centre, down, d2 = pose
        key = (centre[0], centre[1], down[0], down[1])
        if any(abs(k[0] - key[0]) < 0.15 * d2 and abs(k[1] - key[1]) < 0.15 * d2
               and k[2] * key[2] + k[3] * key[3] > 0.995 for k in seen):
            continue  # the same index reached from another pair (e.g. "1" and "0" of 10)
        seen.append(key)
        c = candidate_at(a, centre, down, d2, (int(ids[i]), int(ids[j])))
        if c is not None:
            out.append(c)
    return out


def _refined_pose(a: Analysis, cr: np.ndarray, cs: np.ndarray):
    """(centre, down, unit) of the index whose rank is near ``cr`` and suit near ``cs``, the
    axis refined once from the glyph groups' centres; None when there is no index layout."""
    v = cs - cr
    dist = float(np.hypot(*v))
    if dist < 1e-6:
        return None
    res = _extract(a, (cr + cs) / 2, v / dist, dist, layout_only=True)
    if res is None:
        return None
    return _pose_from(res[3], res[4], res[5], a, cr, cs, dist)


def _pose_from(rc: np.ndarray, sc: np.ndarray, M: np.ndarray, a: Analysis, cr: np.ndarray,
               cs: np.ndarray, dist: float):
    """The pose from the rank and suit centres ``rc``, ``sc`` found in a patch cut with
    map ``M``; the first guess (``cr``, ``cs``) when they moved implausibly far."""
    rimg = M[:, :2] @ rc + M[:, 2] + a.origin
    simg = M[:, :2] @ sc + M[:, 2] + a.origin
    v2 = simg - rimg
    d2 = float(np.hypot(*v2))
    if not (d2 > 0.5 * dist and abs(d2 - dist) < 0.6 * dist):
        rimg, simg, d2 = cr, cs, dist
    return (rimg + simg) / 2, (simg - rimg) / d2, d2


def follow(a: Analysis, centre: np.ndarray, down: np.ndarray, unit: float) -> Candidate | None:
    """The index candidate near a known one (``centre``, ``down``, ``unit`` in frame working
    px, e.g. from the frame before), its axis refined as :func:`candidates` refines it;
    None when no index layout is there any more.

    The index is cut once where it was; the glyphs found there give its new axis.  Only
    when that axis has moved by more than ``FOLLOW_SAME`` is it cut again there, as a
    searched frame would: a hand held still moves a pixel or two a frame, and the glyph
    crops are cut to the glyphs' own boxes, so a cut that far off reads the same."""
    c = np.asarray(centre, np.float64)
    d = np.asarray(down, np.float64)
    res = _extract(a, c, d, unit)
    if res is None:
        return None
    pose = _pose_from(res[3], res[4], res[5], a, c - d * unit / 2, c + d * unit / 2, unit)
    nc, nd, nu = pose
    moved = float(np.hypot(*(nc - c))) / unit
    turned = float(np.degrees(np.arccos(np.clip(float(nd @ d), -1.0, 1.0))))
    if moved > FOLLOW_SAME[0] or turned > FOLLOW_SAME[1] or abs(nu / unit - 1) > FOLLOW_SAME[2]:
        return candidate_at(a, *pose)
    return _candidate(a, res, nc, nd, nu)


#: (rank-suit distances moved, degrees turned, relative scale change) under which a followed
#: index's first cut stands for a cut at its refined axis.
FOLLOW_SAME = (0.12, 2.0, 0.06)


def _cut_by_frame(a: Analysis, M: np.ndarray, mask: np.ndarray) -> bool:
    """Whether glyph pixels of a patch reach the edge of the frame: a glyph cut by the frame
    (or by the seat's region of it) can pass for another one (the top of a 6 for a 5)."""
    W, H = a.frame or (a.image.shape[1], a.image.shape[0])

    def reaches_edge(xs, ys) -> bool:  # patch px -> frame px, then the 1.5 px border
        px = xs * M[0, 0] + ys * M[0, 1] + (M[0, 2] + a.origin[0])
        py = xs * M[1, 0] + ys * M[1, 1] + (M[1, 2] + a.origin[1])
        return bool(px.min() < 1.5 or py.min() < 1.5 or px.max() > W - 2.5 or py.max() > H - 2.5)

    # the patch's corners first: when the whole patch lies inside, no glyph of it can reach
    # the edge (most patches; the pixel test below costs ten times as much)
    ph, pw = mask.shape
    if not reaches_edge(np.array([0.0, pw - 1, 0.0, pw - 1]), np.array([0.0, 0.0, ph - 1, ph - 1])):
        return False
    ys, xs = np.nonzero(mask)
    return bool(len(xs)) and reaches_edge(xs, ys)


def candidate_at(a: Analysis, centre: np.ndarray, down: np.ndarray, unit: float,
                 comps: tuple[int, int] = (-1, -1)) -> Candidate | None:
    """The index candidate whose rank-suit midpoint, down vector and unit are given."""
    res = _extract(a, centre, down, unit)
    if res is None:
        return None
    return _candidate(a, res, centre, down, unit, comps)


def _candidate(a: Analysis, res, centre, down, unit, comps: tuple[int, int] = (-1, -1)) -> Candidate:
    """The Candidate of an :func:`_extract` result, placed at pose (centre, down, unit)."""
    rank, suit, corner, _, _, M, (rb, sb) = res
    x0, y0 = min(rb[0], sb[0]), min(rb[1], sb[1])
    x1, y1 = max(rb[2], sb[2]), max(rb[3], sb[3])
    pts = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float64)
    img_pts = (pts @ M[:, :2].T + M[:, 2] + a.origin) / a.scale
    bx0, by0 = img_pts.min(axis=0)
    bx1, by1 = img_pts.max(axis=0)
    return Candidate(np.asarray(centre, np.float64), np.asarray(down, np.float64), float(unit),
                     rank, suit, corner, (float(bx0), float(by0), float(bx1), float(by1)), comps)
