"""The show's field coordinator: what one table's journal cannot know about the others.

Each table's core owns its journal. Two things of a tournament span the tables:

* the players left in the field: a bust at one table counts at every table whose TD field
  data gives the field's count (so the next bust anywhere places right, and the "players
  left" graphic is right), sent as field data by "TV Table (field)";
* rule "Hand-for-Hand Play" 2: players eliminated in the same hand-for-hand hand at
  different tables tie. When every table in hand-for-hand has finished that hand, the
  places are set again (``place`` commands, journalled as ``PlaceCorrected``) from
  :func:`broadcast.engine.field_places.hand_for_hand_places`.

Both go through each table's command path, so every change is a journalled, audited event.
The busts come from each core, which notes them as it rules and as it replays its journal,
so a round in progress when the core restarts is settled too; a place already set is never
sent again.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from .engine.errors import Refusal
from .engine.field_places import Bust, hand_for_hand_places

log = logging.getLogger("tvtable.field")

PERSON = "TV Table (field)"


class FieldCoordinator:
    """Follows every table's eliminations; keeps the field's count and hand-for-hand ties."""

    def __init__(self, cores: dict[str, Any]) -> None:
        self.cores = cores
        self.seen = {t: len(c.state.eliminated) for t, c in cores.items()}
        self._lock = asyncio.Lock()
        self._tasks: set[asyncio.Task] = set()
        # Each core notes its hand-for-hand busts (also on replay). At start-up (a restart)
        # only the hand in progress is still to settle: earlier ones were settled when they
        # ended, and the TD may have set places since.
        playing = [c for c in cores.values() if c.compliance.level_clock.hand_for_hand]
        current = max((c.compliance.level_clock.dealt for c in playing), default=0)
        self.settled = {n for c in cores.values() for n, _, _ in c.hand_for_hand_busts if n != current}
        if self._rounds():  # every table may have finished it already
            self._run(self._settle())

    def _rounds(self) -> dict[int, list[Bust]]:
        """Hand-for-hand hand (release number) -> its busts, for the hands not settled yet."""
        rounds: dict[int, list[Bust]] = {}
        for table, core in self.cores.items():
            for number, player, place in core.hand_for_hand_busts:
                if number not in self.settled:
                    rounds.setdefault(number, []).append(Bust(table, player, place))
        return rounds

    def changed(self, core: Any) -> None:
        """A table's state changed (a core listener): act on new eliminations, settle rounds."""
        new = core.state.eliminated[self.seen.get(core.table, 0):]
        self.seen[core.table] = len(core.state.eliminated)
        if new:
            self._run(self._count(core.table, len(new)))
        if self._rounds():
            self._run(self._settle())

    def _run(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task) -> None:
        self._tasks.discard(task)
        if task.cancelled() or task.exception() is None:
            return
        from .show import failure  # show.py starts the coordinator: imported when first needed

        log.error("field: could not follow an elimination (%s)", failure(task.exception()))

    async def _count(self, table: str, out: int) -> None:
        """The field's players left, at every table with the TD's field data."""
        async with self._lock:
            for other, core in self.cores.items():
                field = core.compliance.field
                if not field.players_left:
                    continue  # no field count at this table: its places count the table
                left = core.state.players_left - (0 if other == table else out)
                seated = sum(1 for s in core.state.seats if s.stack > 0)
                left = max(left, seated, 1)
                if left == field.players_left and other != table:
                    continue
                await self._send(core, {
                    "type": "field_data", "entries": max(field.entries, left), "players_left": left,
                    "chips_in_play": field.chips_in_play, "prize_pool": field.prize_pool,
                    "payouts": [{"first": p.first, "last": p.last, "amount": p.amount} for p in field.payouts],
                    "wearers": [[c, n] for c, n in field.wearers]})

    async def _settle(self) -> None:
        """Set the places of every hand-for-hand hand that all tables have finished."""
        async with self._lock:
            playing = [c for c in self.cores.values() if c.compliance.level_clock.hand_for_hand]
            for number, busts in sorted(self._rounds().items()):
                if any(c.compliance.level_clock.dealt < number
                       or (c.compliance.level_clock.dealt == number and c.state.in_hand) for c in playing):
                    return  # a table has still to deal or finish this hand
                self.settled.add(number)
                tables = sorted({b.table for b in busts})
                if len(tables) < 2:
                    continue  # one table's busts: its own journal placed them (rule 3)
                reason = f"hand-for-hand: out in the same hand at tables {', '.join(tables)}"
                for (table, player), (place, tied) in sorted(hand_for_hand_places(busts).items()):
                    now = [(e.place, e.tied) for e in self.cores[table].state.eliminated if e.player == player]
                    if now and now[-1] == (place, tied):
                        continue  # set already (before a restart)
                    await self._send(self.cores[table], {"type": "place", "player": player, "place": place,
                                                         "tied": tied, "reason": reason})

    async def _send(self, core: Any, command: dict) -> None:
        try:
            await core.submit(command, person=PERSON, role="td")
        except Refusal as refusal:
            log.warning("field: table %s refused %s: %s", core.table, command["type"], refusal.reason)
