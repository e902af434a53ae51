"""The core service for one table: the only writer of its journal.

Commands arrive from the HTTP API (dealer console) and from the table's inbox stream
(other processes). Each is ruled on by the pure core; the events are compare-and-
appended to the journal, and only then acknowledged and shown on the live screens.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
from dataclasses import dataclass
from typing import Any, Callable

import redis.asyncio as aioredis

from .compliance import state as compliance
from .compliance.commands import COMMAND_TYPES as COMPLIANCE_COMMANDS
from .compliance.commands import parse_command as parse_compliance
from .compliance.clock import read_called_clock
from .compliance.config import ComplianceConfig
from .compliance.dashboard import rep_view
from .compliance.events import ClockExpired, event_from_dict
from .compliance.facts import facts_from_table
from .compliance.field import from_show_file
from .engine.commands import (Act, DealBoard, DeclareWinner, FourCardFlop, KillHand, Muck, PushChips, SetHoleCards,
                              StartHand, carried_record, parse_command)
from .engine.errors import BadCommand, Refusal
from .engine.events import (BlindLevel, Event, PenaltiesCarried, PlayerEliminated, SeatedPlayer, ShowCountdownStarted,
                             TableOpened)
from .engine.penalties import Ledger
from .engine.penalties import record as penalty_record
from .engine.table import TableState, apply, rule
from .store import keys
from .store.journal import Journal, StampTooOld, read_all, redis_time_ms
from .views.projections import board_need, live_view, secure_view

log = logging.getLogger("tvtable.core")

DEAD_ON_THE_CLOCK = "the called clock ran out: the hand is dead"
STAMP_ATTEMPTS = 5  # stamp, rule and append again this often when a stall made the append late
CLOCK_PERSON = "the called clock"  # who the audit log names for an expiry nobody keyed

Listener = Callable[["TableCore"], None]


@dataclass(frozen=True)
class Accepted:
    """A command's outcome: the journal sequences it produced (empty for a replayed retry)."""

    seqs: tuple[int, ...]
    duplicate: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"accepted": True, "seqs": list(self.seqs), "duplicate": self.duplicate}


def opening_event(table_cfg: Any, levels: Any) -> TableOpened:
    """The journal's first event, from the show config."""
    return TableOpened(
        table=table_cfg.id,
        game=table_cfg.game,
        short_all_ins=getattr(table_cfg, "short_all_ins", "tda"),
        seats=tuple(
            SeatedPlayer(seat=s.seat, player=s.player.id, name=s.player.name, country=s.player.country, stack=s.player.chips)
            for s in table_cfg.seats
        ),
        levels=tuple(BlindLevel(lv.small_blind, lv.big_blind, lv.ante, lv.minutes) for lv in levels),
    )


