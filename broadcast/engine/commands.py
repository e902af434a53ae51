"""Commands: what the dealer (or another desk) asks the core to record.

A command arrives as JSON. ``parse_command`` turns it into a frozen value or refuses
naming the field. The client-chosen ``id`` is handled by the journal, not here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .cards import parse_cards
from .errors import BadCommand

BETTING_ACTIONS = ("fold", "check", "call", "bet", "raise", "allin")


@dataclass(frozen=True)
class StartHand:
    """Shuffle up and deal. ``button`` is only for the first hand (the draw for the button)."""

    button: int | None = None


@dataclass(frozen=True)
class SetHoleCards:
    seat: int
    cards: tuple[str, ...]
    source: str = "dealer"


@dataclass(frozen=True)
class DealBoard:
    cards: tuple[str, ...]


@dataclass(frozen=True)
class Act:
    seat: int
    action: str
    amount: int | None = None
    out_of_turn: bool = False  # the dealer confirms it physically happened out of turn


@dataclass(frozen=True)
class PushChips:
    """What physically happened: the chips a seat pushed out and what was declared."""

    seat: int
    chips: tuple[int, ...]
    declared: str = ""
    amount: int | None = None


@dataclass(frozen=True)
class Conditional:
    """A conditional statement ("if you bet, I raise"): recorded and flagged for the floor."""

    seat: int
    text: str


@dataclass(frozen=True)
class Misdeal:
    """The floor declares a misdeal (boxed cards, wrong seat dealt, incorrect button...)."""

    reason: str


@dataclass(frozen=True)
class IssuePenalty:
    """The floor issues a penalty to a player (stable id)."""

    player: str
    kind: str
    count: int
    reason: str
    rule: str = ""


@dataclass(frozen=True)
class KillHand:
    """The floor kills a seat's hand (it folds when its turn comes)."""

    seat: int
    reason: str


@dataclass(frozen=True)
class Muck:
    """At showdown, the seat throws its cards away instead of tabling them."""

    seat: int


@dataclass(frozen=True)
class DeclareWinner:
    """At a showdown whose cards the camera could not read, the dealer (or the secure card
    room) enters who won instead: the other hands still to show are mucked, and the winner,
    the only hand left, need not show (rule "Winning hand")."""

    seat: int


@dataclass(frozen=True)
class Undo:
    reason: str = ""


@dataclass(frozen=True)
class SetLevel:
    level: int


SEATING_REASONS = ("late_entry", "re_entry", "alternate", "table_move", "redraw")


@dataclass(frozen=True)
class SeatPlayer:
    """Between hands, a player takes an empty seat with ``stack`` chips."""

    seat: int
    player: str
    name: str
    country: str
    stack: int
    reason: str
    # The player's penalty record from other tables and days (the field's penalty register,
    # attached by the core, never by a client): penalties move with the player's id.
    carried: tuple = ()  # of Penalty
    carried_hands: int = 0  # hands still to sit out
    carried_from: str = ""  # the table that last kept the record


@dataclass(frozen=True)
class SetPlace:
    """The TD sets an eliminated player's finishing place (a tie across tables, a correction)."""

    player: str
    place: int
    tied: int
    reason: str


@dataclass(frozen=True)
class MovePlayer:
    """Between hands, a seated player moves to an empty seat at this table."""

    player: str
    seat: int
    reason: str


@dataclass(frozen=True)
class RemovePlayer:
    """Between hands, a player leaves the table: with the chips (moved to another table)
    or with the chips removed from play."""

    player: str
    reason: str
    chips_removed: bool = False


@dataclass(frozen=True)
class ChipCount:
    """Between hands (at a break), the floor's count of a player's chips replaces the
    recorded stack: a correcting event, audited with its reason."""

    player: str
    stack: int
    reason: str


@dataclass(frozen=True)
class DisplayName:
    """The name shown for a player (on air and on every screen); the stable id stays."""

    player: str
    name: str


@dataclass(frozen=True)
class DrawButton:
    """Rule "Button": a draw for the button (restart, redraw, final table); the blinds then
    follow from this seat as on a first hand."""

    seat: int


@dataclass(frozen=True)
class Away:
    """Rule "At Your Seat": the seat was not within reach of the chair when the last card
    reached the button, so its hand is dead."""

    seat: int


