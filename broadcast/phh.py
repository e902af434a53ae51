"""PHH (the open Poker Hand History format) <-> the core's commands and events.

Pure: no Redis and no clock (``load`` reads the one file it is given).

Reading (``tvtable replay``)::

    hands = loads(text)                 # one .phh or a .phhs; PhhFileError if unreadable
    result = replay_hand(hands[0])      # through parse_command/decide/apply; ReplayError if refused
    result["finishing_stacks"]          # in the file's player order

A PHH hand is played as one hand at a fresh table: the players sit at seats 1..n
(or at the file's ``seats`` when they go round the table in PHH order), the button is
the last player, and every action becomes the command a dealer would key
(``p2 cbr 900`` -> ``{"type": "raise", "seat": 2, "amount": 900}``).

Writing (``tvtable export``) is ``broadcast.phh_write``.

Rehearsal (``tvtable demo --script``) can feed a live core the same way: ``fit`` the hand,
seat it with ``table_opened``, then for each action ``action_commands(state, setup, action)``
gives the commands to submit, and ``parse_timecode`` reads an action's ``# hh:mm:ss.mmm``.

The core's model is small blind + big blind + big-blind ante (paid by the big blind,
PokerKit's ``{1: ante}`` without ante trimming), NLHE (``NT``) or PLO (``PO``). A hand
outside it is refused naming what does not fit (``fit``).
"""

from __future__ import annotations

import datetime as _dt
import re
import tomllib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from .engine.cards import UNKNOWN, parse_card
from .engine.commands import parse_command
from .engine.errors import Refusal, chips
from .engine.events import BlindLevel, Event, HandEnded, SeatedPlayer, TableOpened
from .engine.table import TableState, apply, decide

VARIANTS = {"NT": "nlhe", "PO": "plo"}  # PHH variant code -> our game
VARIANT_CODES = {game: code for code, game in VARIANTS.items()}
GAME_NAMES = {"nlhe": "No-limit hold'em", "plo": "Pot-limit Omaha"}
MAX_SEATS = 10
REQUIRED = ("variant", "antes", "blinds_or_straddles", "min_bet", "starting_stacks", "actions")
_TIMECODE = re.compile(r"^(\d{1,2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?$")


# -- errors -------------------------------------------------------------------------------
class PhhFileError(Exception):
    """The file is not readable PHH (``tvtable replay`` exits 2)."""


class ReplayError(Exception):
    """A hand that cannot be replayed; names the hand and, when there is one, the action."""

    def __init__(self, hand: int, reason: str, *, action: int | None = None, text: str | None = None) -> None:
        self.hand = hand
        self.reason = reason
        self.action = action
        self.text = text
        where = f"hand {hand}"
        if action is not None:
            where += f", action {action} {text!r}" if text is not None else f", action {action}"
        super().__init__(f"{where}: {reason}")


# -- reading ------------------------------------------------------------------------------
@dataclass(frozen=True)
class PhhHand:
    """One hand of a PHH file, as written (TOML fields), with its place in the file."""

    number: int  # 1-based position in the file
    key: str | None  # the section name in a .phhs ([1], [2], ...), None in a .phh
    fields: dict[str, Any]

    @property
    def name(self) -> str:
        """The hand's own name: its ``hand`` field, else its section, else its position."""
        value = self.fields.get("hand")
        if value is not None:
            return str(value)
        return self.key if self.key is not None else str(self.number)

    @property
    def actions(self) -> list[str]:
        return list(self.fields["actions"])


def loads(text: str) -> list[PhhHand]:
    """Parse one PHH hand (.phh) or several (.phhs, one TOML table per hand)."""
    try:
        data = tomllib.loads(text, parse_float=Decimal)
    except tomllib.TOMLDecodeError as exc:
        raise PhhFileError(f"not valid PHH (TOML): {exc}") from None
    if "variant" in data or "actions" in data:
        hands = [PhhHand(1, None, data)]
    else:
        tables = [(k, v) for k, v in data.items() if isinstance(v, dict)]
        if not tables or len(tables) != len(data):
            raise PhhFileError("not a PHH hand (no variant and actions) nor a .phhs of hands ([1], [2], ...)")
        hands = [PhhHand(i, k, v) for i, (k, v) in enumerate(tables, start=1)]
    for hand in hands:
        _check_fields(hand)
    return hands


