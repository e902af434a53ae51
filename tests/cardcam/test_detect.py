"""Index candidates from the glyphs on a card face."""
import cv2
import numpy as np
import pytest

from cardcam import detect, glyphs, maps, patch, synth

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
    a = maps.analyse(f.image)
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


def test_glyph_components_are_opencvs_default_components():
    """The block-based labelling used for speed gives the very labels, boxes, sizes and
    centres of OpenCV's default 8-way labelling, on the ink of real hand frames."""
    rng = np.random.default_rng(3)
    for deck in ("anglo", "paris", "tigullio"):
        ink = maps.analyse(synth.hand_frame(rng, deck, 4, "moderate").image).ink.astype(np.uint8)
        n, labels, stats, cents = glyphs.components8(ink)
        n0, labels0, stats0, cents0 = cv2.connectedComponentsWithStats(ink, connectivity=8)
        assert n == n0 > 10
        assert np.array_equal(labels, labels0) and np.array_equal(stats, stats0)
        assert np.allclose(cents, cents0)


def test_the_frame_edge_test_on_a_patchs_corners_agrees_with_its_pixels():
    """A patch wholly inside the frame is passed on its corners alone; patches at and over
    every edge get the same answer as the pixel-by-pixel test."""
    a = maps.analyse(synth.hand_frame(np.random.default_rng(4), "anglo", 2, "easy").image, whole=True)
    H, W = a.ink.shape
    mask = np.zeros((int(round((patch.PY1 - patch.PY0) * patch.UNIT)),
                     int(round(2 * patch.PX * patch.UNIT))), bool)
    mask[10:40, 12:30] = True  # a glyph inside the patch, away from its border

    def by_pixels(M):
        ys, xs = np.nonzero(mask)
        px = xs * M[0, 0] + ys * M[0, 1] + M[0, 2]
        py = xs * M[1, 0] + ys * M[1, 1] + M[1, 2]
        return bool(px.min() < 1.5 or py.min() < 1.5 or px.max() > W - 2.5 or py.max() > H - 2.5)

    answers = set()
    for cx in (10.0, 30.0, W / 2, W - 30.0, W - 10.0):
        for cy in (10.0, 30.0, H / 2, H - 30.0, H - 10.0):
            for deg in (0, 35, 180):
                t = np.radians(deg)
                _, M = patch.warp(a, np.array([cx, cy]), np.array([-np.sin(t), np.cos(t)]),
                                          30.0, [a.dark])
                got = detect._cut_by_frame(a, M, mask)
                assert got == by_pixels(M), (cx, cy, deg)
                answers.add(got)
    assert answers == {True, False}


def _sure_reads(model, cands):
    from cardcam import checks, classify
    from cardcam.recognize import _proba

    if not cands:
        return []
    reads = checks.decide(cands, *_proba(model, None, classify.features_batch(cands)), model.threshold)
    return sorted(r.card for r in reads if r.card != "??")


def test_a_frame_is_analysed_where_its_card_faces_are_and_reads_the_same_cards(model):
    # A hand covers about a third of a hole-cam frame: only that part (and the felt around
    # it) is analysed, as the whole frame's maps would be there.
    rng = np.random.default_rng(11)
    decks = ("anglo", "bellot", "dondorf", "tango", "paris", "plastic", "tigullio")
    parts = 0
    for i in range(14):
        f = synth.hand_frame(rng, decks[i % 7], 2 if i % 2 else 4, ("easy", "moderate", "hard")[i % 3])
        part, whole = maps.analyse(f.image), maps.analyse(f.image, whole=True)
        if part.ink.shape != whole.ink.shape:
            parts += 1
            x0, y0 = part.origin
            h, w = part.paper.shape
            assert part.frame == (whole.ink.shape[1], whole.ink.shape[0])
            assert np.array_equal(part.paper, whole.paper[y0:y0 + h, x0:x0 + w])  # the same cut
            assert not whole.paper.sum() - part.paper.sum()  # all the frame's card-face paper
        assert _sure_reads(model, detect.candidates(part)) == _sure_reads(model, detect.candidates(whole))
    assert parts >= 10


def test_a_frame_mostly_of_paper_is_analysed_whole():
    img = np.full((540, 960, 3), 235, np.uint8)  # a card face filling the frame
    assert maps.paper_box(img) is None
    felt = np.full((540, 960, 3), (40, 90, 30), np.uint8)
    assert maps.paper_box(felt) is None  # no paper: nothing to keep
    felt[200:300, 400:470] = 235
    x0, y0, x1, y1 = maps.paper_box(felt)
    assert x0 <= 400 - maps.PAPER_MARGIN + 4 and x1 >= 470 + maps.PAPER_MARGIN - 4
    assert y0 <= 200 - maps.PAPER_MARGIN + 4 and y1 >= 300 + maps.PAPER_MARGIN - 4


def test_a_regions_felt_is_what_opencvs_boxes_say_runs_out_of_it():
    """A followed region's felt is, besides the large areas, every non-paper component that
    runs out of the region: counted from the labels' border pixels, the very components
    whose OpenCV box touches the region's border (OpenCV's stats cost three times the
    labelling, 2026-12-07)."""
    rng = np.random.default_rng(5)
    for deck in ("anglo", "paris", "bellot"):
        img, s = maps.to_working(synth.hand_frame(rng, deck, 4, "moderate").image)
        cut = maps.paper_cut(img)
        x0, y0, x1, y1 = box = (200, 100, 560, 380)
        a = maps.analyse_region(img, s, box, cut)
        paper = maps._planes(img[y0:y1, x0:x1], cut)[4]
        nonpaper = cv2.erode((~paper).astype(np.uint8), np.ones((5, 5), np.uint8))
        n, lab, st, _ = cv2.connectedComponentsWithStats(nonpaper, connectivity=4)
        H, W = nonpaper.shape
        runs_out = ((st[:, 0] == 0) | (st[:, 1] == 0) | (st[:, 0] + st[:, 2] == W)
                    | (st[:, 1] + st[:, 3] == H)) & (st[:, 4] >= 16)
        large = st[:, 4] > 0.01 * img.shape[0] * img.shape[1]
        assert (runs_out & ~large)[1:].any()  # components only their box makes felt
        felt_ids = (runs_out | large).astype(np.uint8)
        felt_ids[0] = 0
        felt = cv2.dilate(felt_ids[lab], np.ones((5, 5), np.uint8))
        assert np.array_equal(a.glyph_dark, np.where(felt == 0, a.dark, np.float32(0.0)))
