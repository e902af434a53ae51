"""The board camera: confirmed board reads become the dealer's ``board`` command.

The board camera reads the community cards as the dealer lays them out.  Its reads go
to the core's inbox exactly as the dealer's ``board`` command would, but only when
nothing can be confidently wrong (:func:`cards_to_deal`):

* the core is waiting for board cards (``needs_board``: 3 for the flop, 1 for the turn
  or the river), and the camera has confirmed (K of the last N frames) every card the
  core already has on the board, plus exactly the cards that are due, no more;
* every card is read, none is ``??``, and none is there twice.

Anything else (the camera ahead of the betting, a card it cannot read, an old board not
yet gathered, the dealer having keyed a different card) posts nothing: the dealer deals
from the console as always.

:class:`BoardFollower` tells the worker what the core has: the core keeps a small
board-need key (``broadcast.views.projections.board_need``), with no hole card in it.
"""
from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any

from broadcast.store import keys

from .tracker import UNKNOWN

log = logging.getLogger("tvtable.cardcam")


def cards_to_deal(seen: tuple[str, ...], board: tuple[str, ...], needs: int) -> tuple[str, ...] | None:
    """The board cards to post, or None when posting could be wrong or is not wanted.

    ``seen``: the board camera's confirmed cards (``??`` for the rest); ``board``: what
    the core has on the board; ``needs``: how many cards the core waits for (0: none).
    """
    if needs <= 0:
        return None
    known = [c for c in seen if c != UNKNOWN]
    if len(set(known)) != len(known) or len(known) != len(board) + needs:
        return None  # the camera sees fewer, more, or doubled cards than the street lays out
    if not set(board) <= set(known):
        return None  # the camera and the core disagree about a card already dealt
    new = tuple(c for c in known if c not in board)
    return new if len(new) == needs else None


@dataclass(frozen=True)
class BoardNeed:
    """What the core has and waits for, as far as the journal shows."""

    hand: int              # the hand number (0 before the first hand)
    board: tuple[str, ...]
    needs: int             # board cards due now (0: none)


class BoardFollower:
    """Tells the board camera what the core has: the core's board-need key (the hand, its
    board and how many cards are due; no hole card). The camera's Redis user may read that
    key and nothing else of the table: never the journal, which holds every hole card.

    When the key cannot be read (Redis away, or a user without access), ``refresh()``
    returns None and the board camera posts nothing; the reason is logged once.
    """

    def __init__(self, redis: Any, table: str) -> None:
        self.redis = redis
        self.table = table
        self._warned = False

    async def refresh(self) -> BoardNeed | None:
        try:
            raw = await self.redis.get(keys.board_need(self.table))
        except Exception as exc:  # noqa: BLE001 - no access: the board camera stays quiet
            if not self._warned:
                self._warned = True
                log.warning("cardcam: table %s: cannot read what the board needs (%s), so the board camera posts "
                            "no board cards (its Redis user needs read access to %s)",
                            self.table, type(exc).__name__, keys.board_need(self.table))
            return None
        self._warned = False
        return parse_need(raw)


def parse_need(raw: bytes | str | None) -> BoardNeed | None:
    """The core's board-need key as a :class:`BoardNeed` (None when absent or unreadable)."""
    if raw is None:
        return None
    try:
        data = json.loads(raw)
        return BoardNeed(int(data["hand"]), tuple(str(c) for c in data["board"]), int(data["needs"]))
    except (ValueError, KeyError, TypeError):
        return None