def load(path) -> list[PhhHand]:
    """Read a .phh or .phhs file (``PhhFileError`` if it cannot be read)."""
    try:
        raw = open(path, "rb").read()
    except OSError as exc:
        raise PhhFileError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise PhhFileError(f"{path} is not UTF-8 text (byte {exc.start})") from None
    return loads(text)


def _check_fields(hand: PhhHand) -> None:
    """The structure PHH requires; a hand that is well-formed but outside our model is ``fit``'s job."""
    f = hand.fields
    where = f"hand {hand.number}" + (f" [{hand.key}]" if hand.key is not None else "")
    missing = [name for name in REQUIRED if name not in f]
    if "variant" in f and f["variant"] not in VARIANTS:
        missing = [m for m in missing if m not in ("blinds_or_straddles", "min_bet")]  # other variants differ
    if missing:
        raise PhhFileError(f"{where}: missing required field{'s' if len(missing) > 1 else ''} {', '.join(missing)}")
    if not isinstance(f["variant"], str):
        raise PhhFileError(f"{where}: variant must be text such as 'NT'")
    stacks = f["starting_stacks"]
    if not isinstance(stacks, list) or not stacks:
        raise PhhFileError(f"{where}: starting_stacks must be a list with one stack per player")
    if not isinstance(f["actions"], list) or not all(isinstance(a, str) for a in f["actions"]):
        raise PhhFileError(f"{where}: actions must be a list of texts like 'p1 cbr 300'")
    for name in ("antes", "blinds_or_straddles"):
        value = f.get(name)
        if isinstance(value, list) and len(value) != len(stacks):
            raise PhhFileError(f"{where}: {name} has {len(value)} entries for {len(stacks)} players")
    for name in ("players", "finishing_stacks", "seats"):
        value = f.get(name)
        if value is not None and (not isinstance(value, list) or len(value) != len(stacks)):
            raise PhhFileError(f"{where}: {name} must list one entry per player ({len(stacks)})")


# -- fitting a hand to the core's model ---------------------------------------------------
@dataclass(frozen=True)
class Setup:
    """A PHH hand expressed in the core's terms."""

    game: str
    seats: tuple[int, ...]  # seat of each player, in the file's player order (button last)
    labels: tuple[str, ...]  # p1, p2, ...
    names: tuple[str, ...]
    stacks: tuple[int, ...]
    small_blind: int
    big_blind: int
    ante: int
    notes: tuple[str, ...] = ()

    @property
    def button(self) -> int:
        return self.seats[-1]

    def seat_of(self, label: str) -> int | None:
        return self.seats[self.labels.index(label)] if label in self.labels else None

    def label_of(self, seat: int) -> str:
        return self.labels[self.seats.index(seat)]


