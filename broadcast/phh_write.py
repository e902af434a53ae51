"""The journal -> PHH (``tvtable export``): each finished hand of a table's journal, with
every action's timecode as ``# hh:mm:ss.mmm`` for post-production.

Pure: no Redis and no clock::

    for hand in journal_hands(records):  # (seq, ts, event-dict) triples of a table's journal
        text = hand_to_phh(hand)         # loads with pokerkit.HandHistory.loads
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from pokerkit import (
    BoardDealing,
    CheckingOrCalling,
    CompletionBettingOrRaisingTo,
    Folding,
    HoleCardsShowingOrMucking,
)

from .engine.events import (
    EVENT_TYPES,
    HandEnded,
    HandStarted,
    MisdealDeclared,
    event_from_dict,
)
from .engine.table import TableState, apply
from .phh import VARIANT_CODES, board_cards

# -- the journal -> PHH -------------------------------------------------------------------
@dataclass
class JournalHand:
    """One finished hand of a table's journal, as PHH needs it."""

    table: str
    number: int
    game: str
    level: int
    button: int
    seats: tuple[int, ...]  # dealt-in seats, PokerKit order (button last)
    names: tuple[str, ...]
    player_ids: tuple[str, ...]
    small_blind: int
    big_blind: int
    ante: int
    starting: tuple[int, ...]
    finishing: tuple[int, ...]
    hole: tuple[tuple[str, ...], ...]
    board: tuple[str, ...]
    started_ts: int
    ended_ts: int
    actions: list[tuple[str, int]] = field(default_factory=list)  # (PHH action, ts ms), undone ones gone
    operations: tuple = ()  # PokerKit's operations of the hand as the core settled it
    pots: tuple[dict, ...] = ()
    shown: dict = field(default_factory=dict)



def _public_action(op: Any) -> str | None:
    """The PHH text of one PokerKit operation that a viewer saw (None for the rest)."""
    if isinstance(op, Folding):
        return f"p{op.player_index + 1} f"
    if isinstance(op, CheckingOrCalling):
        return f"p{op.player_index + 1} cc"
    if isinstance(op, CompletionBettingOrRaisingTo):
        return f"p{op.player_index + 1} cbr {op.amount}"
    if isinstance(op, BoardDealing):
        return "d db " + "".join(map(repr, op.cards))
    if isinstance(op, HoleCardsShowingOrMucking):
        cards = "".join(map(repr, op.hole_cards))
        return f"p{op.player_index + 1} sm" + (f" {cards}" if cards else "")
    return None


def journal_hands(records: Iterable[tuple[int, int, dict]]) -> list[JournalHand]:
    """The finished hands of a journal of ``(seq, ts, event)``; misdealt and unfinished hands are left out.

    The journal is folded through the core's own ``apply``, so undone actions
    (``ActionUndone``) and corrected cards are gone exactly as they are live. Each
    action keeps the time of the event that made it (its Redis ts).
    """
    state = TableState()
    out: list[JournalHand] = []
    stamped: list[tuple[str, int]] = []
    start: tuple[HandStarted, int] | None = None
    for seq, ts, data in records:
        if data.get("type") not in EVENT_TYPES:
            continue  # an event this build does not know cannot change a hand it can export
        event = event_from_dict(data)
        state = apply(state, event, seq=seq)
        if isinstance(event, HandStarted):
            start, stamped = (event, ts), []
        if start is None or state.hand is None or state.hand.number != start[0].hand:
            continue
        ops = [a for a in map(_public_action, state.hand.pk.operations) if a is not None]
        keep = 0
        while keep < min(len(ops), len(stamped)) and stamped[keep][0] == ops[keep]:
            keep += 1
        stamped = stamped[:keep] + [(a, ts) for a in ops[keep:]]
        if isinstance(event, MisdealDeclared):
            start = None
        elif isinstance(event, HandEnded):
            out.append(_journal_hand(state, start[0], start[1], ts, stamped, event))
            start = None
    return out