@dataclass(frozen=True)
class FourCardFlop:
    """Four cards came off for the flop. ``burn`` is the one the floor drew at random;
    or ``draw`` (0-3), the adapter's random pick among the four as entered."""

    cards: tuple[str, ...]
    burn: str | None = None
    draw: int | None = None


@dataclass(frozen=True)
class HiddenChips:
    """Rule "All-In with Hidden Chips": chips found behind a seat's acknowledged all-in."""

    seat: int
    amount: int


@dataclass(frozen=True)
class RefuseToShow:
    """Rule "Refusal to Show": the seat at showdown will not table its cards. The floor
    starts a five-second countdown; ``over`` says the countdown ran out (the adapter's timer
    or the floor), and the hand is then dead with a penalty for stalling."""

    seat: int
    over: bool = False


@dataclass(frozen=True)
class HoldForReview:
    """The dealer holds these seats' cards aside for the floor to review."""

    seats: tuple[int, ...]
    reason: str


Command = (StartHand | SetHoleCards | DealBoard | Act | PushChips | Conditional | Misdeal | IssuePenalty | KillHand | Muck
           | Undo | SetLevel | SeatPlayer | MovePlayer | RemovePlayer | Away | FourCardFlop | HoldForReview | RefuseToShow
           | HiddenChips | ChipCount | DisplayName | DrawButton | DeclareWinner)

COMMAND_TYPES = ("start_hand", "hole_cards", "board", *BETTING_ACTIONS, "muck", "chips", "conditional", "misdeal", "penalty",
                 "kill_hand", "undo", "set_level", "seat_player", "move_player", "remove_player", "away", "four_card_flop",
                 "hold_for_review", "refuse_to_show", "show_countdown_over", "hidden_chips",
                 "chip_count", "display_name", "draw_button", "winner", "place")

# Which desk enters which command (DESIGN.md's matrix): the dealer, the tournament
# director's floor, or both. The secure card room also enters hole cards.
TD_ONLY = frozenset({"place", "set_level", "penalty", "kill_hand", "seat_player", "move_player", "remove_player", "chip_count",
                     "display_name", "draw_button"})
# The graphics operator's manual overrides (audited correcting events, as the TD's are).
GRAPHICS_OVERRIDES = frozenset({"chip_count", "display_name"})
DEALER_AND_TD = frozenset({"misdeal", "four_card_flop", "hold_for_review", "away", "refuse_to_show", "show_countdown_over",
                           "hidden_chips", "winner"})


def whole_number(value: Any, *, signed: bool = False) -> int | None:
    """An int, or a text of digits as a dealer types it ("1,200"); None for anything else:
    a bool, "²" (a digit to Python, not to a dealer), or more than 15 digits."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    text = value.replace(",", "").strip() if isinstance(value, str) else ""
    digits = text[1:] if signed and text.startswith("-") else text
    return int(text) if digits.isascii() and digits.isdigit() and len(digits) <= 15 else None


def _int(data: dict, key: str, *, required: bool = True, minimum: int = 0) -> int | None:
    value = data.get(key)
    if value is None:
        if required:
            raise BadCommand(f"{key} is required", field=key)
        return None
    value = whole_number(value)
    if value is None:
        raise BadCommand(f"{key} must be a whole number", field=key)
    if value < minimum:
        raise BadCommand(f"{key} must be at least {minimum}", field=key)
    return value


def _text(data: dict, key: str, why: str, *, limit: int = 200) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value.strip():
        raise BadCommand(f"{key} {why}", field=key)
    return value.strip()[:limit]


def carried_record(raw: Any) -> tuple[tuple, int, str]:
    """The register's record of a player (``{"table", "penalties", "hands_left"}``), or nothing."""
    from .penalties import Penalty, check_penalty

    if not raw:
        return (), 0, ""
    if not isinstance(raw, dict) or not isinstance(raw.get("penalties", []), list):
        raise BadCommand("carried must be the penalty register's record of the player", field="carried")
    penalties = []
    for p in raw.get("penalties", []):
        try:
            penalty = Penalty(str(p["player"]), str(p["kind"]), int(p["count"]), str(p["reason"]), str(p["rule"]),
                              str(p["issued_by"]))
            check_penalty(penalty.kind, penalty.count)
        except (KeyError, TypeError, ValueError) as exc:
            raise BadCommand("carried holds a penalty that is not one", field="carried") from exc
        penalties.append(penalty)
    hands = raw.get("hands_left", 0)
    if isinstance(hands, bool) or not isinstance(hands, int) or hands < 0:
        raise BadCommand("carried.hands_left must be a whole number of hands", field="carried")
    return tuple(penalties), hands, str(raw.get("table", ""))[:64]


