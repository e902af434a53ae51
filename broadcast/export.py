"""Export a table's hands from its journal: PHH for post-production, PokerStars text for
tracking software.

The adapter half reads the journal from Redis (``read_journal``) and writes files
(``export_table``); the text itself is made by pure functions (``broadcast.phh``'s
``journal_hands`` and ``hand_to_phh``, and ``to_pokerstars`` here). Only finished hands
are exported; undone actions are gone (the journal is folded through the core's own
``apply``), misdealt hands are void, and a hand still being played is left for later.
"""

from __future__ import annotations

import datetime as _dt
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pokerkit import (
    AntePosting,
    BetCollection,
    BlindOrStraddlePosting,
    BoardDealing,
    CheckingOrCalling,
    ChipsPushing,
    CompletionBettingOrRaisingTo,
    Folding,
    HoleCardsShowingOrMucking,
    OmahaHoldemHand,
    StandardHighHand,
)

from .phh_write import JournalHand, hand_to_phh, journal_hands

FORMATS = ("phh", "pokerstars")
PS_GAMES = {"nlhe": "Hold'em No Limit", "plo": "Omaha Pot Limit"}
STREET_NAMES = ("Flop", "Turn", "River")


# -- the adapter: Redis in, files out ------------------------------------------------------
async def read_journal(redis: Any, table: str) -> list[tuple[int, int, dict]]:
    """The table's journal as ``(seq, ts, event)`` triples."""
    from .store.journal import read_all

    return [(r.seq, r.ts, r.event) for r in await read_all(redis, table)]


@dataclass(frozen=True)
class ExportResult:
    table: str
    hands: int
    files: tuple[Path, ...]
    events: int


def write_hands(hands: list[JournalHand], fmt: str, out_dir: Path, *, table: str, event: str | None = None) -> list[Path]:
    """Write the hands: one ``<table>-hand-NNNN.phh`` each, or one ``<table>-pokerstars.txt``."""
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}")
    out_dir.mkdir(parents=True, exist_ok=True)
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in table)
    if fmt == "phh":
        files = []
        for hand in hands:
            path = out_dir / f"{safe}-hand-{hand.number:04d}.phh"
            path.write_text(hand_to_phh(hand, event=event), encoding="utf-8")
            files.append(path)
        return files
    path = out_dir / f"{safe}-pokerstars.txt"
    path.write_text("\n\n\n".join(to_pokerstars(h) for h in hands) + ("\n" if hands else ""), encoding="utf-8")
    return [path]


async def export_table(redis: Any, table: str, fmt: str, out_dir: Path, *, event: str | None = None) -> ExportResult:
    """Read the table's journal and write its finished hands in ``fmt``."""
    records = await read_journal(redis, table)
    hands = journal_hands(records)
    files = write_hands(hands, fmt, out_dir, table=table, event=event) if hands else []
    return ExportResult(table=table, hands=len(hands), files=tuple(files), events=len(records))


