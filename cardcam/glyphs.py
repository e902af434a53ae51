"""The glyphs of a frame: ink components of glyph size that sit on card-face paper, the
raw material of :mod:`cardcam.detect`'s rank-suit pairs.

Two kinds of glyph are freed from what they touch:

* a glyph printed close to a card's outline stroke merges with it into one oversized,
  thin component; eroding such components once frees the glyph;
* a glyph printed close to a big pip or a court card's picture (a dondorf index club
  beside the big club, a bellot court's suit against the picture) runs into it at a thin
  neck; components that come apart there under erosion add their pieces as glyphs of
  their own (:func:`neck_split`, also used on a patch's suit by :mod:`cardcam.detect`);
* a small index's rank blurs into its suit, or a suit into the big pip beside it, into
  one long glyph that narrows between the two: its halves, cut there, are added as
  glyphs (:func:`waist_pieces`).

The same two cuts are made in the upright patch :mod:`cardcam.detect` cuts round a pair,
on the one glyph in the suit's place or in both the rank's and the suit's
(:func:`split_patch_glyph`, :func:`split_at_waist`).
"""
from __future__ import annotations

import math

import cv2
import numpy as np

from .maps import Analysis

#: Paper fraction a glyph needs in a ring around its box (ink on felt, chips or card backs
#: has little).  An index printed tight in the card's corner (bellot, paris) has only
#: about a third of that ring on paper: the rest is felt or the card behind, in shadow.
RING_PAPER = 0.25

#: the 3x3 square that erodes and dilates glyph masks (detect uses it too)
K3 = np.ones((3, 3), np.uint8)


def _on_paper(a: Analysis, st: np.ndarray, ii: np.ndarray) -> np.ndarray:
    """Which components (``st``: stats rows) are glyph-sized and sit on paper (``ii``: the
    paper map's integral image)."""
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


def components8(mask: np.ndarray):
    """``cv2.connectedComponentsWithStats(mask, connectivity=8)`` with the block-based
    (BBDT) labelling: the same labels, stats and centres, in a third of the time on a
    whole frame's ink (3.2 -> 1.0 ms at 960x540 with OpenCV 5.1, whose default labelling
    is slow to gather stats)."""
    return cv2.connectedComponentsWithStatsWithAlgorithm(mask, 8, cv2.CV_32S, cv2.CCL_BBDT)


def frame_glyphs(a: Analysis, waists: bool = True):
    """Glyph-sized ink components on paper: (stats, centres, ids).

    Glyphs printed close to a card's outline stroke merge with it; such oversized,
    thin components are eroded once and split, which frees the glyph.  With ``waists``,
    the halves of a long glyph cut at its waist are glyphs too (:func:`waist_pieces`; ids
    from :data:`WAISTS`).
    """
    ink8 = a.ink.astype(np.uint8)
    n, labels, stats, cents = components8(ink8)
    if n <= 1:
        return np.zeros((0, 5), np.int32), np.zeros((0, 2)), np.zeros(0, int)
    ii = cv2.integral(a.paper.astype(np.uint8))
    st, ce, ids = stats[1:], cents[1:], np.arange(1, n)
    keep = _on_paper(a, st, ii)
    H, W = a.ink.shape
    w, h, area = st[:, 2], st[:, 3], st[:, 4]
    bad = (~keep) & (area >= 40) & ((np.maximum(w, h) > max(a.frame or (W, H)) * 0.12) | (area < 0.1 * w * h))
    out_st, out_ce, out_ids = [st[keep]], [ce[keep]], [ids[keep]]
    if bad.any():
        lut = np.zeros(n, np.uint8)
        lut[ids[bad]] = 1
        mask = np.take(lut, labels)  # 2x faster than lut[labels]
        er = cv2.erode(mask, K3)
        n2, _, st2, ce2 = components8(er)
        if n2 > 1:
            st2, ce2 = st2[1:].copy(), ce2[1:]
            # undo the erosion in the box sizes
            st2[:, 0] -= 1; st2[:, 1] -= 1; st2[:, 2] += 2; st2[:, 3] += 2
            st2[:, 0:2] = np.maximum(st2[:, 0:2], 0)
            st2[:, 2] = np.minimum(st2[:, 2], W - st2[:, 0])
            st2[:, 3] = np.minimum(st2[:, 3], H - st2[:, 1])
            k2 = _on_paper(a, st2, ii)
            out_st.append(st2[k2]); out_ce.append(ce2[k2]); out_ids.append(n + np.arange(n2 - 1)[k2])
    big = keep & (area >= NECK_MIN_AREA)
    if big.any():
        st3, ce3 = neck_pieces(labels, ids[big], st[big])
        if len(st3):
            k3 = _on_paper(a, st3, ii)
            out_st.append(st3[k3]); out_ce.append(ce3[k3]); out_ids.append(PIECES + np.arange(len(st3))[k3])
        st4, ce4, tag4 = waist_pieces(labels, ids[big], st[big]) if waists else ((), (), ())
        if len(st4):
            k4 = _on_paper(a, st4, ii)
            out_st.append(st4[k4]); out_ce.append(ce4[k4]); out_ids.append(WAISTS + tag4[k4])
    return np.concatenate(out_st), np.concatenate(out_ce), np.concatenate(out_ids)