def _seating(kind: str, data: dict) -> Command:
    if kind == "seat_player":
        reason = data.get("reason", "late_entry")
        if reason not in SEATING_REASONS:
            raise BadCommand(f"reason must be one of {', '.join(SEATING_REASONS)}", field="reason")
        seat = _int(data, "seat", minimum=1)
        if seat > 10:  # type: ignore[operator]
            raise BadCommand("seat must be between 1 and 10", field="seat")
        country = data.get("country", "")
        if not isinstance(country, str) or len(country) > 3:
            raise BadCommand("country must be a short country code such as GB", field="country")
        carried, hands, source = carried_record(data.get("carried"))
        return SeatPlayer(seat=seat, player=_text(data, "player", "is the player's stable id", limit=64),  # type: ignore[arg-type]
                          name=_text(data, "name", "is the name on air", limit=64), country=country.upper(),
                          stack=_int(data, "stack", minimum=1), reason=reason,  # type: ignore[arg-type]
                          carried=carried, carried_hands=hands, carried_from=source)
    if kind == "move_player":
        seat = _int(data, "seat", minimum=1)
        if seat > 10:  # type: ignore[operator]
            raise BadCommand("seat must be between 1 and 10", field="seat")
        return MovePlayer(player=_text(data, "player", "is the player's stable id", limit=64), seat=seat,  # type: ignore[arg-type]
                          reason=str(data.get("reason") or "seat change")[:200])
    removed = data.get("chips_removed", False)
    if not isinstance(removed, bool):
        raise BadCommand("chips_removed must be true or false", field="chips_removed")
    return RemovePlayer(player=_text(data, "player", "is the player's stable id", limit=64),
                        reason=_text(data, "reason", "must say why, e.g. 'moved to table 7'"), chips_removed=removed)


