"""Find corner-index candidates in a frame's maps (:mod:`cardcam.maps`; card faces
without a readable index: :mod:`cardcam.faces`).

The reader does not try to segment whole cards (fanned hands overlap and thumbs cover
edges).  It works from the ink on the cards instead:

1. *glyphs*: ink components of glyph size that sit on paper (:mod:`cardcam.glyphs`);
2. *index candidates*: pairs of glyphs close together, one read as the rank and the
   other as the suit below it.  The pair's axis gives the card's "down" direction, so
   any rotation works, including upside-down hands where only the lower-right index
   shows.  Every ordered pair is tried, so both 180-degree readings are classified and
   the classifier rejects the wrong one.

Each candidate is warped to an upright, scale-normalised patch and the rank and suit
glyphs are cut out of it for :mod:`cardcam.classify`.  A held hand's index is
*followed* (:func:`follow`): cut again where it was in the last frame.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from . import patch
from .glyphs import WAISTS, frame_glyphs, split_at_waist, split_patch_glyph
from .maps import INK, Analysis
from .patch import PX, PY0, UNIT

RANK_SIZE = (24, 32)   # (w, h) of the normalised rank glyph
SUIT_SIZE = (24, 24)


@dataclass
class Glyph:
    crop: np.ndarray         # float32, normalised size
    aspect: float            # h / w in the upright patch
    size: float              # height in units
    red: float               # mean redness of its ink
    sat: float               # mean saturation of its ink
    mass: float              # ink fraction of its box
    parts: int = 1           # ink components it was joined from ("1" + "0" of a ten)
    stacked: float = 0.0     # of those, the most one overlaps the first across (0: side by side)
    # of those, the one most like the suit: its largest relative difference from the suit in
    # width, height and ink area (near 0: a pip of the card beside the index, not a rank's part)
    pip_part: float = float("inf")
    felt_top: float = 0.0    # felt cut away against its top, per px of its width (below)
    cut_away: float = 0.0    # ink cut away next to it (felt, outlines), per px of its height
    loose: float = 0.0       # other ink inside its box (a broken glyph's pieces), per px of its height
    # redness of its ink against the paper's colour (:meth:`Candidate.tints`; -1: no paper
    # to balance against; None: not measured yet)
    tint: float | None = None
    # yellowness of its ink against the paper's colour, measured with ``tint``
    # (:meth:`Candidate.yellows`)
    yellow: float | None = None


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
    # what :meth:`tints` measures from (:func:`patch.tints`' arguments), kept until it is asked:
    # only a sure black read needs it
    tint_source: tuple | None = field(default=None, repr=False, compare=False)
    # the layout pass' figures of the pair it was cut from (what the screen reads)
    layout: np.ndarray | None = field(default=None, repr=False, compare=False)
    # cut at its pair's own axis, the refined one having found no index (:func:`cut`)
    own_axis: bool = field(default=False, compare=False)

    def tints(self) -> tuple[float, float]:
        """The rank's and the suit's ink redness against the paper's colour (:func:`patch.tints`),
        measured the first time it is asked: about 0.15 ms, and only a sure black read
        needs it, against some 40 candidates a searched frame."""
        if self.rank.tint is None or self.suit.tint is None:
            src = self.tint_source
            (self.rank.tint, self.rank.yellow), (self.suit.tint, self.suit.yellow) = (
                patch.tints(*src) if src is not None else ((-1.0, -1.0), (-1.0, -1.0)))
            self.tint_source = None
        return self.rank.tint, self.suit.tint

    def yellows(self) -> tuple[float, float]:
        """The rank's and the suit's ink yellowness against the paper's colour, measured
        with :meth:`tints` (-1 when there is no paper to balance against)."""
        self.tints()
        return self.rank.yellow, self.suit.yellow


#: A suit glyph is at most about one rank-suit distance wide or tall (0.4 to 1.0 in twelve
#: decks); the component where the suit should be that is larger than this is tried for a
#: neck where it joins a big pip or a court picture (:func:`cardcam.glyphs.split_patch_glyph`).
SUIT_MERGED = 1.15


#: Above this fraction of the rank's box (one px around it) taken out as outline, the rank
#: is not read: a court card's picture frame touching a small queen's side ran on with
#: the queen's straight strokes as one long line, and what was left of the Q read as a
#: sure 5 on a clean board frame.  No right read of the benchmark's 280 frames is lost.
LINES_IN_RANK = 0.1


def _norm_crop(p: np.ndarray, box, size) -> np.ndarray:
    x0, y0, x1, y1 = box
    c = p[y0:y1, x0:x1]
    if c.size == 0:
        return np.zeros((size[1], size[0]), np.float32)
    return cv2.resize(c, size, interpolation=cv2.INTER_AREA)


def _extract(a: Analysis, centre, down, unit, layout_only: bool = False, waists: bool = True):
    """Cut rank and suit glyphs from an upright patch.  None when there is no layout.

    The suit may be joined to a big pip or a picture beside it (paris and dondorf clubs, a
    court card's suit touching the picture): a suit glyph too large is split at its neck
    (:func:`cardcam.glyphs.split_patch_glyph`), and a run of ink lying on such solid ink is not taken out
    as a card outline (:func:`patch.lines`).  Done on every patch since 2026-12-05 (model v9),
    not only on pairs with a neck piece: a pair of two whole glyphs, a paris 5 and its
    index club, was refined onto the big club beside it and read as "not an index".

    ``layout_only``: stop once the rank and suit are placed (the glyphs are None); enough
    to refine a candidate's axis, at about half the cost.  ``waists``: cut one glyph in the
    rank's and the suit's places at its waist (:func:`cardcam.glyphs.split_at_waist`; not in training,
    see :func:`candidates`)."""
    # Most candidates fail the layout test below: warp the other planes only for those that pass.
    # Glyphs are found without the felt, so an index near the card's edge stays in one piece.
    (gdk,), M = patch.warp(a, centre, down, unit, [a.glyph_dark])
    ink = (gdk > INK).astype(np.uint8)
    # on every patch: 24 more cards of 1,980 for about 6 ms a searched frame (docs/CARDCAM.md)
    lines = patch.lines(ink)
    ink &= ~lines & 1
    n, lab, stats, cents = cv2.connectedComponentsWithStats(ink, connectivity=8)
    if n <= 1:
        return None
    cx = PX * UNIT
    suit_y = (0.5 - PY0) * UNIT
    rank_y = (-0.5 - PY0) * UNIT

    def nearest(cents):
        """Each component's distance from the suit's and the rank's places, in units."""
        return (np.hypot(cents[1:, 0] - cx, cents[1:, 1] - suit_y) / UNIT,
                np.hypot(cents[1:, 0] - cx, cents[1:, 1] - rank_y) / UNIT)

    # suit: the component nearest the expected suit centre
    d_s, d_r = nearest(cents)
    js = int(np.argmin(d_s)) + 1
    # the glyph where the suit should be, when it is joined to a big pip or a picture, has its
    # centre off to the side: the component under the suit's place is the one to look at
    under = int(lab[int(suit_y), int(cx)])
    if under and max(stats[under, 2], stats[under, 3]) > SUIT_MERGED * UNIT:
        js = under
    if max(stats[js, 2], stats[js, 3]) > SUIT_MERGED * UNIT:
        pieces = split_patch_glyph(lab, stats, cents, n, js)
        if pieces is not None:
            lab, stats, cents, n = pieces
            d_s, d_r = nearest(cents)
            js = int(np.argmin(d_s)) + 1
    jr = int(np.argmin(d_r)) + 1
    if js == jr and waists:  # one glyph in both places: a rank blurred into its suit?
        pieces = split_at_waist(lab, stats, cents, n, js)
        if pieces is not None:
            lab, stats, cents, n = pieces
            d_s, d_r = nearest(cents)
            js, jr = int(np.argmin(d_s)) + 1, int(np.argmin(d_r)) + 1
    if d_s[js - 1] > 0.3 or d_r[jr - 1] > 0.45 or js == jr:
        return None
    rows = stats.tolist()  # Python ints: the loop below reads every component's row
    sx, sy, sw, sh, _ = rows[js]
    # rank: the nearest component plus side-by-side parts (e.g. "1" "0"), all above the suit
    rx, ry, rw, rh, _ = rows[jr]
    parts = [jr]
    stacked = 0.0
    for j in range(1, n):
        if j in (jr, js):
            continue
        x, y, w, h, area = rows[j]
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
            stacked = max(stacked, -gap / max(min(w, rw), 1))
    xs = [rows[j][0] for j in parts]; ys = [rows[j][1] for j in parts]
    xe = [rows[j][0] + rows[j][2] for j in parts]; ye = [rows[j][1] + rows[j][3] for j in parts]
    rb = (min(xs), min(ys), max(xe), max(ye))
    sb = (sx, sy, sx + sw, sy + sh)
    if rb[3] > sb[1] + 0.25 * sh:  # rank must be above the suit
        return None
    if layout_only:
        rc = np.array([(rb[0] + rb[2]) / 2, (rb[1] + rb[3]) / 2])
        sc = np.array([cents[js, 0], cents[js, 1]])
        figures = _layout_figures(rows, parts, js, rb, sb, d_r[jr - 1], d_s[js - 1], n, ink)
        return None, None, 0.0, rc, sc, M, (rb, sb), figures
    # the crops and the card-edge evidence below use the full darkness (felt included)
    # the planes as views of the one warped patch: cv2.split would copy them (some 20 us)
    planes = patch.upright(a.colour_planes(), M, patch.SIZE)
    dk, rd, st, pp = (planes[:, :, i] for i in range(4))
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
    corner = min(max(min(e_above + (1 - open_above), e_left + (1 - open_left)), 0.0), 1.0)
    # centroids of rank group and suit in patch px, for axis refinement
    rc = np.array([(rb[0] + rb[2]) / 2, (rb[1] + rb[3]) / 2])
    sc = np.array([cents[js, 0], cents[js, 1]])
    rank.parts, rank.stacked = len(parts), stacked
    if len(parts) > 1:  # a pip joined to the rank is the twin of the pip taken as its suit
        rank.pip_part = min(float(unlikeness(*rows[j][2:5], *rows[js][2:5])) for j in parts)
    rank.felt_top = patch.felt_top(dk, gdk, rmask, rb)
    rank.cut_away = patch.cut_away(dk, ink, rmask, rb)
    rank.loose = patch.loose(ink, rmask | smask, rb)
    return rank, suit, corner, rc, sc, M, (rb, sb), (a.image, M, dk, pp, rmask, smask)


def _layout_figures(rows, parts, js, rb, sb, d_r, d_s, n, ink) -> np.ndarray:
    """What the layout pass knows of a pair, in rank-suit distances: the rank's and the
    suit's boxes and ink, how far each lies from its place, the gap between them, how many
    glyphs the patch holds and how much ink, then a 6x8 px picture of the ink in the rank's
    box and a 6x6 one of the suit's (the shapes: the sizes alone tell too little).  The
    screen (:mod:`cardcam.screen`) reads these to skip the full cut of a pair that is
    plainly not an index."""
    rw, rh = (rb[2] - rb[0]) / UNIT, (rb[3] - rb[1]) / UNIT
    sw, sh = (sb[2] - sb[0]) / UNIT, (sb[3] - sb[1]) / UNIT
    r_area = sum(rows[j][4] for j in parts) / UNIT ** 2
    s_area = rows[js][4] / UNIT ** 2
    base = np.array([rw, rh, sw, sh, r_area / max(rw * rh, 1e-3), s_area / max(sw * sh, 1e-3),
                     r_area, s_area, d_r, d_s, (sb[1] - rb[3]) / UNIT,
                     ((rb[0] + rb[2]) - (sb[0] + sb[2])) / 2 / UNIT, len(parts), np.log(n),
                     float(cv2.countNonZero(ink)) / ink.size], np.float32)
    fr = cv2.resize(ink[rb[1]:rb[3], rb[0]:rb[2]].astype(np.float32), (6, 8), interpolation=cv2.INTER_AREA)
    fs = cv2.resize(ink[sb[1]:sb[3], sb[0]:sb[2]].astype(np.float32), (6, 6), interpolation=cv2.INTER_AREA)
    return np.concatenate([base, fr.ravel(), fs.ravel()])


#: Glyphs whose width, height and ink area are all within this fraction of each other are twins.
TWINS = 0.12


def unlikeness(w, h, area, w2, h2, area2):
    """How unlike a glyph (width ``w``, height ``h``, ink ``area``) is another: the largest
    relative difference of the three from the other's (numpy arrays broadcast).  A card's
    pips are printed alike: under :data:`TWINS` two glyphs are twins, two pips rather than
    a rank over its suit (:func:`candidates`); a rank's part this near its suit is a pip
    (``Glyph.pip_part``)."""
    return np.maximum(np.maximum(np.abs(w / np.maximum(w2, 1) - 1), np.abs(h / np.maximum(h2, 1) - 1)),
                      np.abs(area / np.maximum(area2, 1) - 1))


#: A glyph pairs with the smaller half of a glyph cut at its waist, as its suit, only from
#: across that glyph's long axis (|cos| of the angle under this): a paris index club that
#: ran into the big club beside it, under its rank.
WAIST_ACROSS = 0.6


def _waist_pairs(ids: np.ndarray, ce: np.ndarray, area: np.ndarray) -> np.ndarray:
    """Which (rank i, suit j) pairs may involve the halves of glyphs cut at their waist
    (ids from :data:`cardcam.glyphs.WAISTS`; :func:`cardcam.glyphs.waist_pieces`): the two halves of one glyph, both ways
    (a rank blurred into its suit), and a whole glyph over the smaller half from across the
    glyph's long axis (a suit blurred into the big pip beside it).  The halves of a glyph
    too short for a rank over its suit (``id - WAISTS`` with bit 2 set) do not pair with
    each other.  Pairing every glyph near a half with it, both ways (and a looser waist
    test, 1.6 and 0.55), took two thirds more layout passes (4,406 against 2,640 on 42
    hand frames) to read the same 559 of the misses benchmark's 666 cards, and 1,695 of
    its 840 frames' 1,980 instead of 1,691."""
    half = ids >= WAISTS
    allowed = ~(half[:, None] | half[None, :])
    where = {int(k): i for i, k in enumerate(ids) if k >= WAISTS}
    for k, j in where.items():
        p = where.get(k ^ 1)
        if p is None:
            continue
        if not (k - WAISTS) & 2:
            allowed[p, j] = True  # the other half over this one: long enough for a rank over a suit
        if area[j] > area[p]:
            continue
        axis = ce[p] - ce[j]
        axis /= max(float(np.hypot(*axis)), 1e-6)
        v = ce[j] - ce
        cos = np.abs(v @ axis) / np.maximum(np.hypot(v[:, 0], v[:, 1]), 1e-6)
        allowed[:, j] |= (cos < WAIST_ACROSS) & ~half
    return allowed


#: The pair gate: what a rank-suit pair of glyphs measures in the frame, before any patch
#: is cut round it.  Of the 28,622 pairs the search tried in 15 frames a deck of the 20
#: standard decks (seeds 9000 moderate and 9100 hard, 2026-12-07, night), the 1,823 that
#: read a card right measured: the suit's ink over its box 0.412 and more, its box's height
#: over width 0.70 to 1.50 (a suit is about square at any rotation); the glyphs' distance
#: over the sum of their sizes 0.452 and more; the rank's ink area over the suit's 0.09 to
#: 3.42.  A rank more than ``BIG_RANK`` times its suit's size may have run into the card's
#: outline or a picture (a bellot 8 into the border, an ornamental 10 into the frame line):
#: it counts as ``BIG_RANK`` times the suit's size in the distance test and its ink is not
#: held to the upper bound.  The gate keeps a margin round each measure and lets 68 % of
#: the pairs through, every one that read a card.
PAIR_NEAR = 0.40
SUIT_FILL = 0.35
SUIT_TALL = (0.55, 1.85)
INK_RATIO = (0.05, 5.0)
BIG_RANK = 2.0


def pair_gate(st: np.ndarray, d: np.ndarray) -> np.ndarray:
    """Which (rank i, suit j) pairs of a frame's glyphs (``st``: their stats rows; ``d``: the
    pairs' centre distances) can be an index by what they measure in the frame
    (:data:`PAIR_NEAR`, :data:`SUIT_FILL`, :data:`SUIT_TALL`, :data:`INK_RATIO`,
    :data:`BIG_RANK`).  A layout pass costs about a quarter of a millisecond; the gate of
    all a frame's pairs (some 1,400 of 38 glyphs) about 0.03 ms."""
    w, h, area = (st[:, k].astype(np.float64) for k in (2, 3, 4))
    size = np.maximum(w, h)
    fill = area / np.maximum(w * h, 1.0)
    tall = h / np.maximum(w, 1.0)
    suit_ok = (fill >= SUIT_FILL) & (tall >= SUIT_TALL[0]) & (tall <= SUIT_TALL[1])
    big = size[:, None] > BIG_RANK * size[None, :]
    rank_size = np.minimum(size[:, None], BIG_RANK * size[None, :])
    ink = area[:, None] / np.maximum(area[None, :], 1.0)
    return (suit_ok[None, :] & (d >= PAIR_NEAR * (rank_size + size[None, :]))
            & (ink >= INK_RATIO[0]) & (big | (ink <= INK_RATIO[1])))


@dataclass
class Pose:
    """A pair's refined index axis (what :func:`candidate_at` cuts) with the layout pass'
    figures and the screen's probability that it is an index (1.0 without a screen)."""
    centre: np.ndarray
    down: np.ndarray
    unit: float
    comps: tuple[int, int]
    figures: np.ndarray
    p: float = 1.0
    #: the pair's own axis (centre, down, unit), from its glyphs' centres, when the
    #: refinement moved it (:func:`cut`'s ``own_axis``)
    own: tuple[np.ndarray, np.ndarray, float] | None = None


def poses(a: Analysis, max_pairs: int = 400, screen=None, waists: bool = True,
          gate: bool = True) -> list[Pose]:
    """The index poses of a frame, uncut: pairs of glyphs (rank over suit) whose patch has
    an index layout, each at its refined axis, in the pairs' order.  ``screen``
    (:class:`cardcam.screen.Screen`) is given the pairs' layout figures (one row each,
    :func:`_layout_figures` and two of the pair): the pairs it drops are left out, the
    others carry its probability.  The rest as :func:`candidates`."""
    return [q for batch in pose_batches(a, None, max_pairs, screen, waists, gate) for q in batch]


def pose_batches(a: Analysis, batch: int | None = None, max_pairs: int = 400, screen=None,
                 waists: bool = True, gate: bool = True, solid_first: bool = False):
    """:func:`poses` a few at a time: each list it yields holds the poses of the next
    pairs' layout passes, ``batch`` of them, then twice as many each time (all pairs at
    once when None), so that a reader that has read its hand's cards can stop before the
    rest, and one that has not pays for few batches.  ``solid_first``: the pairs whose
    suit glyph fills most of its box first (a suit is solid ink; a digit, a letter of a
    picture's frame or a stroke of a picture seldom is): on 43 hands read whole, their
    cards' pairs came within the first 37 % of the pairs on average, against 51 % in the
    frame's order."""
    st, ce, ids = frame_glyphs(a, waists=waists)
    n = len(ce)
    if n < 2:
        return
    ce = ce + np.asarray(a.origin, np.float64)  # the analysis' px -> frame px (poses are in frame px)
    size = np.maximum(st[:, 2], st[:, 3]).astype(np.float64)
    d = np.hypot(ce[:, None, 0] - ce[None, :, 0], ce[:, None, 1] - ce[None, :, 1])
    ssum = size[:, None] + size[None, :]
    ratio = size[:, None] / size[None, :]          # rank / suit for (i=rank, j=suit)
    ok = (d <= 0.85 * ssum) & (d >= 0.3 * ssum / 2) & (ratio > 0.45) & (ratio < 4.5)
    # two glyphs of the same width, height and ink are two pips, not a rank over a suit
    w, h, area = (st[:, k].astype(np.float64) for k in (2, 3, 4))
    ok &= unlikeness(w[:, None], h[:, None], area[:, None], w[None, :], h[None, :], area[None, :]) >= TWINS
    if gate:
        ok &= pair_gate(st, d)
    if ids.max() >= WAISTS:
        ok &= _waist_pairs(ids, ce, area)
    np.fill_diagonal(ok, False)
    ri, si = np.nonzero(ok)
    if len(ri) > max_pairs:
        order = np.argsort(d[ri, si] / ssum[ri, si])[:max_pairs]
        ri, si = ri[order], si[order]
    if solid_first:
        order = np.argsort(-(area[si] / np.maximum(w[si] * h[si], 1.0)), kind="stable")
        ri, si = ri[order], si[order]
    batch = batch or max(len(ri), 1)
    seen: list[tuple[float, float, float, float]] = []
    k = 0
    while k < len(ri):
        out: list[Pose] = []
        for i, j in zip(ri[k:k + batch], si[k:k + batch]):
            found = _refined_pose(a, ce[i], ce[j], waists)
            if found is None:
                continue
            (centre, down, d2), figs = found
            key = (centre[0], centre[1], down[0], down[1])
            if any(abs(q[0] - key[0]) < 0.15 * d2 and abs(q[1] - key[1]) < 0.15 * d2
                   and q[2] * key[2] + q[3] * key[3] > 0.995 for q in seen):
                continue  # the same index reached from another pair (e.g. "1" and "0" of 10)
            seen.append(key)
            own = ((ce[i] + ce[j]) / 2, (ce[j] - ce[i]) / d[i, j], float(d[i, j]))
            out.append(Pose(centre, down, d2, (int(ids[i]), int(ids[j])),
                            np.append(figs, (d[i, j] / ssum[i, j], np.log(ratio[i, j]))),
                            own=None if own[2] == d2 and np.array_equal(own[1], down) else own))
        if screen is not None and out:
            p = screen.score(np.array([q.figures for q in out], np.float32))
            for q, pk in zip(out, p):
                q.p = float(pk)
            # plainly not an index: not cut (the screen, docs/CARDCAM.md)
            out = [q for q, keep in zip(out, p >= screen.cut) if keep]
        k += batch
        batch *= 2  # a hand not read in the first pairs is seldom read in the next few
        yield out


def cut(a: Analysis, pose: Pose, waists: bool = True, own_axis: bool = False) -> Candidate | None:
    """The candidate of ``pose`` cut in full (None when the cut finds no index there).

    ``own_axis``: when the refined axis finds no index, cut at the pair's own axis
    (:attr:`Pose.own`).  The refinement takes the axis from the centre of the rank's box,
    and a rank run into a stub of the card's outline (a bellot 7's top bar) has its box's
    centre off to the side: the axis turned 15 degrees, the outline no longer lay along
    the patch and was left in, and no layout was found.  The model is trained without
    it (:func:`candidates`)."""
    c = candidate_at(a, pose.centre, pose.down, pose.unit, pose.comps, waists)
    if c is None and own_axis and pose.own is not None:
        c = candidate_at(a, *pose.own, pose.comps, waists)
        if c is not None:
            c.own_axis = True
    if c is not None:
        c.layout = pose.figures
    return c


def candidates(a: Analysis, max_pairs: int = 400, screen=None, waists: bool = True,
               gate: bool = True) -> list[Candidate]:
    """The index candidates of a frame: pairs of glyphs (rank over suit) whose patch has an
    index layout, each cut at its refined axis (:func:`poses`, then :func:`cut`).
    ``screen`` (:class:`cardcam.screen.Screen`) says which pairs to cut; the others are
    dropped uncut.

    ``gate``: only pairs that pass :func:`pair_gate` get a layout pass.  The model is
    trained without it (the same samples as model v10's): the gate only spares the reader
    pairs that never read a card.

    ``waists``: also pair the halves of a rank blurred into its suit, cut at its waist
    (:func:`cardcam.glyphs.waist_pieces`, :func:`cardcam.glyphs.split_at_waist`).  The model is trained
    without them: trained on them too (model v11, 2026-12-06) it read 538 of the misses
    benchmark's 666 cards with 2 wrong, against 559 and 0 wrong for model v10 reading
    with them (docs/CARDCAM.md)."""
    out = (cut(a, q, waists) for q in poses(a, max_pairs, screen, waists, gate))
    return [c for c in out if c is not None]


def _refined_pose(a: Analysis, cr: np.ndarray, cs: np.ndarray, waists: bool = True):
    """((centre, down, unit), figures) of the index whose rank is near ``cr`` and suit near
    ``cs``: the axis refined once from the glyph groups' centres, and the layout pass'
    figures (:func:`_layout_figures`); None when there is no index layout."""
    v = cs - cr
    dist = float(np.hypot(*v))
    if dist < 1e-6:
        return None
    res = _extract(a, (cr + cs) / 2, v / dist, dist, layout_only=True, waists=waists)
    if res is None:
        return None
    return _pose_from(res[3], res[4], res[5], a, cr, cs, dist), res[7]


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
                 comps: tuple[int, int] = (-1, -1), waists: bool = True) -> Candidate | None:
    """The index candidate whose rank-suit midpoint, down vector and unit are given
    (``comps``: the frame's glyph ids it was paired from, kept on the candidate;
    ``waists``: as :func:`_extract`'s)."""
    res = _extract(a, centre, down, unit, waists=waists)
    if res is None:
        return None
    return _candidate(a, res, centre, down, unit, comps)


def _candidate(a: Analysis, res, centre, down, unit, comps: tuple[int, int] = (-1, -1)) -> Candidate:
    """The Candidate of an :func:`_extract` result, placed at pose (centre, down, unit)."""
    rank, suit, corner, _, _, M, (rb, sb), tint_source = res
    x0, y0 = min(rb[0], sb[0]), min(rb[1], sb[1])
    x1, y1 = max(rb[2], sb[2]), max(rb[3], sb[3])
    pts = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float64)
    img_pts = (pts @ M[:, :2].T + M[:, 2] + a.origin) / a.scale
    bx0, by0 = img_pts.min(axis=0)
    bx1, by1 = img_pts.max(axis=0)
    return Candidate(np.asarray(centre, np.float64), np.asarray(down, np.float64), float(unit),
                     rank, suit, corner, (float(bx0), float(by0), float(bx1), float(by1)), comps, tint_source)
