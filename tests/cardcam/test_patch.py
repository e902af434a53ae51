"""The measures of how an index was cut out of its upright patch (cardcam.patch), on drawn
patches: what the checks hold a read to must measure what it says."""
import numpy as np

from cardcam import patch
from cardcam.maps import INK

W, H = patch.SIZE  # the upright patch, (w, h) px


def _patch():
    return np.zeros((H, W), np.float32), np.zeros((H, W), bool)


def test_the_patch_is_a_rank_over_a_suit_one_unit_apart():
    # the rank-suit midpoint sits at (U0, V0); rank and suit centres half a unit above and below
    assert (W, H) == (round(2 * patch.PX * patch.UNIT), round((patch.PY1 - patch.PY0) * patch.UNIT))
    assert abs(patch.U0 - W / 2) < 1
    assert patch.V0 - patch.UNIT / 2 > 0 and patch.V0 + patch.UNIT / 2 < H


def test_loose_ink_is_other_ink_in_the_ranks_box_per_px_of_its_height():
    ink = np.zeros((H, W), np.uint8)
    glyphs = np.zeros((H, W), bool)
    rb = (20, 10, 32, 30)                      # the rank's box: 12 wide, 20 tall
    ink[12:28, 22:26] = 1                      # the rank's stroke
    glyphs[12:28, 22:26] = True
    assert patch.loose(ink, glyphs, rb) == 0.0
    ink[14:19, 28:30] = 1                      # a piece of the rank that came apart: 10 px
    assert patch.loose(ink, glyphs, rb) == 10 / 20
    far = ink.copy()
    far[14:19, 28:30] = 0
    far[40:45, 40:42] = 1                      # ink outside the box is not the rank's business
    assert patch.loose(far, glyphs, rb) == 0.0


def test_ink_taken_beside_a_rank_is_cut_away_and_ink_kept_is_not():
    dk, rmask = _patch()
    rb = (20, 10, 32, 30)
    rmask[10:30, 20:24] = True                 # a stroke down the rank's left side
    dk[rmask] = 1.0
    ink = rmask.astype(np.uint8)
    assert patch.cut_away(dk, ink, rmask, rb) == 0.0
    dk[10:30, 18:20] = 1.0                     # dark beside it, 2 px wide, taken (felt, an outline)
    taken = patch.cut_away(dk, ink, rmask, rb)
    assert taken > 0.0
    assert taken <= 2 * 22 / 20                # only pixels touching the glyph, per px of its height
    kept = ink.copy()
    kept[10:30, 18:20] = 1                     # the same dark pixels kept as glyph ink
    assert patch.cut_away(dk, kept, rmask, rb) == 0.0
    light = dk.copy()
    light[10:30, 18:20] = INK / 2              # not dark enough to be ink at all
    assert patch.cut_away(light, ink, rmask, rb) == 0.0


def test_felt_taken_against_a_ranks_top_is_measured_and_beside_its_foot_is_not():
    dk, rmask = _patch()
    rb = (20, 10, 32, 30)
    rmask[10:30, 24:28] = True
    dk[rmask] = 1.0
    gdk = dk.copy()                            # the glyph darkness: the felt taken out of it
    assert patch.felt_top(dk, gdk, rmask, rb) == 0.0
    dk[8:10, 20:32] = 1.0                      # dark over the rank's top that the felt map took
    top = patch.felt_top(dk, gdk, rmask, rb)
    assert top > 0.0
    gdk_kept = dk.copy()
    assert patch.felt_top(dk, gdk_kept, rmask, rb) == 0.0  # kept as glyph ink: nothing taken
    dk2 = np.where(rmask, 1.0, 0.0).astype(np.float32)
    dk2[26:30, 20:24] = 1.0                    # taken beside its foot: not the top's
    assert patch.felt_top(dk2, np.where(rmask, 1.0, 0.0).astype(np.float32), rmask, rb) == 0.0


def test_a_card_outline_is_taken_out_of_the_patch_and_a_glyph_is_not():
    ink = np.zeros((H, W), np.uint8)
    ink[5, :] = 1                              # a card's edge across the whole patch
    ink[25:37, 22:30] = 1                      # a glyph, shorter than any outline
    out = patch.lines(ink)
    assert out[5, W // 2] == 1
    assert out[30, 26] == 0
    ink2 = np.zeros((H, W), np.uint8)
    ink2[25:37, 22:30] = 1
    assert not patch.lines(ink2).any()         # no outline: nothing taken


def test_red_ink_is_red_against_its_paper_under_warm_light_and_black_ink_is_not():
    warm_paper = np.array([150, 190, 240], np.float32)    # BGR: a warm light on white paper
    img = np.empty((H, W, 3), np.float32)
    img[:] = warm_paper
    rmask = np.zeros((H, W), bool); rmask[10:30, 20:30] = True
    smask = np.zeros((H, W), bool); smask[40:55, 20:32] = True
    img[rmask] = warm_paper * 0.25                          # black ink: dark, the light's colour
    img[smask] = warm_paper * np.array([0.15, 0.2, 0.85])   # red ink under the same light
    dk = np.zeros((H, W), np.float32); dk[rmask | smask] = 1.0
    pp = np.ones((H, W), np.float32); pp[rmask | smask] = 0.0
    M = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    (r_red, _), (s_red, _) = patch.tints(img.astype(np.uint8), M, dk, pp, rmask, smask)
    assert r_red < 0.1                                      # as red as its paper: black
    assert s_red > 0.5


def test_a_patch_with_too_little_clean_paper_has_no_tint():
    img = np.full((H, W, 3), 60, np.uint8)
    dk = np.ones((H, W), np.float32)
    pp = np.zeros((H, W), np.float32)
    mask = np.zeros((H, W), bool); mask[10:20, 10:20] = True
    M = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    assert patch.tints(img, M, dk, pp, mask, mask) == ((-1.0, -1.0), (-1.0, -1.0))
