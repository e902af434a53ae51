"""Lookup tables that turn a hand's cards into phevaluator's rank (1 is a royal flush).

A hand's strength without flushes depends only on how many cards it holds of each
rank. Each rank gets a key chosen so that every multiset of seven ranks (at most four
of each) has its own sum of keys, and the same for five ranks; the sum then indexes
a table of ranks (the idea of Kennedy's SKPokerEval). Flushes are looked up apart,
from the 13-bit mask of the ranks held in the flush suit. Every table entry is
computed once with phevaluator itself, so the engine agrees with it card for card.

The tables (16 MB) are built on first use, in a few tenths of a second;
:func:`prepare` builds them ahead.
"""

from __future__ import annotations

import itertools
from functools import cache

import numpy as np

try:  # phevaluator's C functions, without its per-call card conversion
    from phevaluator._pheval import evaluate_5cards, evaluate_6cards, evaluate_7cards
except ImportError:  # pragma: no cover - same answers through the public API, slower
    from phevaluator import evaluate_5cards, evaluate_6cards, evaluate_7cards

#: Keys for seven-card rank multisets (SKPokerEval's); sums are unique, the largest is 7,825,759.
RANK_KEY7 = np.array([0, 1, 5, 22, 98, 453, 2031, 8698, 22854, 83661, 262349, 636345, 1479181], dtype=np.int64)
#: Keys for five-card rank multisets (found greedily); sums are unique, the largest is 360,918.
RANK_KEY5 = np.array([0, 1, 5, 22, 94, 312, 992, 2422, 5624, 12522, 19998, 43258, 79415], dtype=np.int64)
#: Worse than any real rank (7462 is the worst five-card hand): "no flush here".
NO_FLUSH = 9999
#: ``COMB[a, c]``: ways to choose ``c`` of ``a`` cards of one rank (a, c in 0..4).
COMB = np.array([[1, 0, 0, 0, 0], [1, 1, 0, 0, 0], [1, 2, 1, 0, 0], [1, 3, 3, 1, 0], [1, 4, 6, 4, 1]], dtype=np.int64)


@cache
def rank_multisets(size: int) -> tuple[np.ndarray, np.ndarray]:
    """Every multiset of ``size`` ranks with at most four of a rank.

    Returns ``(counts, ranks)``: ``counts`` is (M, 13), how many of each rank;
    ``ranks`` is (M, size), the ranks in ascending order.
    """
    ranks = np.array(list(itertools.combinations_with_replacement(range(13), size)), dtype=np.int64)
    ranks = ranks.reshape(-1, size) if size else np.zeros((1, 0), dtype=np.int64)
    counts = np.zeros((len(ranks), 13), dtype=np.int64)
    for column in range(size):
        counts[np.arange(len(ranks)), ranks[:, column]] += 1
    legal = counts.max(axis=1, initial=0) <= 4
    return counts[legal], ranks[legal]


def _unsuited_ranks(ranks: np.ndarray, evaluate) -> np.ndarray:
    # Deal the sorted ranks suits 0,1,2,3,0,... : copies of a rank get different
    # suits and no suit gets five cards, so phevaluator sees no flush.
    ids = ranks * 4 + (np.arange(ranks.shape[1]) % 4)
    return np.array([evaluate(*row) for row in ids.tolist()], dtype=np.int16)


def _table(keys: np.ndarray, size: int, evaluate) -> np.ndarray:
    _, ranks = rank_multisets(size)
    sums = keys[ranks].sum(axis=1)
    table = np.full(int(sums.max()) + 1, NO_FLUSH, dtype=np.int16)
    table[sums] = _unsuited_ranks(ranks, evaluate)
    return table


@cache
def nonflush7() -> np.ndarray:
    """Rank of seven cards with no flush, indexed by the sum of their :data:`RANK_KEY7`."""
    return _table(RANK_KEY7, 7, evaluate_7cards)


@cache
def nonflush5() -> np.ndarray:
    """Rank of five cards with no flush, indexed by the sum of their :data:`RANK_KEY5`."""
    return _table(RANK_KEY5, 5, evaluate_5cards)


@cache
def flush_ranks() -> np.ndarray:
    """Best flush (straight flushes included) of the suited ranks in a 13-bit mask.

    :data:`NO_FLUSH` for masks of fewer than five ranks. Masks of more than seven
    ranks never occur (seven cards at most in hold'em, five in Omaha) and are left
    at :data:`NO_FLUSH`.
    """
    table = np.full(1 << 13, NO_FLUSH, dtype=np.int16)
    evaluators = {5: evaluate_5cards, 6: evaluate_6cards, 7: evaluate_7cards}
    for mask in range(1 << 13):
        ranks = [r for r in range(13) if mask >> r & 1]
        if len(ranks) in evaluators:
            table[mask] = evaluators[len(ranks)](*(r * 4 + 3 for r in ranks))
    return table


def prepare() -> None:
    """Build every table now (a few tenths of a second), so the first hand on air is not the slow one."""
    nonflush7()
    nonflush5()
    flush_ranks()
    rank_multisets(5)