#: A glyph printed close to a big pip or a court card's picture can touch it: a dondorf
#: index club runs into the big club beside it, a bellot court's suit into the picture.
#: Components of at least this area are eroded to see whether they come apart at a neck.
NECK_MIN_AREA = 60
#: Component ids of such pieces start here (``Candidate.comps``): far past the frame's own.
PIECES = 1 << 20
#: Erosions (3x3) tried, fewest first; the first one that splits a component is used.
NECK_ERODE = (1, 2)
#: Eroded area a piece needs to count (a club's stem or a serif is not a glyph).
NECK_PIECE = 12
#: The big piece is at least this many times the rest (a big pip beside an index suit).
NECK_BIG = 2.0


def neck_split(comp: np.ndarray, min_piece: int, big_ratio: float = 0.0):
    """Split the one component of boolean mask ``comp`` that comes apart at a thin neck
    when eroded into its biggest piece (the big pip or the picture) and the rest (the glyph
    that touched it): boolean masks (``big``, ``rest``), the big one grown back within the
    component; None when it does not split.  The rest is not cut into its own eroded pieces,
    so a club whose lobes part under erosion stays whole.  A rank whose thin stroke parts
    under erosion (the curve and the foot of a 2) is two parts of a size: with
    ``big_ratio``, the big piece must be that many times the rest."""
    for it in NECK_ERODE:
        er = cv2.erode(comp.astype(np.uint8), K3, iterations=it)
        n2, lab2, st2, _ = components8(er)
        real = np.nonzero(st2[1:, 4] >= min_piece)[0] + 1
        if len(real) < 2:
            continue
        b = real[int(np.argmax(st2[real, 4]))]
        big = cv2.dilate((lab2 == b).astype(np.uint8), K3, iterations=it) > 0
        big &= comp
        rest = comp & ~big
        if big.sum() >= big_ratio * rest.sum():
            return big, rest
    return None


