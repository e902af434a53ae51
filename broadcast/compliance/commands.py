"""Compliance commands: what a rep, the TD, the dealer or the camera asks the core to record.

``parse_command(data, by=..., role=..., at_ms=...)`` turns a command's JSON into a frozen
value or raises ``BadCommand`` naming the field. ``by`` (the person), ``role`` and
``at_ms`` (the server's time) come from the adapter, never from the JSON: the audit log
must not be typed in by the client.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from broadcast.engine.cards import parse_card
from broadcast.engine.commands import whole_number
from broadcast.engine.errors import BadCommand

from .events import Logo, Payout

PLACES = ("breast_pocket", "sleeve", "cap", "card_protector", "other")


@dataclass(frozen=True, kw_only=True)
class Cmd:
    by: str = ""
    role: str = ""
    at_ms: int = 0


# devices
@dataclass(frozen=True)
class SurrenderDevices(Cmd):
    player: str
    items: tuple[str, ...] = ()  # empty: the player declares carrying none
    bag: str = ""
    rep: str = ""  # the rep who took them; defaults to ``by``


@dataclass(frozen=True)
class ReturnDevices(Cmd):
    player: str


@dataclass(frozen=True)
class OverrideDeviceGate(Cmd):
    player: str
    reason: str


@dataclass(frozen=True)
class ReportDevice(Cmd):
    player: str
    item: str
    note: str = ""


# cards to the camera
@dataclass(frozen=True)
class ConfirmCardsShown(Cmd):
    seat: int
    source: str = "camera"  # camera (the HoleCardsShown signal) or rep (seen by a rep)
    hand: int | None = None  # the camera names the hand it saw; None: the current one


@dataclass(frozen=True)
class DeclareBlind(Cmd):
    seat: int


@dataclass(frozen=True)
class ClearHalt(Cmd):
    seat: int
    reason: str


@dataclass(frozen=True)
class RefuseToShow(Cmd):
    seat: int
    note: str = ""


@dataclass(frozen=True)
class CameraCheck(Cmd):
    seats: tuple[int, ...] = ()
    board: bool = False


@dataclass(frozen=True)
class ClearCameraCheck(Cmd):
    alert: int
    reason: str = ""


@dataclass(frozen=True)
class AcknowledgeAlert(Cmd):
    alert: str  # halt:<hand>:<seat>, camera:<alert> or violation:<n> (see ``alerts``)
    note: str = ""


# conduct
@dataclass(frozen=True)
class LogViolation(Cmd):
    player: str
    code: str
    note: str = ""
    about_filming: bool = False  # communication about technical filming issues is allowed


@dataclass(frozen=True)
class RuleOnViolation(Cmd):
    violation: int
    kind: str
    count: int = 0
    reason: str = ""


@dataclass(frozen=True)
class CheckOut(Cmd):
    player: str
    escort: str
    where: str = ""


@dataclass(frozen=True)
class CheckIn(Cmd):
    player: str


@dataclass(frozen=True)
class OpenDealTalk(Cmd):
    rep: str = ""  # the rep present; defaults to ``by``


@dataclass(frozen=True)
class ReportDeal(Cmd):
    text: str
    payouts: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True)
class CloseDealTalk(Cmd):
    outcome: str = "no_deal"


# branding
@dataclass(frozen=True)
class InspectLogos(Cmd):
    player: str
    logos: tuple[Logo, ...] = ()


@dataclass(frozen=True)
class DeclareSponsor(Cmd):
    player: str
    company: str
    on_waiver: bool = True
    proof: str = ""


@dataclass(frozen=True)
class StartEvent(Cmd):
    pass


@dataclass(frozen=True)
class StartFinalTable(Cmd):
    pass


@dataclass(frozen=True)
class DecideLogoKeepers(Cmd):
    company: str
    keep: tuple[str, ...]
    scope: str = "tv_table"


@dataclass(frozen=True)
class HighCardDraw(Cmd):
    company: str
    draws: tuple[tuple[str, str], ...]  # (player, card drawn): the draw itself is made outside the core
    places: int = 2
    scope: str = "tv_table"


# clocks
@dataclass(frozen=True)
class CallClock(Cmd):
    seat: int
    approved_by: str = ""  # the floor person who approved the request; defaults to ``by``
    seconds: int | None = None  # shorter than standard only for deliberate stalling
    countdown: int | None = None
    reason: str = ""


@dataclass(frozen=True)
class ExpireClock(Cmd):
    pass


@dataclass(frozen=True)
class CancelClock(Cmd):
    reason: str = ""


@dataclass(frozen=True)
class StartLevelClock(Cmd):
    level: int = 1
    remaining_ms: int | None = None  # None: the level's full time


@dataclass(frozen=True)
class PauseLevelClock(Cmd):
    reason: str = ""


@dataclass(frozen=True)
class ResumeLevelClock(Cmd):
    pass


@dataclass(frozen=True)
class AdjustLevelClock(Cmd):
    delta_ms: int
    reason: str = ""


@dataclass(frozen=True)
class SetClockLevel(Cmd):
    level: int


@dataclass(frozen=True)
class StartBreak(Cmd):
    minutes: int
    reason: str = ""


@dataclass(frozen=True)
class EndBreak(Cmd):
    pass


@dataclass(frozen=True)
class SetHandForHand(Cmd):
    on: bool


@dataclass(frozen=True)
class ReleaseHandForHand(Cmd):
    pass


@dataclass(frozen=True)
class ReleaseAllIn(Cmd):
    pass


# field data
@dataclass(frozen=True)
class SetFieldData(Cmd):
    entries: int
    players_left: int
    chips_in_play: int = 0
    prize_pool: int = 0
    payouts: tuple[Payout, ...] = ()
    wearers: tuple[tuple[str, int], ...] = ()
    csv: str = ""  # the same, imported from CSV (see ``field.parse_field_csv``)


# -- parsing --------------------------------------------------------------------------------
def _text(required: bool = True, limit: int = 300) -> Callable[[Any, str], str]:
    def parse(value: Any, key: str) -> str:
        if value is None and not required:
            return ""
        if value is not None and not isinstance(value, str):
            raise BadCommand(f"{key} must be text", field=key)
        if value is None or (required and not value.strip()):
            raise BadCommand(f"{key} is required", field=key)
        return value.strip()[:limit]
    return parse


def _int(minimum: int | None = 0, optional: bool = False) -> Callable[[Any, str], int | None]:
    def parse(value: Any, key: str) -> int | None:
        if value is None:
            if optional:
                return None
            raise BadCommand(f"{key} is required", field=key)
        value = whole_number(value, signed=True)
        if value is None:
            raise BadCommand(f"{key} must be a whole number", field=key)
        if minimum is not None and value < minimum:
            raise BadCommand(f"{key} must be at least {minimum:,}", field=key)
        return value
    return parse


def _bool(value: Any, key: str) -> bool:
    if not isinstance(value, bool):
        raise BadCommand(f"{key} must be true or false", field=key)
    return value


def _texts(value: Any, key: str) -> tuple[str, ...]:
    if not isinstance(value, list) or any(not isinstance(v, str) or not v.strip() for v in value):
        raise BadCommand(f"{key} must be a list of names, e.g. [\"phone\", \"smart watch\"]", field=key)
    return tuple(v.strip()[:100] for v in value)


def _seats(value: Any, key: str) -> tuple[int, ...]:
    if not isinstance(value, list) or any(isinstance(v, bool) or not isinstance(v, int) or v < 1 for v in value):
        raise BadCommand(f"{key} must be a list of seat numbers", field=key)
    return tuple(value)


def _logos(value: Any, key: str) -> tuple[Logo, ...]:
    if not isinstance(value, list):
        raise BadCommand(f"{key} must be a list of logos (an empty list: no logos)", field=key)
    logos = []
    for i, item in enumerate(value):
        where = f"{key}[{i}]"
        if not isinstance(item, dict):
            raise BadCommand(f"{where} must have company, place, width_cm and height_cm", field=where)
        company = _text()(item.get("company"), f"{where}.company")
        place = item.get("place")
        if place not in PLACES:
            raise BadCommand(f"{where}.place must be one of {', '.join(PLACES)}", field=f"{where}.place")
        size = []
        for dim in ("width_cm", "height_cm"):
            v = item.get(dim, 0)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0:
                raise BadCommand(f"{where}.{dim} must be a size in centimetres", field=f"{where}.{dim}")
            size.append(float(v))
        visible = item.get("visible", True)
        logos.append(Logo(company, place, size[0], size[1], _bool(visible, f"{where}.visible")))
    return tuple(logos)


def _draws(value: Any, key: str) -> tuple[tuple[str, str], ...]:
    if not isinstance(value, list) or not value:
        raise BadCommand(f"{key} must list each player's drawn card, e.g. [[\"p-ann\", \"Ks\"]]", field=key)
    out = []
    for i, pair in enumerate(value):
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            raise BadCommand(f"{key}[{i}] must be [player, card]", field=f"{key}[{i}]")
        out.append((_text()(pair[0], f"{key}[{i}]"), parse_card(pair[1], field=f"{key}[{i}]", allow_unknown=False)))
    return tuple(out)


def _pairs(value: Any, key: str) -> tuple[tuple[str, int], ...]:
    if not isinstance(value, list):
        raise BadCommand(f"{key} must be a list of [name, number] pairs", field=key)
    out = []
    for i, pair in enumerate(value):
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            raise BadCommand(f"{key}[{i}] must be [name, number]", field=f"{key}[{i}]")
        out.append((_text()(pair[0], f"{key}[{i}]"), _int()(pair[1], f"{key}[{i}]")))
    return tuple(out)


def _payouts(value: Any, key: str) -> tuple[Payout, ...]:
    if not isinstance(value, list):
        raise BadCommand(f"{key} must be a list of {{first, last, amount}}", field=key)
    out = []
    for i, p in enumerate(value):
        where = f"{key}[{i}]"
        if not isinstance(p, dict):
            raise BadCommand(f"{where} must be {{first, last, amount}}", field=where)
        first = _int(1)(p.get("first"), f"{where}.first")
        last = _int(1)(p.get("last", first), f"{where}.last")
        if last < first:
            raise BadCommand(f"{where}.last must not be before first", field=f"{where}.last")
        out.append(Payout(first, last, _int(0)(p.get("amount"), f"{where}.amount")))
    return tuple(out)


_P = {"player": _text(limit=64), "reason": _text(), "note": _text(False), "seat": _int(1), "company": _text(limit=100)}

SPECS: dict[str, tuple[type, dict[str, Callable[[Any, str], Any]], tuple[str, ...]]] = {
    # type: (class, parsers, required keys)
    "surrender_devices": (SurrenderDevices, {"player": _P["player"], "items": _texts, "bag": _text(False, 64),
                                             "rep": _text(False, 100)}, ("player", "items")),
    "return_devices": (ReturnDevices, {"player": _P["player"]}, ("player",)),
    "override_device_gate": (OverrideDeviceGate, {"player": _P["player"], "reason": _P["reason"]}, ("player", "reason")),
    "device_found": (ReportDevice, {"player": _P["player"], "item": _text(limit=100), "note": _P["note"]}, ("player", "item")),
    "cards_shown": (ConfirmCardsShown, {"seat": _P["seat"], "source": _text(), "hand": _int(1, True)}, ("seat",)),
    "declare_blind": (DeclareBlind, {"seat": _P["seat"]}, ("seat",)),
    "clear_halt": (ClearHalt, {"seat": _P["seat"], "reason": _P["reason"]}, ("seat", "reason")),
    "refuse_cards": (RefuseToShow, {"seat": _P["seat"], "note": _P["note"]}, ("seat",)),
    "camera_check": (CameraCheck, {"seats": _seats, "board": _bool}, ()),
    "clear_camera_check": (ClearCameraCheck, {"alert": _int(1), "reason": _text(False)}, ("alert",)),
    "acknowledge_alert": (AcknowledgeAlert, {"alert": _text(limit=64), "note": _P["note"]}, ("alert",)),
    "log_violation": (LogViolation, {"player": _P["player"], "code": _text(limit=64), "note": _P["note"],
                                     "about_filming": _bool}, ("player", "code")),
    "rule_violation": (RuleOnViolation, {"violation": _int(1), "kind": _text(limit=64), "count": _int(0),
                                         "reason": _text(False)}, ("violation", "kind")),
    "escort_out": (CheckOut, {"player": _P["player"], "escort": _text(limit=100), "where": _text(False, 100)},
                   ("player", "escort")),
    "escort_in": (CheckIn, {"player": _P["player"]}, ("player",)),
    "open_deal_talk": (OpenDealTalk, {"rep": _text(False, 100)}, ()),
    "report_deal": (ReportDeal, {"text": _text(limit=1000), "payouts": _pairs}, ("text",)),
    "close_deal_talk": (CloseDealTalk, {"outcome": _text(limit=20)}, ()),
    "inspect_logos": (InspectLogos, {"player": _P["player"], "logos": _logos}, ("player", "logos")),
    "declare_sponsor": (DeclareSponsor, {"player": _P["player"], "company": _P["company"], "on_waiver": _bool,
                                         "proof": _text(False, 300)}, ("player", "company")),
    "start_event": (StartEvent, {}, ()),
    "start_final_table": (StartFinalTable, {}, ()),
    "decide_logo_keepers": (DecideLogoKeepers, {"company": _P["company"], "keep": _texts, "scope": _text(limit=20)},
                            ("company", "keep")),
    "high_card_draw": (HighCardDraw, {"company": _P["company"], "draws": _draws, "places": _int(0),
                                      "scope": _text(limit=20)}, ("company", "draws")),
    "call_clock": (CallClock, {"seat": _P["seat"], "approved_by": _text(False, 100), "seconds": _int(1, True),
                               "countdown": _int(0, True), "reason": _text(False)}, ("seat",)),
    "expire_clock": (ExpireClock, {}, ()),
    "cancel_clock": (CancelClock, {"reason": _text(False)}, ()),
    "level_clock_start": (StartLevelClock, {"level": _int(1), "remaining_ms": _int(1, True)}, ()),
    "level_clock_pause": (PauseLevelClock, {"reason": _text(False)}, ()),
    "level_clock_resume": (ResumeLevelClock, {}, ()),
    "level_clock_adjust": (AdjustLevelClock, {"delta_ms": _int(None), "reason": _text(False)}, ("delta_ms",)),
    "level_clock_set_level": (SetClockLevel, {"level": _int(1)}, ("level",)),
    "break_start": (StartBreak, {"minutes": _int(1), "reason": _text(False)}, ("minutes",)),
    "break_end": (EndBreak, {}, ()),
    "hand_for_hand": (SetHandForHand, {"on": _bool}, ("on",)),
    "hand_for_hand_release": (ReleaseHandForHand, {}, ()),
    "release_all_in": (ReleaseAllIn, {}, ()),
    "field_data": (SetFieldData, {"entries": _int(0), "players_left": _int(0), "chips_in_play": _int(0),
                                  "prize_pool": _int(0), "payouts": _payouts, "wearers": _pairs,
                                  "csv": _text(False, 200_000)}, ()),
}
COMMAND_TYPES = tuple(SPECS)

Command = (SurrenderDevices | ReturnDevices | OverrideDeviceGate | ReportDevice | ConfirmCardsShown | DeclareBlind
           | ClearHalt | RefuseToShow | CameraCheck | ClearCameraCheck | AcknowledgeAlert | LogViolation | RuleOnViolation | CheckOut
           | CheckIn | OpenDealTalk | ReportDeal | CloseDealTalk | InspectLogos | DeclareSponsor | StartEvent
           | StartFinalTable | DecideLogoKeepers | HighCardDraw | CallClock | ExpireClock | CancelClock
           | StartLevelClock | PauseLevelClock | ResumeLevelClock | AdjustLevelClock | SetClockLevel | StartBreak
           | EndBreak | SetHandForHand | ReleaseHandForHand | ReleaseAllIn | SetFieldData)


def parse_command(data: Any, *, by: str, role: str, at_ms: int) -> Command:
    """Turn a compliance command's JSON into a value, or raise ``BadCommand`` naming the field."""
    if not isinstance(data, dict):
        raise BadCommand("a command must be a JSON object", field="command")
    kind = data.get("type")
    if kind not in SPECS:
        raise BadCommand(f"type must be one of {', '.join(COMMAND_TYPES)}", field="type")
    cls, parsers, required = SPECS[kind]
    if kind == "field_data" and not data.get("csv"):
        required = ("entries", "players_left")
    kwargs: dict[str, Any] = {}
    for key, parse in parsers.items():
        if key not in data or data[key] is None:
            if key in required:
                raise BadCommand(f"{key} is required", field=key)
            continue
        kwargs[key] = parse(data[key], key)
    if kind == "field_data" and "csv" in kwargs:
        kwargs.setdefault("entries", 0)
        kwargs.setdefault("players_left", 0)
    return cls(**kwargs, by=by, role=role, at_ms=at_ms)