def _whole(value: Any) -> int | None:
    """A chip amount as an int, or None when it is not a whole number."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, Decimal) and value == value.to_integral_value():
        return int(value)
    return None


def _amounts(hand: PhhHand, name: str, value: Any, count: int) -> list[int]:
    values = value if isinstance(value, list) else [value] * count
    out = []
    for v in values:
        n = _whole(v)
        if n is None:
            raise ReplayError(hand.number, f"unsupported: {name} {v} is not a whole number of chips")
        if n < 0:
            raise ReplayError(hand.number, f"unsupported: {name} {v} is negative")
        out.append(n)
    return out


def fit(hand: PhhHand) -> Setup:
    """The hand in the core's model, or ``ReplayError`` saying what does not fit."""
    f = hand.fields
    n = hand.number
    variant = f["variant"]
    if variant not in VARIANTS:
        raise ReplayError(n, f"unsupported: variant {variant!r}; the core plays NT (no-limit hold'em) and PO (pot-limit Omaha)")
    count = len(f["starting_stacks"])
    if not 2 <= count <= MAX_SEATS:
        raise ReplayError(n, f"unsupported: {count} players; a table seats 2 to {MAX_SEATS}")
    stacks = _amounts(hand, "starting stack", f["starting_stacks"], count)
    if any(s <= 0 for s in stacks):
        raise ReplayError(n, "unsupported: a player starts with no chips (the core deals only players with chips)")
    blinds = _amounts(hand, "blind", f["blinds_or_straddles"], count)
    antes = _amounts(hand, "ante", f["antes"], count)
    sb, bb = blinds[0], blinds[1]
    if any(blinds[2:]):
        raise ReplayError(n, f"unsupported: straddles {blinds[2:]}; the core posts a small and a big blind only")
    if bb <= 0 or sb > bb:
        raise ReplayError(n, f"unsupported: blinds {sb}/{bb}; the core needs a big blind at least the small blind")
    ante = 0
    notes: list[str] = []
    if any(antes):
        others = [a for i, a in enumerate(antes) if i != 1]
        if any(others):
            kind = "classic antes (every player)" if len(set(antes)) == 1 else f"antes {antes}"
            raise ReplayError(n, f"unsupported: {kind}; the core takes a big-blind ante only (antes = [0, ante, 0, ...])")
        ante = antes[1]
        if f.get("ante_trimming_status"):
            notes.append("ante_trimming_status = true ignored: a big-blind ante is dead money in the core")
    min_bet = _whole(f["min_bet"])
    if min_bet != bb:
        raise ReplayError(n, f"unsupported: min_bet {f['min_bet']} differs from the big blind {bb}")
    labels = tuple(f"p{i}" for i in range(1, count + 1))
    names = tuple(str(p) for p in f.get("players") or labels)
    seats = _seats(f.get("seats"), count)
    if f.get("seats") is not None and seats != tuple(f["seats"]):
        notes.append(f"seats {f['seats']} do not go round the table in PHH order: seated 1..{count} instead")
    return Setup(VARIANTS[variant], seats, labels, names, tuple(stacks), sb, bb, ante, tuple(notes))


def _seats(value: Any, count: int) -> tuple[int, ...]:
    """The file's seats when they fit the core (1..10, clockwise from the small blind, button last)."""
    default = tuple(range(1, count + 1))
    if not isinstance(value, list) or len(value) != count:
        return default
    if not all(isinstance(s, int) and not isinstance(s, bool) and 1 <= s <= MAX_SEATS for s in value):
        return default
    if len(set(value)) != count:
        return default
    ordered = sorted(value)
    start = ordered.index(value[0])
    return tuple(value) if ordered[start:] + ordered[:start] == list(value) else default


def table_opened(setup: Setup, *, table: str = "phh") -> TableOpened:
    """The event that seats a PHH hand's players at a fresh table."""
    return TableOpened(
        table=table,
        game=setup.game,
        seats=tuple(
            SeatedPlayer(seat, label, name, "", stack)
            for seat, label, name, stack in zip(setup.seats, setup.labels, setup.names, setup.stacks)
        ),
        levels=(BlindLevel(setup.small_blind, setup.big_blind, setup.ante, 0),),
    )


# -- actions -> commands ------------------------------------------------------------------
def split_comment(action: str) -> tuple[str, str | None]:
    """``"p1 cc # 20:14:03.250"`` -> ``("p1 cc", "20:14:03.250")`` (PokerKit's commentary)."""
    if "#" not in action:
        return action.strip(), None
    body, _, comment = action.partition("#")
    return body.strip(), comment.strip() or None


def parse_timecode(comment: str | None) -> _dt.time | None:
    """The ``hh:mm:ss.mmm`` timecode of an action's comment, if it has one."""
    if not comment:
        return None
    m = _TIMECODE.match(comment.split()[0])
    if not m:
        return None
    h, mi, s, frac = m.groups()
    try:
        return _dt.time(int(h), int(mi), int(s), int((frac or "0").ljust(6, "0")))
    except ValueError:
        return None