def _journal_hand(state: TableState, started: HandStarted, started_ts: int, ended_ts: int,
                  stamped: list[tuple[str, int]], ended: HandEnded) -> JournalHand:
    hand = state.hand
    assert hand is not None
    seated = {s.seat: s for s in state.seats}
    return JournalHand(
        table=state.table,
        number=started.hand,
        game=state.game,
        level=started.level,
        button=started.button,
        seats=tuple(started.seats),
        names=tuple(seated[s].name if s in seated else f"Seat {s}" for s in started.seats),
        player_ids=tuple(seated[s].player if s in seated else "" for s in started.seats),
        small_blind=started.small_blind,
        big_blind=started.big_blind,
        ante=started.ante,
        starting=tuple(started.stacks),
        finishing=tuple(ended.stacks.get(s, 0) for s in started.seats),
        hole=tuple(tuple(h) for h in hand.hole),
        board=board_cards(hand),
        started_ts=started_ts,
        ended_ts=ended_ts,
        actions=list(stamped),
        operations=tuple(hand.pk.operations),
        pots=tuple(ended.pots),
        shown=dict(ended.shown),
    )


def timecode(ts_ms: int) -> str:
    """A Redis ts (ms since the epoch) as the UTC time of day ``hh:mm:ss.mmm``."""
    moment = _dt.datetime.fromtimestamp(ts_ms / 1000, tz=_dt.timezone.utc)
    return moment.strftime("%H:%M:%S.") + f"{moment.microsecond // 1000:03d}"


def hand_to_phh(hand: JournalHand, *, event: str | None = None) -> str:
    """The hand as PHH text that ``pokerkit.HandHistory.loads`` reads; every action carries
    its timecode as a PokerKit commentary (``"p2 cbr 1200 # 20:14:03.250"``, UTC)."""
    n = len(hand.seats)
    dealt = timecode(hand.started_ts)
    actions = [f"d dh p{i + 1} {''.join(cards)} # {dealt}" for i, cards in enumerate(hand.hole)]
    actions += [f"{action} # {timecode(ts)}" for action, ts in hand.actions]
    started = _dt.datetime.fromtimestamp(hand.started_ts / 1000, tz=_dt.timezone.utc)
    fields: dict[str, Any] = {
        "variant": VARIANT_CODES[hand.game],
        "ante_trimming_status": False,
        "antes": [hand.ante if i == 1 else 0 for i in range(n)],
        "blinds_or_straddles": [hand.small_blind, hand.big_blind] + [0] * (n - 2),
        "min_bet": hand.big_blind,
        "starting_stacks": list(hand.starting),
        "actions": actions,
        "event": event,
        "table": hand.table,
        "hand": hand.number,
        "level": hand.level,
        "seats": list(hand.seats),
        "players": list(hand.names),
        "finishing_stacks": list(hand.finishing),
        "time": started.time().replace(microsecond=started.microsecond // 1000 * 1000),
        "time_zone": "UTC",
        "day": started.day,
        "month": started.month,
        "year": started.year,
        "_player_ids": list(hand.player_ids),
    }
    header = [
        f"# Table {hand.table}, hand {hand.number}: exported from the journal by tvtable.",
        "# Each action ends with its timecode (UTC, hh:mm:ss.mmm): the Redis time of the event.",
    ]
    return "\n".join(header) + "\n" + dumps_fields(fields)


# -- writing PHH text ---------------------------------------------------------------------
def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, Decimal)):
        return str(value)
    if isinstance(value, _dt.time):
        return value.isoformat(timespec="milliseconds" if value.microsecond else "seconds")
    if isinstance(value, str):
        escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
        return f'"{escaped}"'
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise TypeError(f"cannot write {value!r} as PHH")


def dumps_fields(fields: dict[str, Any]) -> str:
    """PHH (TOML) text for a hand's fields, actions one per line; ``None`` fields are left out."""
    lines = []
    for key, value in fields.items():
        if value is None:
            continue
        if key == "actions":
            lines.append("actions = [")
            lines += [f"  {_toml_value(a)}," for a in value]
            lines.append("]")
        else:
            lines.append(f"{key} = {_toml_value(value)}")
    return "\n".join(lines) + "\n"


def dumps_all(texts: Iterable[str]) -> str:
    """Several PHH hands as one .phhs text ([1], [2], ...)."""
    return "\n".join(f"[{i}]\n{text}" for i, text in enumerate(texts, start=1))
