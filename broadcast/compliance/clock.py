"""Clocks: "Calling for Clock" and the level clock (rule book: "Calling for Clock",
"Hand-for-Hand Play").

    "Upon the Floor Person approving the request, the player will be given one total
    minute to act. This minute will consist of a 50 second time limit, and if action has
    not taken place, there will be a 10 second countdown. If a player has not acted on
    his hand by the time the countdown is over, the hand will be dead. Tournament
    Supervisors reserve the right to speed-up the amount of time allotted for a clock if
    it appears that a player is deliberately stalling."
    1. "with a level time of twenty minutes or less, the clock will be twenty-five
       seconds, followed by a five second countdown."
    2. "In case of a perceived tie between the countdown and the player's action, that
       tie will customarily go to the player"

Pure: every time is an integer of milliseconds passed in (the server's time). The level
clock is a value computed at any instant from the TD's last input; on air it is computed
at the server's time minus the broadcast delay, never from a PC's own clock.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from broadcast.engine.errors import BadCommand, IllegalAction

from .commands import (
    AdjustLevelClock,
    CallClock,
    CancelClock,
    EndBreak,
    ExpireClock,
    PauseLevelClock,
    ReleaseAllIn,
    ResumeLevelClock,
    SetClockLevel,
    SetHandForHand,
    StartBreak,
    StartLevelClock,
)
from .config import ComplianceConfig
from .errors import Blocker, need_role, need_text
from .events import (
    AllInReleased,
    BreakEnded,
    BreakStarted,
    ClockAnswered,
    ClockCalled,
    ClockCancelled,
    ClockExpired,
    HandForHandReleased,
    HandForHandSet,
    LevelClockAdjusted,
    LevelClockEvent,
    LevelClockLevelSet,
    LevelClockPaused,
    LevelClockResumed,
    LevelClockStarted,
)
from .facts import TableFacts

MINUTE = 60_000


def clock_allowance(level_minutes: int, config: ComplianceConfig = ComplianceConfig()) -> tuple[int, int]:
    """The time limit and countdown for a called clock at a level of ``level_minutes``: the
    rule book's 50 s + 10 s (25 s + 5 s at short levels) unless a rehearsal config shortens them."""
    return config.clock_short_levels if level_minutes <= config.short_level_minutes else config.clock_standard


# -- the called clock -----------------------------------------------------------------------
@dataclass(frozen=True)
class CalledClock:
    hand: int
    seat: int
    started_ms: int
    seconds: int
    countdown: int

    @property
    def countdown_ms(self) -> int:
        """When the countdown begins."""
        return self.started_ms + self.seconds * 1000

    @property
    def deadline_ms(self) -> int:
        return self.countdown_ms + self.countdown * 1000


