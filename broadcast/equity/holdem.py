"""Exact hold'em equity: every runout counted, in two parts.

1. **No flush possible.** Then each hand's strength depends only on the ranks of the
   runout. Runouts are grouped by their rank multiset (6,175 for a whole board): the
   group of multiset ``m`` holds ``prod_r C(left of rank r, m_r)`` runouts and they all
   end the same way, so one lookup per hand decides the lot.
2. **A flush possible.** A hold'em flush needs three cards of its suit on the board,
   so at most one suit per board can flush. For each suit that some hand could flush
   in, the runouts bringing enough of that suit are listed one by one (suited part ×
   the rest, by broadcasting), ranked with flushes, and part 1's flush-blind count of
   them is swapped for the true one.

Heads-up preflop that is about a quarter of a million boards listed instead of 1.7
million, and each costs a few table lookups.
"""

from __future__ import annotations

from math import comb

import numpy as np

from . import tables
from .counting import combinations, tally


def holdem_tally(holes: tuple[tuple[int, ...], ...], board: tuple[int, ...], rest: tuple[int, ...]) -> tuple[np.ndarray, int]:
    """Count every runout of ``board`` from ``rest``; return ``(tally, boards)``.

    ``holes`` are two-card hands as card ids; see :func:`counting.tally` for the tally.
    """
    to_come = 5 - len(board)
    key = tables.RANK_KEY7
    nonflush = tables.nonflush7()
    flushes = tables.flush_ranks()
    stub = np.array(rest, dtype=np.int64)
    board_key = int(sum(key[c >> 2] for c in board))
    base = np.array([key[a >> 2] + key[b >> 2] + board_key for a, b in holes], dtype=np.int64)

    # Part 1: every runout by rank multiset, flushes ignored.
    counts, ranks = tables.rank_multisets(to_come)
    left = np.bincount(stub >> 2, minlength=13)
    weights = tables.COMB[left[None, :], counts].prod(axis=1)
    dealt = weights > 0
    runout_keys = key[ranks[dealt]].sum(axis=1)
    result = tally(nonflush.take(base[:, None] + runout_keys[None, :]), weights[dealt])

    # Part 2: runouts on which some hand could make a flush, one by one.
    for suit in range(4):
        suited = [sum(1 for c in hole if c & 3 == suit) for hole in holes]
        on_board = sum(1 for c in board if c & 3 == suit)
        fewest = 5 - on_board - max(suited)  # suited runout cards needed for a flush
        if fewest > to_come:
            continue
        board_mask = sum(1 << (c >> 2) for c in board if c & 3 == suit)
        hand_mask = np.array([board_mask | sum(1 << (c >> 2) for c in hole if c & 3 == suit) for hole in holes])
        in_suit = stub[stub & 3 == suit] >> 2
        others = stub[stub & 3 != suit] >> 2
        for count in range(max(fewest, 0), min(to_come, len(in_suit)) + 1):
            if to_come - count > len(others):
                continue
            suited_ranks = in_suit[combinations(len(in_suit), count)]
            other_ranks = others[combinations(len(others), to_come - count)]
            suited_key = key[suited_ranks].sum(axis=1)
            suited_mask = (1 << suited_ranks).sum(axis=1)
            other_key = key[other_ranks].sum(axis=1)
            runout_keys = (suited_key[:, None] + other_key[None, :]).reshape(-1)
            blind = nonflush.take(base[:, None] + runout_keys[None, :])  # (hands, runouts)
            flush = flushes.take(hand_mask[:, None] | suited_mask[None, :])
            flush = np.repeat(flush, len(other_key), axis=1)
            changed = np.zeros(blind.shape[1], dtype=bool)
            for flush_row, blind_row in zip(flush, blind):
                changed |= flush_row < blind_row
            if changed.any():
                blind = blind[:, changed]
                result += tally(np.minimum(blind, flush[:, changed])) - tally(blind)
    return result, comb(len(rest), to_come)
