"""The button and the blinds: who is dealt in, and who posts, hand by hand.

Rules "Dead Button" and "Heads-Up Button" of the rule book; seats are numbered 1-10
clockwise.  Pure functions of the seats, used by the table (:mod:`.table`) when it starts
a hand.
"""
from __future__ import annotations


def clockwise_from(seat: int, seats: list[int]) -> list[int]:
    """``seats`` in dealing order: the first one left of ``seat`` first, ``seat`` (if there) last."""
    ordered = sorted(seats)
    return [n for n in ordered if n > seat] + [n for n in ordered if n <= seat]


def _next(after: int, seats: list[int]) -> int:
    return clockwise_from(after, seats)[0]


def _between(seat: int, start: int, end: int) -> bool:
    """``seat`` lies strictly between ``start`` and ``end`` going clockwise (seats 1-10)."""
    return 0 < (seat - start) % 10 < (end - start) % 10


def positions(live: list[int], last_sb: int | None, last_bb: int | None,
              drawn: int | None = None) -> tuple[int, int | None, int, list[int]]:
    """Button, small-blind seat, big-blind seat and the seats dealt in, by rules "Dead Button"
    and "Heads-Up Button".

    The big blind moves on to the next player each hand; the small blind takes the seat the
    big blind left, and the button the seat the small blind left, even when those seats are
    now empty (a dead small blind, a dead button). Nobody is dealt in between the small blind
    and the button: a new player seated there waits until the button passes. Heads-up, the
    button posts the small blind, and the big blind goes to the player who did not post it
    last hand, so nobody takes the big blind twice.
    """
    if last_bb is None:  # the first hand: the draw for the button
        button = drawn if drawn is not None else live[0]
        if len(live) == 2:
            return button, button, _next(button, live), live
        sb_seat = _next(button, live)
        return button, sb_seat, _next(sb_seat, live), live
    button, sb_seat = last_sb if last_sb is not None else last_bb, last_bb
    dealt = [n for n in live if not _between(n, button, sb_seat)]
    if len(dealt) < 2:  # one player left and one new: there is no "between" heads-up
        dealt = live
    bb_seat = _next(last_bb, dealt)
    if len(dealt) == 2:
        other = next(n for n in dealt if n != bb_seat)
        return other, other, bb_seat, dealt
    return button, sb_seat, bb_seat, dealt