@dataclass(frozen=True)
class CalledClockReading:
    seat: int
    phase: str  # time, countdown or expired
    remaining_ms: int  # in this phase
    total_ms: int  # to the end of the countdown

    def to_dict(self) -> dict:
        return {"seat": self.seat, "phase": self.phase, "remaining_ms": self.remaining_ms, "total_ms": self.total_ms,
                "seconds": -(-self.remaining_ms // 1000)}


def read_called_clock(clock: CalledClock, now_ms: int) -> CalledClockReading:
    total = max(0, clock.deadline_ms - now_ms)
    if now_ms < clock.countdown_ms:
        return CalledClockReading(clock.seat, "time", clock.countdown_ms - now_ms, total)
    if now_ms < clock.deadline_ms:
        return CalledClockReading(clock.seat, "countdown", total, total)
    return CalledClockReading(clock.seat, "expired", 0, 0)


def call_clock(current: CalledClock | None, facts: TableFacts, cmd: CallClock,
               config: ComplianceConfig = ComplianceConfig()) -> ClockCalled:
    """The floor approved a call for the clock on the player to act."""
    need_role(cmd.role, ("dealer", "rep", "td"), "start a called clock")
    approved_by = need_text(cmd.approved_by or (cmd.by if cmd.role == "td" else ""), "approved_by",
                            "the floor person who approved the request")
    if not facts.in_hand:
        raise IllegalAction("no hand is being played", field="seat")
    if facts.actor != cmd.seat:
        raise IllegalAction(f"the clock is called on the player to act: that is seat {facts.actor}, not seat {cmd.seat}",
                            field="seat")
    if current is not None and current.hand == facts.hand:
        raise IllegalAction(f"the clock is already running on seat {current.seat}", field="seat")
    standard = clock_allowance(facts.minutes(), config)
    seconds = standard[0] if cmd.seconds is None else cmd.seconds
    countdown = standard[1] if cmd.countdown is None else cmd.countdown
    if seconds > standard[0] or countdown > standard[1]:
        raise BadCommand(f"the clock at this level is {standard[0]} s then a {standard[1]} s countdown: "
                         "it may be shortened, not lengthened", field="seconds" if seconds > standard[0] else "countdown")
    reason = cmd.reason
    if (seconds, countdown) != standard:
        reason = need_text(cmd.reason, "reason", "why the clock is sped up (deliberate stalling)")
    return ClockCalled(hand=facts.hand, seat=cmd.seat, seconds=seconds, countdown=countdown, approved_by=approved_by,
                       reason=reason, at_ms=cmd.at_ms, by=cmd.by, role=cmd.role)


def clock_on_action(current: CalledClock | None, config: ComplianceConfig, seat: int, at_ms: int) -> tuple:
    """The seat under the clock acted at ``at_ms``: in time (a tie goes to the player), or too
    late, and then the hand is dead and the action must not be taken."""
    if current is None or current.seat != seat:
        return ()
    if at_ms <= current.deadline_ms + config.clock_tie_ms:
        return (ClockAnswered(hand=current.hand, seat=seat, tie=at_ms > current.deadline_ms, at_ms=at_ms, role="system"),)
    return (ClockExpired(hand=current.hand, seat=seat, at_ms=at_ms, role="system"),)


def expire_clock(current: CalledClock | None, config: ComplianceConfig, cmd: ExpireClock) -> ClockExpired:
    """The countdown is over and the player has not acted: the hand is dead."""
    need_role(cmd.role, ("dealer", "rep", "td", "system"), "call time on a clock")
    if current is None:
        raise IllegalAction("no clock is running", field="type")
    if cmd.at_ms <= current.deadline_ms + config.clock_tie_ms:
        left = max(0, current.deadline_ms - cmd.at_ms)
        raise IllegalAction(f"the countdown on seat {current.seat} is not over: {-(-left // 1000)} s left "
                            "(a tie goes to the player)", field="type")
    return ClockExpired(hand=current.hand, seat=current.seat, at_ms=cmd.at_ms, by=cmd.by, role=cmd.role)


def cancel_clock(current: CalledClock | None, cmd: CancelClock) -> ClockCancelled:
    need_role(cmd.role, ("rep", "td"), "cancel a called clock")
    if current is None:
        raise IllegalAction("no clock is running", field="type")
    return ClockCancelled(hand=current.hand, seat=current.seat, reason=cmd.reason, at_ms=cmd.at_ms, by=cmd.by,
                          role=cmd.role)


def apply_called_clock(current: CalledClock | None, event) -> CalledClock | None:
    if isinstance(event, ClockCalled):
        return CalledClock(event.hand, event.seat, event.at_ms, event.seconds, event.countdown)
    if isinstance(event, (ClockAnswered, ClockExpired, ClockCancelled)):
        return None
    return current


# -- the level clock ------------------------------------------------------------------------
@dataclass(frozen=True)
class Anchor:
    """One TD input: the level clock from ``since_ms`` on."""

    level: int
    remaining_ms: int  # left in ``level`` at ``since_ms``
    running: bool
    since_ms: int
    break_until_ms: int | None = None


@dataclass(frozen=True)
class LevelClock:
    """The TD's inputs so far; ``read_level_clock`` computes the clock at any instant, also
    an earlier one (on air runs a delay behind), from the input in force then."""

    anchors: tuple[Anchor, ...] = ()
    hand_for_hand: bool = False
    released: int = 0  # hand-for-hand rounds the TD released
    dealt: int = 0  # hand-for-hand rounds this table dealt
    last_hand: int = 0
    all_in_released: int = 0  # the hand whose called all-in the TD let this table play out

    @property
    def started(self) -> bool:
        return bool(self.anchors)

    @property
    def current(self) -> Anchor | None:
        return self.anchors[-1] if self.anchors else None


@dataclass(frozen=True)
class LevelReading:
    level: int
    remaining_ms: int
    running: bool
    on_break: bool = False
    break_remaining_ms: int = 0
    hand_for_hand: bool = False
    started: bool = True

    def to_dict(self) -> dict:
        return {"level": self.level, "remaining_ms": self.remaining_ms, "running": self.running,
                "on_break": self.on_break, "break_remaining_ms": self.break_remaining_ms,
                "hand_for_hand": self.hand_for_hand, "started": self.started}


def _minutes(minutes: tuple[int, ...], level: int) -> int:
    return minutes[level - 1] if 1 <= level <= len(minutes) else 0


def read_level_clock(lc: LevelClock, minutes: tuple[int, ...], now_ms: int) -> LevelReading:
    """The level clock at ``now_ms``: levels roll over by the structure; the last one stops at zero."""
    anchor = next((a for a in reversed(lc.anchors) if a.since_ms <= now_ms), None)
    if anchor is None:
        return LevelReading(1, _minutes(minutes, 1) * MINUTE, False, hand_for_hand=lc.hand_for_hand, started=False)
    if not anchor.running:
        return LevelReading(anchor.level, anchor.remaining_ms, False, hand_for_hand=lc.hand_for_hand)
    t0 = anchor.since_ms
    if anchor.break_until_ms is not None:
        if now_ms < anchor.break_until_ms:
            return LevelReading(anchor.level, anchor.remaining_ms, True, on_break=True,
                                break_remaining_ms=anchor.break_until_ms - now_ms, hand_for_hand=lc.hand_for_hand)
        t0 = anchor.break_until_ms
    level, remaining = anchor.level, anchor.remaining_ms - max(0, now_ms - t0)
    while remaining <= 0 and level < len(minutes):
        level += 1
        remaining += minutes[level - 1] * MINUTE
    return LevelReading(level, max(0, remaining), True, hand_for_hand=lc.hand_for_hand)


def on_air(lc: LevelClock, minutes: tuple[int, ...], server_now_ms: int, delay_ms: int) -> LevelReading:
    """The level clock as the audience sees it: at the server's time minus the delay."""
    return read_level_clock(lc, minutes, server_now_ms - delay_ms)


def on_air_called_clock(clock: CalledClock | None, server_now_ms: int, delay_ms: int) -> CalledClockReading | None:
    if clock is None or server_now_ms - delay_ms < clock.started_ms:
        return None
    return read_called_clock(clock, server_now_ms - delay_ms)


def _snapshot(cls: type[LevelClockEvent], r: LevelReading, cmd, *, running: bool | None = None,
              break_until: int | None = None, level: int | None = None, remaining: int | None = None,
              delta: int = 0, reason: str = "") -> LevelClockEvent:
    return cls(level=r.level if level is None else level, remaining_ms=r.remaining_ms if remaining is None else remaining,
               running=r.running if running is None else running, break_until_ms=break_until, delta_ms=delta,
               reason=reason, at_ms=cmd.at_ms, by=cmd.by, role=cmd.role)


def level_clock(lc: LevelClock, minutes: tuple[int, ...], cmd) -> LevelClockEvent:
    """The TD's level-clock controls: start, pause, resume, add or remove time, set the level,
    start (or amend) and end a break."""
    need_role(cmd.role, ("td",), "run the level clock")
    if lc.current is not None and cmd.at_ms < lc.current.since_ms:
        cmd = replace(cmd, at_ms=lc.current.since_ms)  # the clock never runs backwards
    r = read_level_clock(lc, minutes, cmd.at_ms)
    if isinstance(cmd, StartLevelClock):
        if lc.started:
            raise IllegalAction("the level clock has started: pause, resume or set the level", field="type")
        if not 1 <= cmd.level <= len(minutes):
            raise BadCommand(f"level must be between 1 and {len(minutes)}", field="level")
        full = _minutes(minutes, cmd.level) * MINUTE
        return _snapshot(LevelClockStarted, r, cmd, running=True, level=cmd.level,
                         remaining=full if cmd.remaining_ms is None else cmd.remaining_ms)
    if not lc.started:
        raise IllegalAction("the level clock has not started", field="type")
    if isinstance(cmd, PauseLevelClock):
        if r.on_break:
            raise IllegalAction("the break is on: end or amend the break instead", field="type")
        if not r.running:
            raise IllegalAction("the level clock is already paused", field="type")
        return _snapshot(LevelClockPaused, r, cmd, running=False, reason=cmd.reason)
    if isinstance(cmd, ResumeLevelClock):
        if r.running:
            raise IllegalAction("the level clock is already running", field="type")
        return _snapshot(LevelClockResumed, r, cmd, running=True)
    if isinstance(cmd, AdjustLevelClock):
        remaining = r.remaining_ms + cmd.delta_ms
        if remaining <= 0:
            raise BadCommand(f"only {r.remaining_ms // 1000} s are left in level {r.level}: set the next level instead",
                             field="delta_ms")
        return _snapshot(LevelClockAdjusted, r, cmd, remaining=remaining, delta=cmd.delta_ms, reason=cmd.reason,
                         break_until=lc.current.break_until_ms if r.on_break else None)
    if isinstance(cmd, SetClockLevel):
        if not 1 <= cmd.level <= len(minutes):
            raise BadCommand(f"level must be between 1 and {len(minutes)}", field="level")
        return _snapshot(LevelClockLevelSet, r, cmd, level=cmd.level, remaining=_minutes(minutes, cmd.level) * MINUTE,
                         break_until=lc.current.break_until_ms if r.on_break else None)
    if isinstance(cmd, StartBreak):
        # A break stops the level; when it is over the level runs again by itself.
        return _snapshot(BreakStarted, r, cmd, running=True, break_until=cmd.at_ms + cmd.minutes * MINUTE,
                         reason=cmd.reason)
    if isinstance(cmd, EndBreak):
        if not r.on_break:
            raise IllegalAction("there is no break on", field="type")
        return _snapshot(BreakEnded, r, cmd, running=True)
    raise BadCommand(f"unknown clock command {cmd!r}", field="type")  # pragma: no cover


# -- hand-for-hand --------------------------------------------------------------------------
def hand_for_hand(lc: LevelClock, facts: TableFacts, cmd) -> HandForHandSet | HandForHandReleased:
    """The TD announces hand-for-hand, then releases each hand once every table has finished."""
    need_role(cmd.role, ("td",), "run hand-for-hand play")
    if isinstance(cmd, SetHandForHand):
        if cmd.on == lc.hand_for_hand:
            raise IllegalAction(f"hand-for-hand is already {'on' if cmd.on else 'off'}", field="on")
        return HandForHandSet(on=cmd.on, at_ms=cmd.at_ms, by=cmd.by, role=cmd.role)
    if not lc.hand_for_hand:
        raise IllegalAction("hand-for-hand is off", field="type")
    if lc.released > lc.dealt:
        raise IllegalAction(f"hand-for-hand hand {lc.released} is released and not dealt yet", field="type")
    if facts.in_hand:
        raise IllegalAction("this table is still playing its hand", field="type")
    return HandForHandReleased(round=lc.released + 1, at_ms=cmd.at_ms, by=cmd.by, role=cmd.role)


FROZEN = "hand-for-hand: a called all-in waits for the TD to release it"


def all_in_frozen(lc: LevelClock, facts: TableFacts) -> bool:
    """Rule "Called All-In": during hand-for-hand, once an all-in is called (a player still in
    the hand is all-in and nobody is left to act) the rest of the hand is frozen: no hands
    turned up, no board, until every other table has finished the hand and the TD releases it."""
    return (lc.hand_for_hand and facts.in_hand and facts.all_in and facts.actor is None
            and lc.all_in_released != facts.hand)


def check_frozen(lc: LevelClock, facts: TableFacts) -> None:
    """Refuse the dealer's showdown and board while this table's called all-in is frozen."""
    if all_in_frozen(lc, facts):
        raise IllegalAction(FROZEN, field="type")


def release_all_in(lc: LevelClock, facts: TableFacts, cmd: ReleaseAllIn) -> AllInReleased:
    """The TD (the floor) tells the all-in table to complete its hand."""
    need_role(cmd.role, ("td",), "release a called all-in")
    if not all_in_frozen(lc, facts):
        raise IllegalAction("no called all-in is waiting at this table" if lc.hand_for_hand else "hand-for-hand is off",
                            field="type")
    return AllInReleased(hand=facts.hand, at_ms=cmd.at_ms, by=cmd.by, role=cmd.role)


def hand_for_hand_gate(lc: LevelClock) -> Blocker | None:
    """During hand-for-hand the table deals only a hand the TD has released."""
    if lc.hand_for_hand and lc.released <= lc.dealt:
        return Blocker(None, "", "hand_for_hand",
                       "hand-for-hand: wait for the Tournament Director to release the next hand")
    return None


def apply_level_clock(lc: LevelClock, event) -> LevelClock:
    if isinstance(event, LevelClockEvent):
        anchor = Anchor(event.level, event.remaining_ms, event.running, event.at_ms, event.break_until_ms)
        return replace(lc, anchors=lc.anchors + (anchor,))
    if isinstance(event, HandForHandSet):
        return replace(lc, hand_for_hand=event.on, released=0, dealt=0)
    if isinstance(event, HandForHandReleased):
        return replace(lc, released=event.round)
    if isinstance(event, AllInReleased):
        return replace(lc, all_in_released=event.hand)
    return lc


def hand_dealt(lc: LevelClock, hand: int) -> LevelClock:
    """A deal (a misdeal's re-deal is the same hand and uses no new release)."""
    if hand == lc.last_hand:
        return lc
    return replace(lc, last_hand=hand, dealt=lc.released if lc.hand_for_hand else lc.dealt)