def parse_command(data: Any, *, hole_card_count: int = 2) -> Command:
    """Turn a command's JSON into a value, or raise ``BadCommand`` naming the field."""
    if not isinstance(data, dict):
        raise BadCommand("a command must be a JSON object", field="command")
    kind = data.get("type")
    if kind not in COMMAND_TYPES:
        raise BadCommand(f"type must be one of {', '.join(COMMAND_TYPES)}", field="type")
    if kind == "start_hand":
        return StartHand(button=_int(data, "button", required=False, minimum=1))
    if kind in ("seat_player", "move_player", "remove_player"):
        return _seating(kind, data)
    if kind == "place":
        return SetPlace(player=_text(data, "player", "is the eliminated player's stable id", limit=64),
                        place=_int(data, "place", minimum=1), tied=_int(data, "tied", required=False, minimum=1) or 1,  # type: ignore[arg-type]
                        reason=_text(data, "reason", "must say why, e.g. 'tie: same hand-for-hand hand at tables 3 and 7'"))
    if kind == "away":
        return Away(seat=_int(data, "seat", minimum=1))  # type: ignore[arg-type]
    if kind == "four_card_flop":
        cards = parse_cards(data.get("cards"), field="cards", count=4, allow_unknown=False)
        burn = data.get("burn")
        if burn is not None:
            (burn,) = parse_cards([burn], field="burn", count=1, allow_unknown=False)
            if burn not in cards:
                raise BadCommand("burn must be one of the four cards", field="burn")
        draw = _int(data, "draw", required=False)
        if draw is not None and draw > 3:
            raise BadCommand("draw must be 0, 1, 2 or 3 (which of the four cards is the burn)", field="draw")
        if burn is None and draw is None:
            raise BadCommand("burn is required: the card the floor drew as the burn", field="burn")
        return FourCardFlop(cards=cards, burn=burn, draw=draw)
    if kind == "chip_count":
        return ChipCount(player=_text(data, "player", "is the player's stable id", limit=64),
                         stack=_int(data, "stack", minimum=0),  # type: ignore[arg-type]
                         reason=_text(data, "reason", "must say why, e.g. 'chip count at the break'"))
    if kind == "display_name":
        return DisplayName(player=_text(data, "player", "is the player's stable id", limit=64),
                           name=_text(data, "name", "is the name to show", limit=64))
    if kind == "draw_button":
        seat = _int(data, "seat", minimum=1)
        if seat > 10:  # type: ignore[operator]
            raise BadCommand("seat must be between 1 and 10", field="seat")
        return DrawButton(seat=seat)  # type: ignore[arg-type]
    if kind == "hidden_chips":
        return HiddenChips(seat=_int(data, "seat", minimum=1), amount=_int(data, "amount", minimum=1))  # type: ignore[arg-type]
    if kind in ("refuse_to_show", "show_countdown_over"):
        return RefuseToShow(seat=_int(data, "seat", minimum=1), over=kind == "show_countdown_over")  # type: ignore[arg-type]
    if kind == "hold_for_review":
        seats = data.get("seats")
        if (not isinstance(seats, list) or not seats
                or any(isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 10 for n in seats)):
            raise BadCommand("seats must list the seats (1-10) whose cards are held", field="seats")
        return HoldForReview(seats=tuple(sorted(set(seats))), reason=_text(data, "reason", "must say why, e.g. 'collusion concern'"))
    if kind == "hole_cards":
        seat = _int(data, "seat", minimum=1)
        cards = parse_cards(data.get("cards"), field="cards", count=hole_card_count)
        source = data.get("source", "dealer")
        if not isinstance(source, str) or not source:
            raise BadCommand("source must be a name such as dealer, camera or secure", field="source")
        return SetHoleCards(seat=seat, cards=cards, source=source)
    if kind == "board":
        return DealBoard(cards=parse_cards(data.get("cards"), field="cards", count=(1, 3), allow_unknown=False))
    if kind == "undo":
        reason = data.get("reason", "")
        if not isinstance(reason, str):
            raise BadCommand("reason must be text", field="reason")
        return Undo(reason=reason[:200])
    if kind == "chips":
        seat = _int(data, "seat", minimum=1)
        pushed = data.get("chips", [])
        if not isinstance(pushed, list) or any(isinstance(c, bool) or not isinstance(c, int) or c <= 0 for c in pushed):
            raise BadCommand("chips must be a list of the chip values pushed out, e.g. [1000, 1000]", field="chips")
        declared = data.get("declared", "") or ""
        if declared not in ("", "call", "raise", "bet", "allin"):
            raise BadCommand("declared must be one of call, raise, bet, allin, or left out", field="declared")
        return PushChips(seat=seat, chips=tuple(pushed), declared=declared,
                         amount=_int(data, "amount", required=False, minimum=1))
    if kind == "conditional":
        seat = _int(data, "seat", minimum=1)
        text = data.get("text")
        if not isinstance(text, str) or not text.strip():
            raise BadCommand("text must say what the player said", field="text")
        return Conditional(seat=seat, text=text.strip()[:300])
    if kind == "kill_hand":
        seat = _int(data, "seat", minimum=1)
        reason = data.get("reason")
        if not isinstance(reason, str) or not reason.strip():
            raise BadCommand("reason must say why the floor killed the hand", field="reason")
        return KillHand(seat=seat, reason=reason.strip()[:200])
    if kind == "misdeal":
        reason = data.get("reason")
        if not isinstance(reason, str) or not reason.strip():
            raise BadCommand("reason must say why, e.g. 'two boxed cards' or 'incorrect button'", field="reason")
        return Misdeal(reason=reason.strip()[:200])
    if kind == "penalty":
        texts = {}
        for key in ("player", "kind", "reason"):
            value = data.get(key)
            if not isinstance(value, str) or not value.strip():
                raise BadCommand(f"{key} is required", field=key)
            texts[key] = value.strip()[:200]
        rule = data.get("rule", "")
        if not isinstance(rule, str):
            raise BadCommand("rule must be text naming the rule", field="rule")
        return IssuePenalty(player=texts["player"], kind=texts["kind"], count=_int(data, "count", required=False) or 0,
                            reason=texts["reason"], rule=rule.strip()[:100])
    if kind == "set_level":
        return SetLevel(level=_int(data, "level", minimum=1))
    if kind == "winner":
        return DeclareWinner(seat=_int(data, "seat", minimum=1))  # type: ignore[arg-type]
    if kind == "muck":
        return Muck(seat=_int(data, "seat", minimum=1))
    seat = _int(data, "seat", minimum=1)
    amount = _int(data, "amount", required=kind in ("bet", "raise"), minimum=1)
    out_of_turn = data.get("out_of_turn", False)
    if not isinstance(out_of_turn, bool):
        raise BadCommand("out_of_turn must be true or false", field="out_of_turn")
    return Act(seat=seat, action=kind, amount=amount, out_of_turn=out_of_turn)