def _cards(text: str) -> list[str]:
    return [text[i : i + 2] for i in range(0, len(text), 2)]


def action_commands(state: TableState, setup: Setup, action: str) -> list[dict]:
    """The dealer commands for one PHH action at this point of the hand (maybe none).

    ``cc`` is a check or a call and ``cbr`` a bet or a raise depending on the bets out;
    a showdown ``sm`` enters the tabled cards when the core does not know them yet.
    Raises ``ValueError`` naming what cannot be expressed.
    """
    body, _ = split_comment(action)
    words = body.split()
    if not words:
        return []
    hand = state.hand
    count = state.hole_card_count
    if words[0] == "d":
        if len(words) == 4 and words[1] == "dh":
            seat = _seat(setup, words[2])
            cards = _cards(words[3])
            if len(cards) != count or len(words[3]) % 2:
                raise ValueError(f"{words[2]} is dealt {words[3]!r}: {GAME_NAMES[setup.game]} deals {count} hole cards")
            if all(c == UNKNOWN for c in cards):
                return []  # the core deals face down: unknown is what it holds already
            return [{"type": "hole_cards", "seat": seat, "cards": cards, "source": "phh"}]
        if len(words) == 3 and words[1] == "db":
            return [{"type": "board", "cards": _cards(words[2])}]
        raise ValueError("not a dealer action the core knows (d dh pN CARDS or d db CARDS)")
    seat = _seat(setup, words[0])
    verb = words[1] if len(words) > 1 else ""
    if verb == "f" and len(words) == 2:
        return [{"type": "fold", "seat": seat}]
    if verb == "cc" and len(words) == 2:
        owed = hand.to_call(seat) if hand is not None and not hand.ended and seat in hand.seats else 0
        return [{"type": "call" if owed else "check", "seat": seat}]
    if verb == "cbr" and len(words) == 3:
        amount = _whole(_number(words[2]))
        if amount is None:
            raise ValueError(f"{words[2]!r} is not a whole number of chips")
        betting = hand is not None and not hand.ended and max(hand.pk.bets) > 0
        return [{"type": "raise" if betting else "bet", "seat": seat, "amount": amount}]
    if verb == "sm" and len(words) in (2, 3):
        if len(words) == 2:  # "pN sm": mucked. A hand the core has not tabled is mucked there too.
            live = hand is not None and not hand.ended and hand.to_show == seat and not hand.all_in_showdown()
            return [{"type": "muck", "seat": seat}] if live else []
        if words[2] == "-":
            return []  # "show what you have": the core tables known cards by itself
        cards = _cards(words[2])
        if len(cards) != count or all(c == UNKNOWN for c in cards):
            return []
        if hand is None or hand.ended or seat not in hand.seats:
            return []  # the hand is settled; showing afterwards changes nothing
        try:
            shown = tuple(parse_card(c, field="cards") for c in cards)
        except Refusal as exc:
            raise ValueError(exc.reason) from None
        if tuple(hand.hole[hand.index(seat)]) == shown:
            return []  # already known: the core tables it by itself
        return [{"type": "hole_cards", "seat": seat, "cards": cards, "source": "phh"}]
    if verb in ("sd", "pb"):
        raise ValueError("draws and bring-ins are not in the core's games")
    raise ValueError("not a PHH action the core knows (f, cc, cbr AMOUNT, sm CARDS, d dh, d db)")


def _seat(setup: Setup, label: str) -> int:
    seat = setup.seat_of(label)
    if seat is None:
        raise ValueError(f"there is no player {label} (the hand has p1 to p{len(setup.labels)})")
    return seat


def _number(text: str) -> Any:
    try:
        return Decimal(text)
    except ArithmeticError:
        return None


