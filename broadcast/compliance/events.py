"""The compliance events: what a rep, the TD, the dealer or the camera made happen.

They journal alongside the hand events (same table, same journal, same envelope), so
they are frozen values built on the engine's ``Event`` (``type`` and ``to_dict()``).
Every decision carries ``by`` (the person), ``role`` and ``at_ms`` (the adapter's time),
which is the audit trail: who, when and, in ``reason``, why.

No event here has a field for a card. "Cards shown" is a fact about a seat, not a card.
``event_from_dict`` rebuilds compliance events and hands anything else to the engine's
registry, so one journal replays through one function.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar

from broadcast.engine import events as engine_events
from broadcast.engine.events import Event


@dataclass(frozen=True, kw_only=True)
class Decision(Event):
    """A compliance event someone decided: the audit fields come last, by keyword."""

    type: ClassVar[str] = "Decision"
    at_ms: int = 0
    by: str = ""
    role: str = ""


# -- violations -> the penalty ledger -------------------------------------------------------
@dataclass(frozen=True)
class ViolationRecorded(Decision):
    """A rule was broken. ``proposed``/``count`` is what the ledger's ladder proposes."""

    type: ClassVar[str] = "ViolationRecorded"
    violation: int  # its number, 1, 2, ...
    player: str
    code: str  # e.g. device_at_tv_table, profanity
    rule: str  # the rule book's section
    proposed: str  # a penalty kind from broadcast.engine.penalties.KINDS
    count: int = 0
    consequence: str = ""  # what the rule book says follows, e.g. monies forfeited
    seat: int | None = None
    hand: int | None = None
    note: str = ""


@dataclass(frozen=True)
class ViolationRuled(Decision):
    """The floor or the TD decided: the proposal confirmed, or another penalty (or none), with a reason."""

    type: ClassVar[str] = "ViolationRuled"
    violation: int
    player: str
    kind: str  # a penalty kind, or "no_penalty"
    count: int = 0
    confirmed: bool = True
    reason: str = ""


# -- devices --------------------------------------------------------------------------------
@dataclass(frozen=True)
class DevicesSurrendered(Decision):
    type: ClassVar[str] = "DevicesSurrendered"
    player: str
    items: tuple[str, ...]  # empty: the player declared carrying none
    rep: str  # the appointed representative who took them
    bag: str = ""  # bag or locker number


@dataclass(frozen=True)
class DevicesReturned(Decision):
    type: ClassVar[str] = "DevicesReturned"
    player: str
    rep: str


@dataclass(frozen=True)
class DeviceGateOverridden(Decision):
    """A rep let a seat be dealt in without a recorded surrender; the reason is audited."""

    type: ClassVar[str] = "DeviceGateOverridden"
    player: str
    reason: str


@dataclass(frozen=True)
class DeviceFound(Decision):
    type: ClassVar[str] = "DeviceFound"
    player: str
    item: str
    seat: int | None = None
    hand: int | None = None
    note: str = ""


# -- cards to the camera --------------------------------------------------------------------
@dataclass(frozen=True)
class HoleCardsShown(Decision):
    """A seat showed its hole cards to the camera (``camera``) or a rep saw it (``rep``)."""

    type: ClassVar[str] = "HoleCardsShown"
    hand: int
    seat: int
    source: str = "camera"


@dataclass(frozen=True)
class PlayingBlind(Decision):
    """The player declared the hand blind: on air as "playing blind"; no cards to show."""

    type: ClassVar[str] = "PlayingBlind"
    hand: int
    seat: int
    label: str = "playing blind"


@dataclass(frozen=True)
class HaltRaised(Decision):
    """HALT PLAY for a seat whose cards the camera has not had."""

    type: ClassVar[str] = "HaltRaised"
    hand: int
    seat: int
    message: str


@dataclass(frozen=True)
class HaltCleared(Decision):
    type: ClassVar[str] = "HaltCleared"
    hand: int
    seat: int
    cause: str  # shown, blind or rep
    reason: str = ""


@dataclass(frozen=True)
class HaltIgnored(Decision):
    """An action was entered while HALT PLAY stood: it happened, so it is recorded."""

    type: ClassVar[str] = "HaltIgnored"
    hand: int
    seat: int  # the seat that acted
    halted: tuple[int, ...]  # the seats under HALT PLAY at the time


