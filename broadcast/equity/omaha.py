"""Exact Omaha equity: exactly two hole cards and exactly three board cards.

A five-card board has ten three-card subsets and a four-card hand six two-card ones;
a hand's strength is the best of the 60 five-card hands they make. Since a minimum
over (triple, pair) is a minimum over triples of a minimum over pairs, preflop each
hand's best is first found for every triple the stub can deal (13,244 heads-up), then
for every four cards (135,751), and a board is four lookups: its four-card subsets
without b, c, d or e (cards a < b < c < d < e) hold all ten of its triples.
"""

from __future__ import annotations

import numpy as np

from . import tables
from .counting import combinations, tally

_PAIRS = np.array([(a, b) for a in range(4) for b in range(a + 1, 4)])


def omaha_ranks(holes: np.ndarray, boards: np.ndarray) -> np.ndarray:
    """Rank (smaller is stronger) of each hand on each board of three to five cards.

    ``holes`` is (hands, 4) card ids, ``boards`` (boards, k) card ids with 3 <= k <= 5.
    Returns (hands, boards) int16.
    """
    key = tables.RANK_KEY5
    nonflush = tables.nonflush5()
    flushes = tables.flush_ranks()
    boards = np.asarray(boards, dtype=np.int64)
    # (3, T, B): the three cards of each of the board's T triples, row by row, so
    # every step below works on long contiguous rows.
    triples = np.ascontiguousarray(boards[:, combinations(boards.shape[1], 3)].transpose(2, 1, 0))
    rank, suit = triples >> 2, triples & 3
    triple_key = key.take(rank[0]) + key.take(rank[1]) + key.take(rank[2])
    triple_mask = (1 << rank[0]) | (1 << rank[1]) | (1 << rank[2])
    # The suit of a one-suit triple, else -1 (matches no pair).
    triple_suit = np.where((suit[0] == suit[1]) & (suit[0] == suit[2]), suit[0], -1)
    out = np.empty((len(holes), boards.shape[0]), dtype=np.int16)
    for h, hole in enumerate(np.asarray(holes, dtype=np.int64).tolist()):
        best = np.full(triple_key.shape, tables.NO_FLUSH, dtype=np.int16)
        for a, b in _PAIRS.tolist():
            first, second = hole[a], hole[b]
            np.minimum(best, nonflush.take(triple_key + (key[first >> 2] + key[second >> 2])), out=best)
            if first & 3 == second & 3:
                flush = flushes.take(triple_mask | (1 << (first >> 2) | 1 << (second >> 2)))
                np.minimum(best, np.where(triple_suit == first & 3, flush, tables.NO_FLUSH), out=best)
        row = best[0].copy()
        for other in best[1:]:
            np.minimum(row, other, out=row)
        out[h] = row
    return out


_UP_TO = np.arange(53, dtype=np.int32)
_CHOOSE2 = _UP_TO * (_UP_TO - 1) // 2
_CHOOSE3 = _CHOOSE2 * (_UP_TO - 2) // 3
_CHOOSE4 = _CHOOSE3 * (_UP_TO - 3) // 4


def _colex(*cards: np.ndarray) -> np.ndarray:
    """Index of an ascending subset (a, b, c[, d]) among all subsets of its size.

    ``C(a,1) + C(b,2) + C(c,3) [+ C(d,4)]``: the colexicographic rank, which does not
    depend on how many cards there are to choose from.
    """
    index = cards[0].astype(np.int32)
    for card, choose in zip(cards[1:], (_CHOOSE2, _CHOOSE3, _CHOOSE4)):
        index += choose.take(card)
    return index


def omaha_tally(holes: tuple[tuple[int, ...], ...], board: tuple[int, ...], rest: tuple[int, ...]) -> tuple[np.ndarray, int]:
    """Count every runout of ``board`` from ``rest``; return ``(tally, boards)``."""
    to_come = 5 - len(board)
    hands = np.array(holes, dtype=np.int64)
    stub = np.array(rest, dtype=np.int64)
    picks = combinations(len(stub), to_come)
    if to_come < 5:
        boards = np.concatenate([np.broadcast_to(np.array(board, dtype=np.int64), (len(picks), len(board))), stub[picks]], axis=1)
        return tally(omaha_ranks(hands, boards)), len(picks)

    # Preflop. Each hand's best over every triple of the stub, by colex index...
    triples = combinations(len(stub), 3)
    by_triple = np.empty((len(holes), len(triples)), dtype=np.int16)
    by_triple[:, _colex(*triples.T)] = omaha_ranks(hands, stub[triples])
    # ...then over every four cards: the best of its four triples...
    quads = combinations(len(stub), 4)
    a, b, c, d = quads.T
    by_quad = np.empty((len(holes), len(quads)), dtype=np.int16)
    where = _colex(a, b, c, d)
    for h, row in enumerate(by_triple):
        best = row.take(_colex(a, b, c))
        for triple in ((a, b, d), (a, c, d), (b, c, d)):
            np.minimum(best, row.take(_colex(*triple)), out=best)
        by_quad[h, where] = best
    # ...and each board (a < b < c < d < e) is the best of abcd, abce, abde and acde.
    a, b, c, d, e = (np.ascontiguousarray(column) for column in picks.T)
    low = _CHOOSE2.take(b) + a
    abc = _CHOOSE3.take(c) + low
    de = _CHOOSE4.take(e) + _CHOOSE3.take(d)
    subsets = (
        _CHOOSE4.take(d) + abc,
        _CHOOSE4.take(e) + abc,
        de + low,
        de + _CHOOSE2.take(c) + a,
    )
    ranks = np.empty((len(holes), len(picks)), dtype=np.int16)
    for h, row in enumerate(by_quad):
        np.minimum(row.take(subsets[0]), row.take(subsets[1]), out=ranks[h])
        np.minimum(ranks[h], row.take(subsets[2]), out=ranks[h])
        np.minimum(ranks[h], row.take(subsets[3]), out=ranks[h])
    return tally(ranks), len(picks)