def _run(state: TableState, command: dict) -> tuple[TableState, list[Event]]:
    events = decide(state, parse_command(command, hole_card_count=state.hole_card_count))
    for event in events:
        state = apply(state, event)
    return state, list(events)


# -- replay -------------------------------------------------------------------------------
def replay_hand(hand: PhhHand, *, table: str = "phh") -> dict:
    """Play one PHH hand through the core; the result, in the file's player order.

    ``ReplayError`` names the hand and the action the core refused.
    """
    setup = fit(hand)
    state = apply(TableState(), table_opened(setup, table=table))
    log: list[Event] = []
    state, events = _run(state, {"type": "start_hand", "button": setup.button})
    log += events
    for i, body in _steps(hand, state.hole_card_count):
        try:
            commands = action_commands(state, setup, body)
        except ValueError as exc:
            raise ReplayError(hand.number, str(exc), action=i, text=body) from None
        for command in commands:
            if not state.in_hand:
                raise ReplayError(hand.number, "the hand is already over in the core", action=i, text=body)
            try:
                state, events = _run(state, command)
            except Refusal as exc:
                raise ReplayError(hand.number, exc.reason, action=i, text=body) from None
            except ValueError as exc:  # PokerKit refusing what the core let through
                raise ReplayError(hand.number, f"PokerKit refused it: {exc}", action=i, text=body) from None
            log += events
    ended = next((e for e in reversed(log) if isinstance(e, HandEnded)), None)
    if ended is None:
        raise ReplayError(hand.number, "the hand did not finish: " + _why_unfinished(state, setup, hand))
    return _result(hand, setup, state, ended)


def _steps(hand: PhhHand, count: int) -> Iterator[tuple[int, str]]:
    """The actions without comments, numbered from 1; a hole card dealt one at a time
    (``d dh p1 7s`` ... ``d dh p1 4s``) is joined into one deal at its last card."""
    partial: dict[str, tuple[int, str]] = {}
    for i, action in enumerate(hand.actions, start=1):
        body, _ = split_comment(action)
        words = body.split()
        if len(words) == 4 and words[:2] == ["d", "dh"] and len(words[3]) < 2 * count and len(words[3]) % 2 == 0:
            so_far = partial.get(words[2], (i, ""))[1] + words[3]
            if len(so_far) < 2 * count:
                partial[words[2]] = (i, so_far)
                continue
            partial.pop(words[2], None)
            body = f"d dh {words[2]} {so_far}"
        if body:
            yield i, body
    for label, (i, so_far) in partial.items():
        raise ReplayError(hand.number, f"{label} is dealt only {len(so_far) // 2} of {count} hole cards",
                          action=i, text=f"d dh {label} {so_far}")


def _why_unfinished(state: TableState, setup: Setup, hand: PhhHand) -> str:
    h = state.hand
    assert h is not None
    waiting = h.awaiting_cards()
    if waiting:
        who = ", ".join(f"{setup.label_of(s)} (seat {s})" for s in waiting)
        mucked = [setup.label_of(s) for s in waiting if any(
            split_comment(a)[0] in (f"{setup.label_of(s)} sm", f"{setup.label_of(s)} sm -") for a in hand.actions)]
        extra = (f"; the file mucks {', '.join(mucked)} without the cards, and the core has no muck at showdown"
                 if mucked else "")
        return f"the core waits for the tabled cards of {who}{extra}"
    if h.actor is not None:
        return f"{setup.label_of(h.actor)} (seat {h.actor}) is still to act"
    if h.needs_board():
        return f"the next {h.needs_board()} board card{'s' if h.needs_board() > 1 else ''} are missing"
    return "the core still has it in progress"