@dataclass(frozen=True)
class CameraCheckRaised(Decision):
    """The card reader needs a look at a seat (a duplicate or impossible read). Which card: secure only."""

    type: ClassVar[str] = "CameraCheckRaised"
    alert: int
    hand: int
    seats: tuple[int, ...]
    board: bool = False
    message: str = ""


@dataclass(frozen=True)
class CameraCheckCleared(Decision):
    type: ClassVar[str] = "CameraCheckCleared"
    alert: int
    reason: str = ""


# -- conduct, breaks, deals -----------------------------------------------------------------
@dataclass(frozen=True)
class EscortCheckedOut(Decision):
    type: ClassVar[str] = "EscortCheckedOut"
    player: str
    escort: str
    where: str = ""


@dataclass(frozen=True)
class EscortCheckedIn(Decision):
    type: ClassVar[str] = "EscortCheckedIn"
    player: str
    escort: str
    out_ms: int = 0


@dataclass(frozen=True)
class DealTalkOpened(Decision):
    type: ClassVar[str] = "DealTalkOpened"
    rep: str  # the appointed representative present


@dataclass(frozen=True)
class DealReported(Decision):
    """A deal, for the feed: "All deals will be reported to media"."""

    type: ClassVar[str] = "DealReported"
    rep: str
    text: str
    payouts: tuple[tuple[str, int], ...] = ()  # (player, amount)


@dataclass(frozen=True)
class DealTalkClosed(Decision):
    type: ClassVar[str] = "DealTalkClosed"
    rep: str
    outcome: str  # deal or no_deal


# -- branding -------------------------------------------------------------------------------
@dataclass(frozen=True)
class Logo:
    company: str
    place: str  # breast_pocket, sleeve, cap, card_protector, other
    width_cm: float = 0.0
    height_cm: float = 0.0
    visible: bool = True

    @property
    def area(self) -> float:
        return self.width_cm * self.height_cm


@dataclass(frozen=True)
class LogosInspected(Decision):
    """What a rep saw the player wearing or carrying (empty: no logos)."""

    type: ClassVar[str] = "LogosInspected"
    player: str
    logos: tuple[Logo, ...] = ()


@dataclass(frozen=True)
class SponsorDeclared(Decision):
    """On the waiver form before the start, or later with written proof of sponsorship."""

    type: ClassVar[str] = "SponsorDeclared"
    player: str
    company: str
    on_waiver: bool = True
    proof: str = ""


@dataclass(frozen=True)
class EventStarted(Decision):
    """ "Shuffle up and deal" on day one: from now a new sponsor needs written proof."""

    type: ClassVar[str] = "EventStarted"


@dataclass(frozen=True)
class FinalTableStarted(Decision):
    """The final table began; ``bare`` started it without logos and stays so."""

    type: ClassVar[str] = "FinalTableStarted"
    bare: tuple[str, ...] = ()


@dataclass(frozen=True)
class LogoKeepersDecided(Decision):
    """Who keeps a company's logo when too many wear it (players' decision or high card)."""

    type: ClassVar[str] = "LogoKeepersDecided"
    company: str
    scope: str  # tv_table or field
    keep: tuple[str, ...]
    method: str  # decision or high_card
    draws: tuple[tuple[str, str], ...] = ()  # (player, card drawn) for a high-card draw


# -- clocks ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class ClockCalled(Decision):
    """The floor approved a player's call for the clock on ``seat``."""

    type: ClassVar[str] = "ClockCalled"
    hand: int
    seat: int
    seconds: int  # the time limit
    countdown: int  # then the countdown
    approved_by: str
    reason: str = ""  # why shortened (deliberate stalling)


@dataclass(frozen=True)
class ClockAnswered(Decision):
    type: ClassVar[str] = "ClockAnswered"
    hand: int
    seat: int
    tie: bool = False  # acted as the countdown ran out: goes to the player


@dataclass(frozen=True)
class ClockExpired(Decision):
    """The countdown ran out: the hand is dead."""

    type: ClassVar[str] = "ClockExpired"
    hand: int
    seat: int


@dataclass(frozen=True)
class ClockCancelled(Decision):
    type: ClassVar[str] = "ClockCancelled"
    hand: int
    seat: int
    reason: str = ""


@dataclass(frozen=True)
class LevelClockEvent(Decision):
    """The level clock after a TD's input: enough to compute it at any later time."""

    type: ClassVar[str] = "LevelClockEvent"
    level: int
    remaining_ms: int  # left in the level at ``at_ms``
    running: bool
    break_until_ms: int | None = None
    delta_ms: int = 0
    reason: str = ""


