"""What the compliance rules may know about the table: seats, whose turn, the level.

``TableFacts`` is built by the core from the engine's ``TableState`` with
``facts_from_table``. It deliberately has no field for hole cards, so no compliance rule
can leak one: the camera rules only ever learn *that* a seat showed its cards.
"""

from __future__ import annotations

from dataclasses import dataclass

from broadcast.engine.penalties import Ledger


@dataclass(frozen=True)
class SeatFacts:
    seat: int
    player: str  # stable id
    name: str


@dataclass(frozen=True)
class TableFacts:
    table: str = ""
    seats: tuple[SeatFacts, ...] = ()  # players seated now (stack above zero)
    hand: int = 0  # the current hand's number, or the last one's
    in_hand: bool = False  # a hand is being played
    dealt: tuple[int, ...] = ()  # seats dealt in to this hand
    live: tuple[int, ...] = ()  # seats still holding cards
    killed: tuple[int, ...] = ()  # seats whose hand is dead (a missed-hand penalty, a clock)
    actor: int | None = None  # whose turn it is
    actions: int = 0  # betting actions already taken this hand
    all_in: bool = False  # a player still in the hand is all-in (every hand will be turned up)
    level: int = 1
    level_minutes: tuple[int, ...] = ()  # the structure: minutes per level
    ledger: Ledger = Ledger()

    def seat(self, number: int) -> SeatFacts | None:
        return next((s for s in self.seats if s.seat == number), None)

    def seat_of(self, player: str) -> SeatFacts | None:
        return next((s for s in self.seats if s.player == player), None)

    def player_at(self, number: int) -> str:
        s = self.seat(number)
        return s.player if s else ""

    def label(self, number: int) -> str:
        """``seat 4 (Bo Chen)`` for messages a rep reads."""
        s = self.seat(number)
        return f"seat {number} ({s.name})" if s else f"seat {number}"

    def minutes(self, level: int | None = None) -> int:
        level = self.level if level is None else level
        if 1 <= level <= len(self.level_minutes):
            return self.level_minutes[level - 1]
        return 60


def facts_from_table(state) -> TableFacts:  # state: broadcast.engine.table.TableState
    """Copy what compliance needs out of the engine's table state, and nothing more."""
    hand = state.hand
    seats = tuple(SeatFacts(s.seat, s.player, s.name) for s in state.seats if s.stack > 0 or (hand and s.seat in hand.seats))
    facts = dict(table=state.table, seats=seats, level=state.level,
                 level_minutes=tuple(lv.minutes for lv in state.levels), ledger=state.ledger, hand=state.hand_no)
    if hand is not None:
        in_hand = not hand.ended
        facts.update(
            in_hand=in_hand,
            dealt=tuple(hand.seats),
            live=tuple(s for s in hand.seats if in_hand and hand.in_hand(s)) if in_hand else (),
            killed=tuple(sorted(state.killed)),
            actor=hand.actor if in_hand else None,
            actions=len(hand.actions_in_turn()),
            all_in=in_hand and hand.all_in_showdown(),
        )
    return TableFacts(**facts)
