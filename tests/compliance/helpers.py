"""Drive the compliance core with plain values, the way the rep and TD pages will."""

from __future__ import annotations

from dataclasses import replace

from broadcast.compliance.commands import parse_command
from broadcast.compliance.config import ComplianceConfig
from broadcast.compliance.facts import SeatFacts, TableFacts
from broadcast.compliance.state import ComplianceState, after_table, apply, before_action, decide
from broadcast.engine.events import HandEnded, HandStarted, PenaltyIssued
from broadcast.engine.penalties import Ledger, Penalty, issue

NAMES = ("Ann Lee", "Bo Chen", "Cy Diaz", "Di Eze", "Ed Fox", "Flo Gray")
WHO = {"rep": "Ruth Adeyemi", "td": "Olivier Marchand", "dealer": "Sam Ortiz", "camera": "cam-1", "secure": "Vault"}


def table_facts(n: int = 6, *, minutes: tuple[int, ...] = (60, 60, 60)) -> TableFacts:
    seats = tuple(SeatFacts(i, f"p{i}", NAMES[i - 1]) for i in range(1, n + 1))
    return TableFacts(table="tv", seats=seats, level_minutes=minutes)


class Desk:
    """A compliance state plus the table facts it rules against; keeps every event."""

    def __init__(self, facts: TableFacts | None = None, config: ComplianceConfig = ComplianceConfig()) -> None:
        self.facts = facts or table_facts()
        self.config = config
        self.state = ComplianceState()
        self.log: list = []

    def feed(self, *events) -> tuple:
        for event in events:
            self.log.append(event)
            self.state = apply(self.state, event)
            if isinstance(event, PenaltyIssued):  # the table's ledger, as the engine keeps it
                penalty = Penalty(event.player, event.kind, event.count, event.reason, event.rule, event.issued_by)
                self.facts = replace(self.facts, ledger=issue(self.facts.ledger, penalty, players_at_table=len(self.facts.seats)))
        return events

    def do(self, kind: str, /, *, role: str = "rep", at: int = 0, by: str | None = None, **fields) -> tuple:
        cmd = parse_command({"type": kind, **fields}, by=by or WHO.get(role, role), role=role, at_ms=at)
        return self.feed(*decide(self.state, cmd, self.facts, self.config))

    # the table side, as the core will wire it
    def deal(self, hand: int = 1, seats: tuple[int, ...] | None = None, actor: int | None = None) -> tuple:
        seats = seats or tuple(s.seat for s in self.facts.seats)
        self.facts = replace(self.facts, hand=hand, in_hand=True, dealt=seats, live=seats, actions=0, killed=(),
                             actor=seats[2 % len(seats)] if actor is None else actor)
        self.feed(HandStarted(hand=hand, button=seats[-1], level=1, small_blind=100, big_blind=200, ante=200,
                              seats=seats, stacks=tuple(20000 for _ in seats)))
        return self.react()

    def react(self, at: int = 0) -> tuple:
        return self.feed(*after_table(self.state, self.facts, self.config, at))

    def act(self, seat: int, *, fold: bool = False, at: int = 0, next_actor: int | None = None) -> tuple:
        """The dealer enters an action: compliance first, then the table moves the turn on."""
        events = self.feed(*before_action(self.state, self.facts, self.config, seat, at, by=WHO["dealer"]))
        live = tuple(s for s in self.facts.live if not (fold and s == seat))
        self.facts = replace(self.facts, actions=self.facts.actions + 1, live=live, actor=next_actor)
        return events + self.react(at)

    def end_hand(self) -> None:
        self.feed(HandEnded(hand=self.facts.hand, pots=(), stacks={}))
        self.facts = replace(self.facts, in_hand=False, actor=None, live=())

    def types(self, events) -> list[str]:
        return [e.type for e in events]


def ledger_with(*kinds: str, player: str = "p2") -> Ledger:
    ledger = Ledger()
    for kind in kinds:
        ledger = issue(ledger, Penalty(player, kind, 1 if kind.startswith("missed") else 0, "x", "y", "TD"),
                       players_at_table=6)
    return ledger
