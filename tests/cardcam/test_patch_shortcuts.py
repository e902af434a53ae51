"""The patch cutter's shortcuts give what the long way gives.

A searched frame cuts about 90 patches, so ``detect`` skips work that cannot change the
result: the second half of the outline opening of a patch with no long run of ink, and three of the four
warps of a candidate's colour planes (one warp of the planes as channels of one image).
These tests hold each shortcut to the long way on patches of real frames and on patches
made to sit on its edge cases."""
import cv2
import numpy as np
import pytest

from cardcam import detect, maps, patch

from .conftest import bench_frame, needs_decks

PATCH_H = int(round((patch.PY1 - patch.PY0) * patch.UNIT))
PATCH_W = int(round(2 * patch.PX * patch.UNIT))


def _opened(mask, kernel):
    return cv2.morphologyEx(mask, cv2.MORPH_OPEN, kernel)


def _same_as_opening(mask, kernel):
    got = patch.open_runs(mask, kernel)
    want = _opened(mask, kernel)
    if got is None:
        return not want.any()
    return np.array_equal(got, want)


@pytest.mark.parametrize("length", [patch.LINE // 2, patch.LINE // 2 + 1, patch.LINE - 1, patch.LINE])
@pytest.mark.parametrize("where", ["edge", "middle"])
def test_a_run_survives_the_line_test_exactly_when_it_survives_the_opening(length, where):
    # erosion takes the world outside the patch as ink: a run from the patch's edge needs
    # only half the line's length (plus its centre) to survive; inside, the whole length
    for dim, kernel in ((1, patch.KH), (0, patch.KV)):
        mask = np.zeros((PATCH_H, PATCH_W), np.uint8)
        start = 0 if where == "edge" else 3
        if dim == 1:
            mask[20, start:start + length] = 1
        else:
            mask[start:start + length, 20] = 1
        assert _same_as_opening(mask, kernel), (dim, length, where)
    # and the shortcut did say "no line" somewhere: the test can tell the two apart
    short = np.zeros((PATCH_H, PATCH_W), np.uint8)
    short[20, 3:3 + patch.LINE - 1] = 1
    assert patch.open_runs(short, patch.KH) is None
    edge = np.zeros((PATCH_H, PATCH_W), np.uint8)
    edge[20, :patch.LINE // 2 + 1] = 1  # half a line and its centre, from the edge
    assert patch.open_runs(edge, patch.KH) is not None


def test_random_ink_gives_the_opening():
    rng = np.random.default_rng(7)
    skipped = 0
    for i in range(400):
        blur = rng.uniform(0.8, 3.0)
        level = rng.uniform(0.45, 0.6)
        noise = cv2.GaussianBlur(rng.random((PATCH_H, PATCH_W)).astype(np.float32), (0, 0), blur)
        mask = (noise > level).astype(np.uint8)
        if i % 5 == 0:  # an outline across it now and then, at the edge or not
            r = int(rng.integers(PATCH_H))
            mask[r, int(rng.integers(0, 10)):] = 1
        for kernel, grow in ((patch.KH, patch.K5V), (patch.KV, patch.K5H)):
            grown = cv2.dilate(mask, grow)
            assert _same_as_opening(grown, kernel), i
            skipped += patch.open_runs(grown, kernel) is None
    assert 0 < skipped < 800  # both ways were taken


@needs_decks
def test_one_warp_of_the_planes_is_four_warps_of_them():
    # OpenCV warps the channels of one image with the same map as it warps them one by one;
    # only the float sums' order may differ, by about one float32 step
    f = bench_frame("anglo", 5000, 1)
    a = maps.analyse(f.image)
    planes = cv2.merge([a.dark, a.red, a.sat, a.paper.astype(np.float32)])
    H, W = a.dark.shape
    rng = np.random.default_rng(3)
    for _ in range(50):
        t = rng.uniform(0, 2 * np.pi)
        centre = np.array([rng.uniform(0, W), rng.uniform(0, H)])
        _, M = patch.warp(a, centre, np.array([-np.sin(t), np.cos(t)]), rng.uniform(12, 40), [])
        one = cv2.split(patch.upright(planes, M, patch.SIZE))
        for got, plane in zip(one, (a.dark, a.red, a.sat, a.paper.astype(np.float32))):
            want = patch.upright(plane, M, patch.SIZE)
            assert got.shape == want.shape == (PATCH_H, PATCH_W)
            assert np.abs(got - want).max() <= 1e-6


@needs_decks
def test_candidates_keep_the_planes_made_once_per_analysis():
    f = bench_frame("tango", 5000, 3)
    a = maps.analyse(f.image)
    assert a._colour is None
    cands = detect.candidates(a)
    assert cands and a._colour is not None
    made = a.colour_planes()
    detect.candidates(a)
    assert a.colour_planes() is made
    assert made.shape == a.dark.shape + (4,)
    assert np.array_equal(made[..., 0], a.dark) and np.array_equal(made[..., 3], a.paper.astype(np.float32))