def neck_pieces(labels: np.ndarray, parents: np.ndarray, stats: np.ndarray):
    """Glyph-sized pieces of the components ``parents`` (their ``stats`` rows) of the
    frame's ink ``labels`` that come apart at a neck (:func:`neck_split`): (stats,
    centres), as the components'.  Each component is split in its own box, a few dozen
    pixels across, not in the whole frame."""
    H, W = labels.shape
    out_st, out_ce = [], []
    for j, (x, y, w, h, _) in zip(parents, stats):
        x0, y0 = max(x - 1, 0), max(y - 1, 0)
        sel = labels[y0:min(y + h + 1, H), x0:min(x + w + 1, W)] == j
        parts = neck_split(sel, NECK_PIECE, NECK_BIG)
        if parts is None:
            continue
        for m in parts:
            k, _, st, ce = components8(m.astype(np.uint8))
            keep = np.nonzero(st[:, 4] >= NECK_PIECE)[0]  # not the odd pixel a disc's tip leaves
            keep = keep[keep > 0]
            st = st[keep].copy()
            st[:, 0] += x0; st[:, 1] += y0
            out_st.append(st); out_ce.append(ce[keep] + (x0, y0))
    if not out_st:
        return np.zeros((0, 5), np.int32), np.zeros((0, 2))
    return np.concatenate(out_st), np.concatenate(out_ce)


#: A rank and its suit blurred into one glyph (dondorf's "A" over its heart):
#: the glyph is long, its long axis at least this many times its short one (square roots
#: of the second moments; a rank over its suit measures about 2, a suit alone about 1) ...
WAIST_LONG = 1.8
#: ... and it narrows between them: its thinnest cross-section in the middle of its length
#: is at most this fraction of the widest on either side of it.
WAIST_THIN = 0.45
#: A glyph this long (or longer) may be a rank over its suit, and its halves pair with each
#: other; a shorter one only frees a suit run sideways into a pip (a paris club and the big
#: club beside it measure under 2; an 8, whose loops are halves too, about 1.6 to 1.9).
WAIST_RANK_OVER_SUIT = 2.0
#: Component ids of the two halves of such a glyph start here (``Candidate.comps``):
#: ``WAISTS + 4k + h`` for the halves h = 0, 1 of glyph k, plus 2 when the glyph is too
#: short to be a rank over its suit (so ``id ^ 1`` is the other half).
WAISTS = 2 << 20


def waist_at(prof: np.ndarray) -> int | None:
    """Where a glyph narrows to a waist: ``prof`` counts its ink across its length, one
    entry a pixel along it; the index of the thinnest cross-section in the middle 40 %, when
    it is at most :data:`WAIST_THIN` of the widest on either side; None otherwise (or when
    the glyph is under 8 px long).  The frame's glyphs are measured along their long axis
    (:func:`waist_pieces`), a patch's down its rows (``glyphs.split_at_waist``)."""
    n = len(prof)
    if n < 8:
        return None
    i0, i1 = int(0.3 * n), int(math.ceil(0.7 * n))
    cut = i0 + int(np.argmin(prof[i0:i1]))
    if prof[cut] > WAIST_THIN * min(prof[:cut].max(), prof[cut + 1:].max(initial=0)):
        return None
    return cut


