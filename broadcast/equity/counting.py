"""Enumerating card combinations and counting who wins each board.

Counts stay integers until the very end: a board where hand i ties with k-1 others is
counted in ``tally[i, k]`` (``k = 1`` is an outright win), so shared pots add up
exactly (a three-way tie is 1/3 each) however many boards there are.
"""

from __future__ import annotations

from functools import lru_cache
from math import comb

import numpy as np


def combinations(n: int, k: int) -> np.ndarray:
    """All ``k``-subsets of ``range(n)`` as rows of ascending indices, in lexicographic order.

    Built by the rule "the subsets that hold 0, then those that don't", each half a
    shifted copy of a smaller table, so ``combinations(48, 5)`` (1,712,304 rows) takes
    tens of milliseconds. The array is cached and read-only: don't write to it.
    """
    # Many small tables are kept; of the big ones (megabytes each) only the last two.
    return _small(n, k) if comb(n, k) <= 200_000 else _big(n, k)


@lru_cache(maxsize=512)
def _small(n: int, k: int) -> np.ndarray:
    return _build(n, k)


@lru_cache(maxsize=2)
def _big(n: int, k: int) -> np.ndarray:
    return _build(n, k)


def _build(n: int, k: int) -> np.ndarray:
    memo: dict[tuple[int, int], np.ndarray] = {}

    def build(n: int, k: int) -> np.ndarray:
        if k == 0:
            return np.zeros((1, 0), dtype=np.uint8)
        if k > n:
            return np.zeros((0, k), dtype=np.uint8)
        if (n, k) not in memo:
            with_zero, without = build(n - 1, k - 1), build(n - 1, k)
            out = np.empty((len(with_zero) + len(without), k), dtype=np.uint8)
            out[: len(with_zero), 0] = 0
            out[: len(with_zero), 1:] = with_zero + 1
            out[len(with_zero) :] = without + 1
            memo[n, k] = out
        return memo[n, k]

    out = build(n, k) if 0 <= k else np.zeros((0, 0), dtype=np.uint8)
    out.setflags(write=False)
    return out


def tally(ranks: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """Count outcomes: ``ranks`` is (hands, boards), one row per hand, smaller is stronger.

    Returns an int64 array (hands, hands + 1): entry ``[i, k]`` is the number of boards
    (each counted ``weights[b]`` times) on which hand ``i`` is one of ``k`` best hands.
    """
    # Row by row on purpose: numpy reduces a short inner axis slowly.
    hands, boards = ranks.shape
    out = np.zeros((hands, hands + 1), dtype=np.int64)
    if boards == 0:
        return out
    if hands == 1:
        out[0, 1] = boards if weights is None else int(weights.sum())
        return out

    def count(mask: np.ndarray) -> int:
        return int(np.count_nonzero(mask)) if weights is None else int(weights[mask].sum())

    best = ranks[0].copy()
    for row in ranks[1:]:
        np.minimum(best, row, out=best)
    leading = [row == best for row in ranks]
    if hands == 2:
        tie = leading[0] & leading[1]
        out[:, 2] = count(tie)
        out[0, 1] = count(leading[0] ^ tie)
        out[1, 1] = count(leading[1] ^ tie)
        return out
    size = np.zeros(boards, dtype=np.int8)
    for lead in leading:
        size += lead
    for i, lead in enumerate(leading):
        code = size * lead  # 0 where hand i is not leading, else how many share the lead
        if weights is None:
            out[i] = np.bincount(code, minlength=hands + 1)
        else:
            out[i] = np.rint(np.bincount(code, weights=weights, minlength=hands + 1)).astype(np.int64)
    return out