# -- PokerStars-style text (pure) ---------------------------------------------------------
def _roman(n: int) -> str:
    out = ""
    for value, letters in ((1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"),
                           (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")):
        while n >= value:
            out, n = out + letters, n - value
    return out


def _cards(cards: Iterable[Any]) -> str:
    return "[" + " ".join(c if isinstance(c, str) else repr(c) for c in cards) + "]"


def _describe(game: str, hole: tuple[str, ...], board: tuple[str, ...]) -> str:
    """The made hand in words ("two pair"), from PokerKit's evaluator."""
    kind = OmahaHoldemHand if game == "plo" else StandardHighHand
    try:
        made = kind.from_game("".join(hole), "".join(board))
    except ValueError:
        return "a hand"
    return made.entry.label.value.lower()


def tournament_number(table: str) -> int:
    """A stable number for the table (PokerStars wants digits where we have a table id)."""
    return zlib.crc32(table.encode()) % 10**9


def to_pokerstars(h: JournalHand) -> str:
    """One hand as PokerStars-style text (tournament chips, no rake).

    Every known hand is written as ``Dealt to``; PokerKit's PokerStars reader
    (``HandHistory.from_pokerstars``) reads it back (antes aside: it skips them).
    """
    n = len(h.seats)
    names = h.names
    sb_index, bb_index = (1, 0) if n == 2 else (0, 1)
    started = _dt.datetime.fromtimestamp(h.started_ts / 1000, tz=_dt.timezone.utc)
    lines = [
        f"PokerStars Hand #{h.number}: Tournament #{tournament_number(h.table)}, {PS_GAMES[h.game]}"
        f" - Level {_roman(h.level)} ({h.small_blind}/{h.big_blind}) - {started:%Y/%m/%d %H:%M:%S} UTC",
        f"Table '{h.table}' 10-max Seat #{h.button} is the button",
    ]
    for seat, name, stack in sorted(zip(h.seats, names, h.starting)):
        lines.append(f"Seat {seat}: {name} ({stack} in chips)")

    stacks = list(h.starting)
    bets = [0] * n
    folded_on: dict[int, str] = {}
    shown: dict[int, tuple[str, ...]] = {}
    won = [0] * n
    pots: list[int] = []
    board: list[str] = []
    street = "Preflop"
    dealt_printed = False

    def dealt() -> None:
        nonlocal dealt_printed
        if dealt_printed:
            return
        dealt_printed = True
        lines.append("*** HOLE CARDS ***")
        for i, cards in enumerate(h.hole):
            if cards and "??" not in cards:
                lines.append(f"Dealt to {names[i]} {_cards(cards)}")

    def all_in(i: int) -> str:
        return " and is all-in" if stacks[i] == 0 else ""

    operations = list(h.operations)
    # PokerStars writes the small blind first (heads-up PokerKit posts the big blind first).
    posts = [k for k, op in enumerate(operations) if isinstance(op, BlindOrStraddlePosting)]
    for k, op in zip(posts, sorted((operations[k] for k in posts), key=lambda op: op.player_index != sb_index)):
        operations[k] = op
    pushes = [op for op in operations if isinstance(op, ChipsPushing)]
    showdown_started = False
    for op in operations:
        if isinstance(op, AntePosting):
            stacks[op.player_index] -= op.amount
            lines.append(f"{names[op.player_index]}: posts the ante {op.amount}")
        elif isinstance(op, BlindOrStraddlePosting):
            i = op.player_index
            stacks[i] -= op.amount
            bets[i] += op.amount
            kind = "small" if i == sb_index else "big"
            lines.append(f"{names[i]}: posts {kind} blind {op.amount}{all_in(i)}")
        elif isinstance(op, Folding):
            dealt()
            folded_on[op.player_index] = street
            lines.append(f"{names[op.player_index]}: folds")
        elif isinstance(op, CheckingOrCalling):
            dealt()
            i = op.player_index
            stacks[i] -= op.amount
            bets[i] += op.amount
            lines.append(f"{names[i]}: calls {op.amount}{all_in(i)}" if op.amount else f"{names[i]}: checks")
        elif isinstance(op, CompletionBettingOrRaisingTo):
            dealt()
            i = op.player_index
            top = max(bets)
            stacks[i] -= op.amount - bets[i]
            bets[i] = op.amount
            if top == 0:
                lines.append(f"{names[i]}: bets {op.amount}{all_in(i)}")
            else:
                lines.append(f"{names[i]}: raises {op.amount - top} to {op.amount}{all_in(i)}")
        elif isinstance(op, BetCollection):
            if any(bets):
                ordered = sorted(bets, reverse=True)
                excess = ordered[0] - (ordered[1] if n > 1 else 0)
                if excess > 0:
                    i = bets.index(ordered[0])
                    stacks[i] += excess
                    lines.append(f"Uncalled bet ({excess}) returned to {names[i]}")
            bets = [0] * n
        elif isinstance(op, BoardDealing):
            dealt()
            new = [repr(c) for c in op.cards]
            if not board:
                street = "Flop"
                lines.append(f"*** FLOP *** {_cards(new)}")
            else:
                street = "Turn" if len(board) == 3 else "River"
                lines.append(f"*** {street.upper()} *** {_cards(board)} {_cards(new)}")
            board += new
        elif isinstance(op, HoleCardsShowingOrMucking):
            i = op.player_index
            if not showdown_started and len(board) == len(h.board):
                lines.append("*** SHOW DOWN ***")
                showdown_started = True
            if op.hole_cards:
                cards = tuple(repr(c) for c in op.hole_cards)
                shown[i] = cards
                lines.append(f"{names[i]}: shows {_cards(cards)} ({_describe(h.game, cards, h.board)})")
            else:
                lines.append(f"{names[i]}: mucks hand")
        elif isinstance(op, ChipsPushing):
            amount = sum(op.amounts)
            pots.append(amount)
            if not showdown_started and shown:
                lines.append("*** SHOW DOWN ***")
                showdown_started = True
            label = "pot" if len(pushes) == 1 else ("main pot" if op.pot_index == 0 else f"side pot-{op.pot_index}")
            for i, a in enumerate(op.amounts):
                if a:
                    won[i] += a
                    lines.append(f"{names[i]} collected {a} from {label}")

    lines.append("*** SUMMARY ***")
    total = sum(pots)
    if len(pots) > 1:
        side = " ".join(f"Side pot-{k} {p}." for k, p in enumerate(pots[1:], start=1))
        lines.append(f"Total pot {total} Main pot {pots[0]}. {side} | Rake 0")
    else:
        lines.append(f"Total pot {total} | Rake 0")
    if h.board:
        lines.append(f"Board {_cards(h.board)}")
    for i, (seat, name) in sorted(enumerate(zip(h.seats, names)), key=lambda t: t[1][0]):
        role = ""
        if seat == h.button:
            role += " (button)"
        if i == sb_index:
            role += " (small blind)"
        elif i == bb_index:
            role += " (big blind)"
        if i in folded_on:
            where = "before Flop" if folded_on[i] == "Preflop" else f"on the {folded_on[i]}"
            result = f"folded {where}"
        elif i in shown:
            made = _describe(h.game, shown[i], h.board)
            result = (f"showed {_cards(shown[i])} and won ({won[i]}) with {made}" if won[i]
                      else f"showed {_cards(shown[i])} and lost with {made}")
        elif won[i]:
            result = f"collected ({won[i]})"
        else:
            result = "mucked"
        lines.append(f"Seat {seat}: {name}{role} {result}")
    return "\n".join(lines)