def _result(hand: PhhHand, setup: Setup, state: TableState, ended: HandEnded) -> dict:
    finishing = [ended.stacks.get(seat, stack) for seat, stack in zip(setup.seats, setup.stacks)]
    recorded = hand.fields.get("finishing_stacks")
    recorded_ints = [_whole(v) for v in recorded] if recorded is not None else None
    won: dict[int, int] = {}
    for pot in ended.pots:
        for seat, share in pot["winners"].items():
            won[seat] = won.get(seat, 0) + share
    board = list(board_cards(state.hand)) if state.hand is not None else []
    return {
        "hand": hand.number,
        "name": hand.name,
        "game": setup.game,
        "players": [
            {"player": label, "name": name, "seat": seat}
            for label, name, seat in zip(setup.labels, setup.names, setup.seats)
        ],
        "blinds": [setup.small_blind, setup.big_blind],
        "ante": setup.ante,
        "starting_stacks": list(setup.stacks),
        "finishing_stacks": finishing,
        "recorded_finishing_stacks": recorded_ints,
        "matches_recorded": None if recorded_ints is None else recorded_ints == finishing,
        "board": board,
        "winners": [
            {"player": setup.label_of(seat), "name": setup.names[setup.seats.index(seat)], "seat": seat, "amount": amount}
            for seat, amount in sorted(won.items(), key=lambda kv: setup.seats.index(kv[0]))
        ],
        "pots": [
            {"amount": pot["amount"], "winners": {setup.label_of(s): a for s, a in pot["winners"].items()}}
            for pot in ended.pots
        ],
        "shown": {setup.label_of(s): list(c) for s, c in ended.shown.items()},
        "notes": list(setup.notes),
    }


def replay_all(hands: Iterable[PhhHand]) -> Iterator[tuple[PhhHand, dict | None, ReplayError | None]]:
    """Each hand with its result and/or its error, in file order.

    A hand that plays through but ends on other stacks than the file's
    ``finishing_stacks`` has both: its result and the mismatch as an error.
    """
    for hand in hands:
        try:
            result = replay_hand(hand)
        except ReplayError as exc:
            yield hand, None, exc
            continue
        if result["matches_recorded"] is False:
            yield hand, result, ReplayError(
                hand.number,
                f"finishing stacks {result['finishing_stacks']} differ from the recorded {result['recorded_finishing_stacks']}",
            )
            continue
        yield hand, result, None

def board_cards(hand: Any) -> tuple[str, ...]:
    """A hand's board as two-character cards (PokerKit's ``repr``; its ``str`` is "ACE OF SPADES (As)")."""
    return tuple(repr(c) for street in hand.pk.board_cards for c in street)

def summary(result: dict) -> str:
    """A readable summary of one replayed hand."""
    players = result["players"]
    head = (f"hand {result['hand']}" + (f" ({result['name']})" if result["name"] != str(result["hand"]) else "")
            + f": {GAME_NAMES[result['game']]}, {len(players)} players, blinds {chips(result['blinds'][0])}/"
            f"{chips(result['blinds'][1])}" + (f", big-blind ante {chips(result['ante'])}" if result["ante"] else ""))
    lines = [head]
    if result["board"]:
        lines.append("  board    " + " ".join(result["board"]))
    def who(label: str) -> str:
        p = next(p for p in players if p["player"] == label)
        return f"{label} (seat {p['seat']})" if p["name"] == label else f"{label} {p['name']} (seat {p['seat']})"

    for label, cards in result["shown"].items():
        lines.append(f"  shown    {who(label)}: {' '.join(cards)}")
    for w in result["winners"]:
        lines.append(f"  won      {who(w['player'])}: {chips(w['amount'])}")
    named = any(p["name"] != p["player"] for p in players)
    width = max(len(p["name"]) for p in players)
    for p, start, end in zip(players, result["starting_stacks"], result["finishing_stacks"]):
        diff = end - start
        name = f" {p['name']:<{width}}" if named else ""
        lines.append(f"  {p['player']:<4}{name}  {chips(start):>12} -> {chips(end):>12}  ({'+' if diff >= 0 else ''}{chips(diff)})")
    if result["matches_recorded"] is True:
        lines.append("  finishing stacks match the file's")
    for note in result["notes"]:
        lines.append(f"  note: {note}")
    return "\n".join(lines)