class TableCore:
    """Owns one table's state and journal. Use ``open()`` once, then ``submit()``."""

    def __init__(self, redis: aioredis.Redis, table_cfg: Any, levels: Any, key: bytes, *, delay_s: float,
                 compliance_config: ComplianceConfig | None = None, field_data: dict | None = None) -> None:
        self.redis = redis
        self.field_data = field_data  # the show file's [field]: a new table opens with it
        self.config = table_cfg
        self.levels = levels
        self.table = table_cfg.id
        self.journal = Journal(redis, self.table, key)
        self.state = TableState()
        self.compliance = compliance.ComplianceState()
        self.rules = compliance_config or ComplianceConfig()
        self.tv_rules = bool(getattr(table_cfg, "tv_rules", True))
        self.ts = 0
        self.delay_ms = int(round(delay_s * 1000))
        self._lock = asyncio.Lock()
        self.listeners: list[Listener] = []
        self._clock_timer: asyncio.Task | None = None
        self._clock_key: tuple[int, int, int] | None = None
        self._countdowns: set[asyncio.Task] = set()  # refusal-to-show countdowns running
        self._time_anchor = (0, 0.0)  # (Redis TIME in ms, the loop's monotonic seconds then)
        self._stale = False  # an append's outcome is unknown: read the journal before the next ruling
        self._board_need: str | None = None  # what board cameras were last told
        # (hand-for-hand hand, player, place journaled) of each bust while hand-for-hand was
        # on: the field coordinator ties a round across tables, also one a restart interrupted.
        self.hand_for_hand_busts: list[tuple[int, str, int]] = []
        self.restamped = 0  # appends that reached the journal late and were ruled again (/metrics)

    async def open(self) -> None:
        """Replay the journal; a new table gets its ``TableOpened`` from the config."""
        records = await self.journal.load()
        self.state, self.compliance = TableState(), compliance.ComplianceState()
        for rec in records:
            self._fold(rec)
        await self._server_time()
        await self.redis.sadd(keys.tables(), self.table)
        if not records:
            opening: list[Event] = [opening_event(self.config, self.levels)]
            if self.field_data:  # the show file's entries, prize pool and payouts, as the TD would enter them
                opening.append(from_show_file(self.field_data, at_ms=self.server_now_ms()))
            opening += await self._carried_at_opening()
            await self._append(opening, command_id=None)
        self._arm_clock()  # a clock called before a restart still runs out
        await self._tell_board_cameras()
        # The players seated here are this table's to keep in the register (a write lost
        # with Redis before a restart is made good now).
        seated = {s.player for s in self.state.seats if s.stack > 0}
        await self._keep_register(Ledger(), seated)
        for seat in self.state.refusing:  # so does a refusal-to-show countdown (it ends at once)
            self._count_down(ShowCountdownStarted(hand=self.state.hand_no, seat=seat), self.ts, self.state.seq)
        log.info("table %s: journal at seq %d, hand %d", self.table, self.state.seq, self.state.hand_no)

    async def submit(self, data: Any, *, person: str = "dealer", role: str = "dealer",
                     command_id: str | None = None) -> Accepted:
        """Rule on one command and make its events durable. Raises ``Refusal``."""
        if command_id is not None and (not isinstance(command_id, str) or not 0 < len(command_id) <= 100):
            raise BadCommand("id must be a text of 1 to 100 characters chosen by the client", field="id")
        async with self._lock:  # one command at a time: decide sees the state it appends to
            if self._stale:
                await self._catch_up()
            if command_id:
                done = await self.journal.previous_result(command_id)
                if done is not None:
                    return Accepted(seqs=tuple(done["seqs"]), duplicate=True)
            if isinstance(data, dict) and data.get("type") == "four_card_flop" and data.get("burn") is None \
                    and data.get("draw") is None:
                # Rule "Four-Card Flops": one of the four is drawn at random as the burn. The
                # core has no randomness; the draw comes in with the command and is journalled.
                data = {**data, "draw": secrets.randbelow(4)}
            if isinstance(data, dict) and data.get("type") == "seat_player":
                # Penalties move with the player's id: the register's record comes along (a
                # client's own "carried" is never taken).
                data = {**data, "carried": await self._carried(data.get("player"))}
            ledger = self.state.ledger
            for attempt in range(1, STAMP_ATTEMPTS + 1):
                ts = await self._stamp()
                if isinstance(data, dict) and data.get("type") in COMPLIANCE_COMMANDS:
                    events, after = self._rule_on_compliance(data, person=person, role=role, ts=ts)
                else:
                    events, after = self._rule_on_table(data, person=person, role=role, ts=ts)
                if not events:  # e.g. a repeated camera report: nothing new to record
                    return Accepted(seqs=())
                try:
                    seqs = await self._append(list(events), command_id=command_id, after=after, ts=ts)
                    break
                except StampTooOld as late:
                    self.restamped += 1
                    # The core stalled between its stamp and the journal (a busy machine):
                    # nothing was written. Stamp and rule again, so the record's time is
                    # the time it was recorded and the delay holds for it.
                    log.warning("table %s: %s reached the journal late (%s); ruling again (attempt %d of %d)",
                                self.table, data.get("type"), late, attempt, STAMP_ATTEMPTS)
                except (ConnectionError, OSError, aioredis.RedisError, asyncio.CancelledError):
                    # Redis went away mid-append (or the caller was cancelled while it waited):
                    # the script ran whole or not at all, but we cannot tell which. Read the
                    # journal before ruling on anything else.
                    self._stale = True
                    raise
            else:
                raise Refusal("the table's core is too busy to record this in time; nothing was recorded. "
                              "Key it again", field="type")
            log.info("table %s: %s by %s -> seq %s", self.table, data.get("type"), person, ",".join(map(str, seqs)))
            if self.state.ledger != ledger:
                await self._keep_register(ledger)
            return Accepted(seqs=tuple(seqs))

    async def _carried_at_opening(self) -> list[Event]:
        """The register's records of the players the show file seats here: a penalty not
        served at the end of the night is served the following day (rule "Penalties Move")."""
        players = [seat.player.id for seat in self.config.seats]
        if not players:
            return []
        found = await self.redis.hmget(keys.penalty_register(), players)  # one round trip for the table
        events: list[Event] = []
        for player, raw in zip(players, found):
            try:
                penalties, hands, source = carried_record(self._register_record(raw))
            except Refusal:
                log.warning("table %s: the penalty register's record of %s is not a penalty record; not carried "
                            "(set it with a penalty command)", self.table, player)
                continue
            if penalties or hands:
                events.append(PenaltiesCarried(player=player, from_table=source,
                                               penalties=tuple(p.__dict__.copy() for p in penalties), hands_left=hands))
        return events

    async def _carried(self, player: Any) -> dict | None:
        """The field's penalty register's record of a player, or None."""
        if not isinstance(player, str) or not player.strip():
            return None  # the command's own check names the field
        return self._register_record(await self.redis.hget(keys.penalty_register(), player.strip()[:64]))

    def _register_record(self, raw: bytes | None) -> dict | None:
        """A record as the register stores it (JSON), or None when there is none or it is unreadable."""
        if not raw:
            return None
        try:
            found = json.loads(raw)
        except ValueError:
            log.warning("table %s: the penalty register's record of a player is unreadable", self.table)
            return None
        return found if isinstance(found, dict) else None

    async def _keep_register(self, before: Any, players: Any = None) -> None:
        """Write the records that changed at this table to the field's penalty register (the
        journal stays the truth; the register carries a player's record to the next table)."""
        ledger = self.state.ledger
        if players is None:
            players = {p.player for p in ledger.penalties} | {p for p, _ in ledger.sitting_out} \
                | {p for p, _ in before.sitting_out}
        changed = {}
        for player in sorted(players):
            now = penalty_record(ledger, player)
            if now != penalty_record(before, player):
                changed[player] = json.dumps({"table": self.table, **now}, separators=(",", ":"))
        if not changed:
            return
        try:
            await self.redis.hset(keys.penalty_register(), mapping=changed)
        except (ConnectionError, OSError, aioredis.RedisError) as exc:
            log.warning("table %s: could not update the penalty register for %d player(s) (%s); it is written "
                        "again when the table opens", self.table, len(changed), type(exc).__name__)

    def _fold(self, rec: Any) -> Event:
        """Fold one journal record into the table and compliance states (replay, catch-up)."""
        event = event_from_dict(rec.event)  # hand and compliance events share the journal
        self.state = apply(self.state, event, seq=rec.seq)
        self.compliance = compliance.apply(self.compliance, event, seq=rec.seq, ts=rec.ts)
        self._note_bust(event)
        self.ts = max(self.ts, rec.ts)
        return event

    def _note_bust(self, event: Event) -> None:
        clock = self.compliance.level_clock
        if isinstance(event, PlayerEliminated) and event.place and clock.hand_for_hand:
            self.hand_for_hand_busts.append((clock.dealt, event.player, event.place))

    async def _catch_up(self) -> None:
        """Fold in what the journal holds past our head (an append whose answer was lost)."""
        records = await read_all(self.redis, self.table, after=self.journal.seq)
        for rec in records:
            event = self._fold(rec)
            if isinstance(event, ShowCountdownStarted):
                self._count_down(event, rec.ts + event.seconds * 1000, rec.seq)
        if records:
            self.journal.seq, self.journal.hash = records[-1].seq, records[-1].hash
            log.info("table %s: the journal kept an append whose answer was lost; now at seq %d",
                     self.table, self.state.seq)
            self._arm_clock()
            await self._tell_board_cameras()
            for listener in list(self.listeners):
                listener(self)
        self._stale = False

    async def _stamp(self) -> int:
        """An event's time: Redis TIME now, never before the last record's (even if Redis's
        clock went back)."""
        return max(await self._server_time(), self.ts)

    async def _server_time(self) -> int:
        ms = await redis_time_ms(self.redis)
        self._time_anchor = (ms, time.monotonic())
        return ms

    def server_now_ms(self) -> int:
        """Redis TIME now, estimated from its last reading plus the monotonic time since (views
        are computed without a round trip; events are stamped with a fresh reading)."""
        ms, at = self._time_anchor
        return max(self.ts, ms + int((time.monotonic() - at) * 1000)) if ms else self.ts

    def _facts(self, state: TableState | None = None):
        return facts_from_table(state or self.state)

    def _rule_on_table(self, data: Any, *, person: str, role: str, ts: int) -> tuple[tuple[Event, ...], TableState]:
        """The hand engine's ruling, with the tournament's rules around it: hand-for-hand and
        the called clock at every table; the TV-table rules (go-live gate, HALT PLAY) when this
        table has them."""
        command = parse_command(data, hole_card_count=self.state.hole_card_count)
        facts = self._facts()
        before: tuple[Event, ...] = ()
        if isinstance(command, StartHand):
            if self.tv_rules:
                compliance.check_deal_in(self.compliance, facts, self.rules)  # devices, logos, hand-for-hand
            else:
                compliance.check_hand_for_hand(self.compliance)  # every table deals one hand at a time
        elif isinstance(command, (DealBoard, FourCardFlop, Muck, DeclareWinner)) \
                or (isinstance(command, SetHoleCards) and role == "dealer"):
            # Hand-for-hand: a called all-in waits for the TD (no hands turned up, no board, no
            # winner). The secure room and the camera still record the cards: that reveals
            # nothing at the table.
            compliance.before_runout(self.compliance, facts)
        elif isinstance(command, (Act, PushChips)) and not getattr(command, "out_of_turn", False):
            before = compliance.before_action(self.compliance, facts, self.rules, command.seat, ts, by=person, role=role,
                                              tv_rules=self.tv_rules)
            if not compliance.action_allowed(before):
                command = KillHand(seat=command.seat, reason=DEAD_ON_THE_CLOCK)
        return self._rule_with(before, command, ts)

    def _rule_with(self, before: tuple[Event, ...], command: Any, ts: int) -> tuple[tuple[Event, ...], TableState]:
        """The table's ruling on ``command`` after the compliance events ``before``, then the
        HALT PLAY due once the table has moved on."""
        state = self.state
        for event in before:  # the table ignores compliance events, but they take journal seqs
            state = apply(state, event, seq=state.seq + 1)
        events, after = rule(state, command)
        rules = self.compliance
        for i, event in enumerate(before + events):
            rules = compliance.apply(rules, event, seq=self.state.seq + 1 + i, ts=ts)
        after_events = compliance.after_table(rules, self._facts(after), self.rules, ts) if self.tv_rules else ()  # HALT PLAY
        for event in after_events:
            after = apply(after, event, seq=after.seq + 1)
        return before + events + after_events, after

    def _rule_on_compliance(self, data: dict, *, person: str, role: str,
                            ts: int) -> tuple[tuple[Event, ...], TableState | None]:
        """A rep's, TD's or the clock's command; a called clock run out kills the seat's hand."""
        command = parse_compliance(data, by=person, role=role, at_ms=ts)
        events = compliance.decide(self.compliance, command, self._facts(), self.rules)
        expired = next((e for e in events if isinstance(e, ClockExpired)), None)
        hand = self.state.hand
        if expired is None or hand is None or hand.ended or not hand.in_hand(expired.seat):
            return events, None
        return self._rule_with(events, KillHand(seat=expired.seat, reason=DEAD_ON_THE_CLOCK), ts)

    async def _append(self, events: list[Event], *, command_id: str | None, after: TableState | None = None,
                      ts: int | None = None) -> list[int]:
        payload = [e.to_dict() for e in events]
        if ts is not None:
            records = await self.journal.append(payload, ts=ts, delay_ms=self.delay_ms, command_id=command_id)
        else:  # the core's own timers: stamped here, and again if the append came late
            for attempt in range(STAMP_ATTEMPTS):
                ts = await self._stamp()
                try:
                    records = await self.journal.append(payload, ts=ts, delay_ms=self.delay_ms, command_id=command_id)
                    break
                except StampTooOld:
                    self.restamped += 1
                    if attempt == STAMP_ATTEMPTS - 1:
                        raise
        if after is not None and records and after.seq == records[-1].seq:
            self.state = after  # decide already folded these very events in (the core is the only writer)
        else:
            for rec, event in zip(records, events):
                self.state = apply(self.state, event, seq=rec.seq)
        for rec, event in zip(records, events):
            self.compliance = compliance.apply(self.compliance, event, seq=rec.seq, ts=rec.ts)
            self._note_bust(event)
        self.ts = ts
        self._arm_clock()
        await self._tell_board_cameras()
        for rec, event in zip(records, events):
            if isinstance(event, ShowCountdownStarted):
                self._count_down(event, rec.ts + event.seconds * 1000, rec.seq)
        for listener in list(self.listeners):
            listener(self)
        return [r.seq for r in records]

    async def _tell_board_cameras(self) -> None:
        """Keep the board-need key current (board cameras may read it and nothing else of the
        table's). Written only when it changes: most actions do not change the board."""
        need = json.dumps(board_need(self.state), separators=(",", ":"))
        if need == self._board_need:
            return
        try:
            await self.redis.set(keys.board_need(self.table), need)
            self._board_need = need
        except (ConnectionError, OSError, aioredis.RedisError) as exc:
            # The command is in the journal already: do not fail it. Written with the next one.
            log.warning("table %s: could not tell the board cameras (%s)", self.table, type(exc).__name__)

    def _arm_clock(self) -> None:
        """Keep one timer per called clock: started when a clock is called, stopped when it is
        answered, cancelled or its hand ends."""
        called = self.compliance.called_clock
        key = (called.hand, called.seat, called.started_ms) if called else None
        if key == self._clock_key:
            return
        timer, self._clock_timer, self._clock_key = self._clock_timer, None, key
        if timer is not None and timer is not asyncio.current_task():
            timer.cancel()
        if called is not None:
            self._clock_timer = asyncio.get_running_loop().create_task(
                self._run_out(called.hand, called.started_ms, called.deadline_ms), name=f"called clock {self.table}")

    async def _run_out(self, hand: int, started_ms: int, deadline_ms: int) -> None:
        """Submit the expiry once Redis TIME is past the countdown and the tie margin (a tie
        goes to the player: an action keyed within the margin still counts)."""
        due = deadline_ms + self.rules.clock_tie_ms + 1
        try:
            while (now := await self._server_time()) < due:
                await asyncio.sleep((due - now) / 1000)  # the loop's clock may run early: ask Redis again
            await self.submit({"type": "expire_clock"}, person=CLOCK_PERSON, role="system",
                              command_id=f"clock-expiry-{hand}-{started_ms}")
        except Refusal as refusal:  # answered or cancelled while we slept
            log.info("table %s: called clock not expired: %s", self.table, refusal.reason)
        except (ConnectionError, OSError, aioredis.RedisError) as exc:
            log.warning("table %s: could not run out the called clock: %s", self.table, exc)

    def _count_down(self, event: ShowCountdownStarted, due_ms: int, seq: int) -> None:
        """Rule "Refusal to Show": after the countdown (Redis TIME), the hand is dead unless the
        cards were tabled meanwhile (the core then refuses the expiry)."""
        async def run_out() -> None:
            try:
                while (now := await self._server_time()) <= due_ms:
                    await asyncio.sleep((due_ms - now + 1) / 1000)
                await self.submit({"type": "show_countdown_over", "seat": event.seat}, person=CLOCK_PERSON, role="system",
                                  command_id=f"show-countdown-{event.hand}-{event.seat}-{seq}")
            except Refusal as refusal:
                log.info("table %s: seat %d tabled in time: %s", self.table, event.seat, refusal.reason)
            except (ConnectionError, OSError, aioredis.RedisError) as exc:
                log.warning("table %s: could not end seat %d's countdown: %s", self.table, event.seat, exc)

        self._countdowns.add(asyncio.get_running_loop().create_task(run_out(), name=f"show countdown {self.table}"))
        self._countdowns = {t for t in self._countdowns if not t.done()}

    async def close(self) -> None:
        """Stop the called-clock timer and the refusal-to-show countdowns (the show is stopping).
        Nothing is lost: ``open()`` re-arms both from the journal, and an expiry due meanwhile
        is then submitted at once."""
        tasks = {t for t in (self._clock_timer, *self._countdowns) if t is not None and not t.done()}
        self._clock_timer, self._clock_key, self._countdowns = None, None, set()
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks)

    def awaiting_cards(self) -> tuple[int, ...]:
        """Seats whose tabled cards the dealer must enter (showdown with unknown cards)."""
        hand = self.state.hand
        return hand.awaiting_cards() if hand is not None and not hand.ended else ()

    def view(self, feed: str) -> dict[str, Any]:
        """The live, secure or compliance view now (never a hole card but on ``secure``)."""
        now = self.server_now_ms()
        if feed == "compliance":
            view = rep_view(self.compliance, self._facts(), self.rules, now)
            view.update(type="view", feed="compliance", table=self.table, seq=self.state.seq, ts=self.ts, now_ms=now,
                        hand_complete=bool(self.state.hand and self.state.hand.ended), tv_rules=self.tv_rules)
            return view
        view = secure_view(self.state, ts=self.ts) if feed == "secure" else live_view(self.state, ts=self.ts)
        called = self.compliance.called_clock
        # The console shows the called clock; pages count down from this reading and ``ts``.
        view["called_clock"] = read_called_clock(called, now).to_dict() | {"deadline_ms": called.deadline_ms} \
            if called else None
        facts = self._facts()
        if self.tv_rules:
            # The console holds a halted seat's action; it can still enter what happened.
            view["halt"] = list(compliance.hold(self.compliance, facts, self.rules))
            view["deal_blockers"] = [b.message for b in compliance.deal_in_blockers(self.compliance, facts, self.rules)]
        # Hand-for-hand (every table): a called all-in is held until the TD releases it.
        view["frozen"] = compliance.frozen(self.compliance, facts)
        return view

    async def follow_inbox(self) -> None:
        """Apply commands other processes post to the inbox stream (runs until cancelled).

        Reads on after the stored cursor, so a restart (of the core, or of this loop after
        a Redis outage) neither skips what was posted meanwhile nor rules twice on an entry:
        a command refused before must not be accepted later against another hand."""
        cursor_key = keys.inbox_cursor(self.table)
        stored = await self.redis.get(cursor_key)
        last = stored.decode() if stored else "0-0"
        while True:
            reply = await self.redis.xread({keys.inbox(self.table): last}, block=1000, count=100)
            for _, entries in reply or []:
                for entry_id, fields in entries:
                    last = entry_id.decode() if isinstance(entry_id, bytes) else entry_id
                    try:
                        data = json.loads(fields.get(b"c", b"{}"))
                        if isinstance(data, dict) and data.get("type") == "hole_cards":
                            data["source"] = "camera"  # only capture PCs may add to the inbox
                        person = (fields.get(b"person") or b"inbox").decode()
                        # Only capture PCs (the camera role's Redis user) may add to the inbox.
                        await self.submit(data, person=person, role="camera",
                                          command_id=data.get("id") if isinstance(data, dict) else None)
                    except Refusal as refusal:
                        log.info("table %s: inbox command refused: %s", self.table, refusal.reason)
                    except (ValueError, AttributeError) as exc:
                        log.warning("table %s: inbox entry %s is not a command: %s", self.table, last, exc)
                    except (ConnectionError, OSError, aioredis.RedisError):
                        raise  # the runtime restarts this loop once Redis is back; the entry is read again
                    except Exception as exc:  # noqa: BLE001 - one bad entry must not stop the camera feed
                        log.error("table %s: inbox entry %s could not be ruled on: %s", self.table, last,
                                  type(exc).__name__)
                    # Ruled on (accepted, refused or unreadable): a Redis error above leaves
                    # the cursor before this entry, so it is tried again, its id keeping it once.
                    await self.redis.set(cursor_key, last)
