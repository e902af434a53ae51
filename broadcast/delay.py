"""The delay line: which journal records may go on air, and what the air shows.

Pure. A record is due at ``release_n = max(release_{n-1}, ts_n + D_n)``, so the air
never reorders when the delay changes. The on-air view at a record is the projection
of the *corrected* journal up to it: an entry undone by any correction known now is
skipped, so a mistake fixed within D never airs. Hole cards ride along only once
their hand has ended live. Given the show's compliance settings, each seat's sponsor badge
airs while the player's branding complies, judged on the same cut.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .compliance.config import ComplianceConfig
from .compliance.events import event_from_dict  # hand and compliance events share the journal
from .compliance.state import ComplianceState
from .compliance.state import apply as apply_rules
from .engine.events import ActionUndone, HandEnded, HandStarted, MisdealDeclared
from .engine.table import TableState, apply
from .views.projections import commentary_view, public_view


@dataclass
class Release:
    """Messages ready to publish for the records up to ``cursor``."""

    cursor: int
    release_at: int
    revealed: int
    messages: list[tuple[int, dict[str, Any], dict[str, Any]]] = field(default_factory=list)


class DelayLine:
    """Feed it journal records in order; ask it what is due at a given Redis time."""

    def __init__(self, config: ComplianceConfig | None = None) -> None:
        self.config = config  # the show's compliance settings: without them no sponsor badge airs
        self.records: list[Any] = []  # journal.Record, in seq order
        self.release_at: list[int] = []
        self.undone: set[int] = set()
        self.ended_hands: set[int] = set()
        self.live_hand = 0
        self.cursor = 0  # last released seq
        self.revealed = 0  # last hand whose hole cards went on air
        self.state = TableState()  # the on-air (released, corrected) state
        self.rules = ComplianceState()  # the same cut's field data and deals, for the extra graphics

    def feed(self, record: Any) -> None:
        """Add the next journal record (read live, before its release)."""
        event = record.event
        previous = self.release_at[-1] if self.release_at else 0
        # release_at first: ``due`` may run in a worker thread and trusts len(records).
        self.release_at.append(max(previous, record.ts + record.delay_ms))
        self.records.append(record)
        if event["type"] == ActionUndone.type:
            self.undone.add(event["undone_seq"])
        elif event["type"] in (HandEnded.type, MisdealDeclared.type):
            self.ended_hands.add(event["hand"])
        elif event["type"] == HandStarted.type:
            self.live_hand = event["hand"]

    def restore(self, cursor: int, revealed: int) -> None:
        """Rebuild the on-air state after a restart from the stored cursor."""
        for rec in self.records:
            if rec.seq > cursor:
                break
            self._apply(rec)
        self.cursor = cursor
        self.revealed = revealed

    def next_due(self) -> int | None:
        """Redis time (ms) at which the next unreleased record is due, or None."""
        # Seqs are dense from 1, so the record after seq ``cursor`` sits at index ``cursor``.
        return self.release_at[self.cursor] if self.cursor < len(self.records) else None

    def hand_over_live(self, hand: int | None) -> bool:
        return hand is not None and hand in self.ended_hands

    def due(self, now_ms: int) -> Release | None:
        """Everything due at ``now_ms`` (records and any hole-card reveal), not yet committed.

        Returns None when nothing is due. The caller publishes, then calls ``commit``.
        """
        state, rules = self.state, self.rules
        start = self.cursor  # seqs are dense from 1: the next record's index is the cursor
        end = start
        while end < len(self.records) and self.release_at[end] <= now_ms:
            end += 1
        release = Release(cursor=self.cursor, release_at=self.release_at[end - 1] if end > start else 0, revealed=self.revealed)
        for rec in self.records[start:end]:
            if rec.seq not in self.undone:
                event = event_from_dict(rec.event)
                state = apply(state, event, seq=rec.seq)
                rules = apply_rules(rules, event, seq=rec.seq, ts=rec.ts)
                release.messages.append(self._views(state, rec.seq, rec.ts, rules, self._revealed(state, release)))
            release.cursor = rec.seq
        if end == start:
            hand = state.hand
            if hand is None or hand.number <= self.revealed or not self.hand_over_live(hand.number):
                return None
            if all(card == "??" for cards in hand.hole for card in cards):
                # Nothing of this hand's cards has aired yet: nothing to reveal now.
                self.revealed = hand.number
                return None
            # The hand ended live after its delayed part aired: put its cards on air now.
            # Under the cursor's seq: the last record aired may be one a later correction undid
            # (skipped when the line was rebuilt), and the air never goes back in seq.
            ts = self._ts_of(self.cursor)
            views = self._views(state, self.cursor, ts, rules, self._revealed(state, release))
            if views == self._views(state, self.cursor, ts, rules, None):
                # The known cards are not on this cut's screens (say, only a mucked hand was
                # read): airing the same message again would reveal nothing.
                self.revealed = hand.number
                return None
            release.messages.append(views)
        self._pending = (state, rules)
        return release

    def _revealed(self, state: TableState, release: Release) -> dict[int, tuple[str, ...]] | None:
        """The hand's hole cards once it is over live (the release then counts it revealed)."""
        hand = state.hand
        if hand is None or not self.hand_over_live(hand.number):
            return None
        release.revealed = max(release.revealed, hand.number)
        return {seat: hand.hole[i] for i, seat in enumerate(hand.seats)}

    def _views(self, state: TableState, seq: int, ts: int, rules: ComplianceState,
               cards: dict[int, tuple[str, ...]] | None) -> tuple[int, dict, dict]:
        """The public and commentary messages at ``seq``, with ``cards`` (hole cards) if given."""
        public = public_view(state, ts=ts, hole=cards, rules=rules, config=self.config)
        public["seq"] = seq
        commentary = commentary_view(state, ts=ts, hole=cards, public=public)
        commentary["seq"] = seq
        return (seq, public, commentary)

    def _ts_of(self, seq: int) -> int:
        return self.records[seq - 1].ts if seq else 0

    def commit(self, release: Release) -> None:
        """The release script accepted ``release``: move the cursor."""
        self.state, self.rules = self._pending
        self.cursor = release.cursor
        self.revealed = release.revealed

    def _apply(self, rec: Any) -> None:
        if rec.seq not in self.undone:
            event = event_from_dict(rec.event)
            self.state = apply(self.state, event, seq=rec.seq)
            self.rules = apply_rules(self.rules, event, seq=rec.seq, ts=rec.ts)
