"""The frame's maps: where a frame's card-face paper, ink and glyph darkness are.

Everything the index search (:mod:`cardcam.detect`) and the face count
(:mod:`cardcam.faces`) read starts here:

* *the paper gate*: a quarter-size thumbnail's card-face paper (:func:`thumbnail`,
  :func:`paper_map`, :func:`shows_paper`).  Felt between showings, the most common
  hole-cam frame, stops there;
* *the paper box*: the part of the frame that holds all its card-face paper
  (:func:`paper_box`), so a searched frame is analysed only where its cards are;
* *paper*: bright, unsaturated pixels (card faces, and glare);
* *ink*: pixels clearly darker than the paper around them (normalised by a blurred paper
  level, so lighting gradients and glare edges do not matter), less the felt and card
  backs around the cards and the long straight card outlines;
* *glyph darkness*: the darkness less the felt, where an index's glyphs may be.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

#: Working frames are downscaled so the longer side is at most this.
MAX_SIDE = 1280
#: Darkness over which a pixel is ink (glyphs are cut from the darkness maps at this level).
INK = 0.28


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
    paper_f: np.ndarray | None = None  # paper as float32 (made once, for colour_planes)
    # working px of this analysis' top-left corner in the frame: (0, 0) for a whole frame,
    # the region's corner for :func:`analyse_region`.  Candidates are in frame px.
    origin: tuple[int, int] = (0, 0)
    frame: tuple[int, int] | None = None  # (w, h) of the whole working frame; None: ``image``'s
    _colour: np.ndarray | None = field(default=None, repr=False, compare=False)

    def colour_planes(self) -> np.ndarray:
        """``dark``, ``red``, ``sat`` and the paper (float32) as the four channels of one
        image, made the first time it is asked: a candidate's patch of all four is one warp
        (:func:`cardcam.detect._extract`), not four."""
        if self._colour is None:
            paper = self.paper_f if self.paper_f is not None else self.paper.astype(np.float32)
            self._colour = cv2.merge([self.dark, self.red, self.sat, paper])
        return self._colour


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
    frame).  Enough to re-read a known index (:func:`cardcam.detect.follow`); its ``ink`` is left rough
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
    ink = dark > INK
    # the felt (or a card back) around the cards is not ink: large non-paper areas,
    # found after an erosion that cuts the thin strokes linking them to glyphs
    nonpaper = cv2.erode((~paper).astype(np.uint8), np.ones((5, 5), np.uint8))
    # labels only, their sizes counted here: with OpenCV's stats the labelling of a searched
    # frame's part takes 1.8 ms, without them 0.5 ms (2026-12-07)
    nn, nlab = cv2.connectedComponents(nonpaper, connectivity=4)
    sizes = np.bincount(nlab.ravel(), minlength=nn)
    if nn > 1:
        lut = np.zeros(nn, np.uint8)
        lut[1:] = sizes[1:] > 0.01 * (area or nonpaper.size)
        if region:  # felt running out of the region is felt, however little of it is inside
            border = np.concatenate((nlab[0], nlab[-1], nlab[:, 0], nlab[:, -1]))
            edge = np.zeros(nn, bool)
            edge[border] = True  # the components with a pixel on the region's border
            lut[1:] |= edge[1:] & (sizes[1:] >= 16)
        # for glyph_dark only the felt itself (the opening, no margin): the margin that keeps
        # the card's edge out of ``ink`` would eat into an index printed tight against it,
        # and the rest of a clipped 8 reads as a 6.  What is left of the edge is a thin
        # straight line, which :func:`cardcam.patch.lines` takes out of the patch.
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