def waist_pieces(labels: np.ndarray, parents: np.ndarray, stats: np.ndarray):
    """The two halves of each component of ``parents`` (their ``stats`` rows) that is long
    and narrows at a waist in the middle of its length, cut there across its long axis:
    (stats, centres), as the components', the two halves of a glyph one after the other.
    A rank and its suit that blur into one glyph are then a rank glyph and a suit glyph
    that can pair; a suit blurred into the big pip beside it is a suit glyph that its rank
    can pair with (:func:`cardcam.detect._waist_pairs`).  The component itself stays a
    glyph too.  About 1 ms a searched frame (some 25 components to look at).  Also each
    half's id past :data:`WAISTS`."""
    out_st, out_ce, tags = [], [], []
    for j, (x, y, w, h, _) in zip(parents, stats):
        sel = labels[y:y + h, x:x + w] == j
        m = cv2.moments(sel.astype(np.uint8), binaryImage=True)
        if m["m00"] <= 0:
            continue
        a, b, c = m["mu20"] / m["m00"], m["mu02"] / m["m00"], m["mu11"] / m["m00"]
        root = math.sqrt(((a - b) / 2) ** 2 + c * c)
        big, small = (a + b) / 2 + root, (a + b) / 2 - root
        if small <= 0 or big < WAIST_LONG ** 2 * small:
            continue
        ang = 0.5 * math.atan2(2 * c, a - b)  # the long axis
        ax = (math.cos(ang), math.sin(ang))
        ys, xs = np.nonzero(sel)
        t = (xs - m["m10"] / m["m00"]) * ax[0] + (ys - m["m01"] / m["m00"]) * ax[1]
        bins = (t - float(t.min())).astype(np.int32)
        cut = waist_at(np.bincount(bins))
        if cut is None:
            continue
        halves = (bins < cut, bins > cut)
        if min(int(half.sum()) for half in halves) < NECK_PIECE:
            continue
        short = 0 if big >= WAIST_RANK_OVER_SUIT ** 2 * small else 2
        for h, half in enumerate(halves):
            hx, hy = xs[half], ys[half]
            out_st.append((x + hx.min(), y + hy.min(), hx.max() - hx.min() + 1, hy.max() - hy.min() + 1, half.sum()))
            out_ce.append((x + hx.mean(), y + hy.mean()))
            tags.append(4 * (len(tags) // 2) + short + h)
    if not out_st:
        return np.zeros((0, 5), np.int32), np.zeros((0, 2)), np.zeros(0, np.int64)
    return np.array(out_st, np.int32), np.array(out_ce, np.float64), np.array(tags, np.int64)


# -- the same, in a patch ---------------------------------------------------------------

#: Eroded area a piece of a patch glyph needs to count (patch px; a suit is about 150).
NECK_PIECE_PATCH = 15


def split_patch_glyph(lab: np.ndarray, stats: np.ndarray, cents: np.ndarray, n: int, j: int):
    """The components of a patch (``cardcam.detect``'s upright cut of an index: labels
    ``lab``, ``stats``, ``cents``, count ``n``) with component ``j`` replaced by its pieces
    when it comes apart at a neck (:func:`neck_split`): (labels, stats, centres, count);
    None when it does not.  The suit joined to a big pip or a court picture beside it."""
    parts = neck_split(lab == j, NECK_PIECE_PATCH)
    if parts is None:
        return None
    return _replace_glyph(lab, stats, cents, n, j, parts)


def split_at_waist(lab: np.ndarray, stats: np.ndarray, cents: np.ndarray, n: int, j: int):
    """The patch's components with component ``j``, one glyph where the rank should be and
    where the suit should be, cut across at its thinnest row in the middle of its height
    (:func:`waist_at`): a rank and its suit blurred into one.  None when it
    does not narrow there."""
    x, y, w, h = (int(v) for v in stats[j, :4])
    comp = lab == j
    cut = waist_at(comp[y:y + h, x:x + w].sum(axis=1))
    if cut is None:
        return None
    top = comp.copy()
    top[y + cut:] = False
    bottom = comp.copy()
    bottom[:y + cut + 1] = False
    if min(int(top.sum()), int(bottom.sum())) < NECK_PIECE_PATCH:
        return None
    return _replace_glyph(lab, stats, cents, n, j, (top, bottom))


def _replace_glyph(lab, stats, cents, n: int, j: int, parts):
    """The patch's components with component ``j`` replaced by the components of the
    boolean masks ``parts``: (labels, stats, centres, count)."""
    lab = lab.copy()
    lab[lab == j] = 0
    new_st, new_ce = [stats], [cents]
    for m in parts:
        k, lab2, st, ce = components8(m.astype(np.uint8))
        if k > 1:
            lab[lab2 > 0] = lab2[lab2 > 0] + (n - 1)
            new_st.append(st[1:].astype(stats.dtype)); new_ce.append(ce[1:].astype(cents.dtype))
            n += k - 1
    stats = np.concatenate(new_st)
    cents = np.concatenate(new_ce)
    stats[j, 4] = 0
    cents[j] = (-1e4, -1e4)  # gone: never the nearest to anything
    return lab, stats, cents, n