@dataclass(frozen=True)
class LevelClockStarted(LevelClockEvent):
    type: ClassVar[str] = "LevelClockStarted"


@dataclass(frozen=True)
class LevelClockPaused(LevelClockEvent):
    type: ClassVar[str] = "LevelClockPaused"


@dataclass(frozen=True)
class LevelClockResumed(LevelClockEvent):
    type: ClassVar[str] = "LevelClockResumed"


@dataclass(frozen=True)
class LevelClockAdjusted(LevelClockEvent):
    type: ClassVar[str] = "LevelClockAdjusted"


@dataclass(frozen=True)
class LevelClockLevelSet(LevelClockEvent):
    type: ClassVar[str] = "LevelClockLevelSet"


@dataclass(frozen=True)
class BreakStarted(LevelClockEvent):
    type: ClassVar[str] = "BreakStarted"


@dataclass(frozen=True)
class BreakEnded(LevelClockEvent):
    type: ClassVar[str] = "BreakEnded"


@dataclass(frozen=True)
class HandForHandSet(Decision):
    type: ClassVar[str] = "HandForHandSet"
    on: bool


@dataclass(frozen=True)
class HandForHandReleased(Decision):
    """Every table finished the last hand: deal one more (hand-for-hand round ``round``)."""

    type: ClassVar[str] = "HandForHandReleased"
    round: int


@dataclass(frozen=True)
class AllInReleased(Decision):
    """Hand-for-hand, rule "Called All-In": every other table has finished the hand, and the
    floor tells this table to complete its called all-in (turn the hands up, deal the board)."""

    type: ClassVar[str] = "AllInReleased"
    hand: int


# -- field data -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Payout:
    first: int  # places first..last pay amount each
    last: int
    amount: int


@dataclass(frozen=True)
class FieldDataSet(Decision):
    type: ClassVar[str] = "FieldDataSet"
    entries: int
    players_left: int
    chips_in_play: int = 0
    prize_pool: int = 0
    payouts: tuple[Payout, ...] = ()
    wearers: tuple[tuple[str, int], ...] = ()  # (company, players in the field wearing its logo)


@dataclass(frozen=True)
class AlertAcknowledged(Decision):
    """A rep or the TD has seen an alert (HALT PLAY, a camera check, a violation); it stays open."""

    type: ClassVar[str] = "AlertAcknowledged"
    alert: str  # halt:<hand>:<seat>, camera:<alert>, violation:<n>
    what: str = ""  # the alert as the rep read it (never a card)
    note: str = ""


COMPLIANCE_EVENTS: tuple[type[Event], ...] = (
    ViolationRecorded, ViolationRuled,
    DevicesSurrendered, DevicesReturned, DeviceGateOverridden, DeviceFound,
    HoleCardsShown, PlayingBlind, HaltRaised, HaltCleared, HaltIgnored, CameraCheckRaised, CameraCheckCleared,
    EscortCheckedOut, EscortCheckedIn, DealTalkOpened, DealReported, DealTalkClosed,
    LogosInspected, SponsorDeclared, EventStarted, FinalTableStarted, LogoKeepersDecided,
    ClockCalled, ClockAnswered, ClockExpired, ClockCancelled,
    LevelClockStarted, LevelClockPaused, LevelClockResumed, LevelClockAdjusted, LevelClockLevelSet,
    BreakStarted, BreakEnded, HandForHandSet, HandForHandReleased, AllInReleased,
    FieldDataSet, AlertAcknowledged,
)
EVENT_TYPES: dict[str, type[Event]] = {cls.type: cls for cls in COMPLIANCE_EVENTS}
assert not set(EVENT_TYPES) & set(engine_events.EVENT_TYPES), "compliance and engine event names must differ"


def _tuples(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_tuples(v) for v in value)
    return value


def event_from_dict(data: dict[str, Any]) -> Event:
    """Rebuild a compliance event, or an engine event, from its wire form (journal replay)."""
    cls = EVENT_TYPES.get(data.get("type", ""))
    if cls is None:
        return engine_events.event_from_dict(data)
    kwargs = {}
    for f in dataclasses.fields(cls):
        if f.name not in data:
            continue
        value = data[f.name]
        if f.name == "logos":
            value = tuple(Logo(**lg) for lg in value)
        elif f.name == "payouts" and cls is FieldDataSet:
            value = tuple(Payout(**p) for p in value)
        else:
            value = _tuples(value)
        kwargs[f.name] = value
    return cls(**kwargs)
