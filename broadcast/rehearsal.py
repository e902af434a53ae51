"""Rehearsal: recorded hands (PHH) played through the whole chain, as ``tvtable demo --script``.

Each hand goes through ``TableCore.submit`` exactly as the desks would send it: the TD seats
the hand's players, counts their chips and draws the button; the camera reports the hole
cards; the dealer keys every action at a watchable pace. So the journal, the delay line,
the releaser, the feeds and every page see a real show, with real hands.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import re
from typing import Iterable

from .engine.errors import Refusal
from .phh import PhhHand, ReplayError, Setup, _steps, action_commands, fit
from .service import TableCore
from .settings import Level, Player, Seat, Show

log = logging.getLogger("tvtable.rehearsal")

TABLE_ID = "rehearsal"


def player_id(name: str) -> str:
    """A stable id from a recorded player's name ("Phil Ivey" -> "phh-phil-ivey")."""
    return "phh-" + (re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "player")


def playable(hands: Iterable[PhhHand]) -> list[tuple[PhhHand, Setup]]:
    """The hands the core can play, each with its setup; the others are named in the log."""
    out = []
    for hand in hands:
        try:
            out.append((hand, fit(hand)))
        except ReplayError as exc:
            log.warning("rehearsal: skipping %s", exc)
    return out


def rehearsal_show(show: Show, hands: list[tuple[PhhHand, Setup]]) -> Show:
    """The demo show with one table seated as the first hand, and a level per blinds."""
    if not hands:
        raise ValueError("no hand in the script can be played (no-limit hold'em or pot-limit Omaha, 2-10 players)")
    _, first = hands[0]
    levels: list[Level] = []
    for _, setup in hands:
        level = Level(setup.small_blind, setup.big_blind, setup.ante, 60)
        if level not in levels:
            levels.append(level)
    seats = tuple(Seat(seat, Player(player_id(name), name[:64], "", stack))
                  for seat, name, stack in sorted(zip(first.seats, first.names, first.stacks)))
    base = show.tables[0]
    table = dataclasses.replace(base, id=TABLE_ID, name=f"{show.name}: rehearsal", seats=seats, game=first.game,
                                tv_rules=False)  # recorded hands carry no devices or logos to check
    return dataclasses.replace(show, tables=(table,), levels=tuple(levels))


class ScriptDealer:
    """Plays the script's hands at one table, then stops."""

    def __init__(self, core: TableCore, hands: list[tuple[PhhHand, Setup]], *, pace: float = 1.0) -> None:
        self.core = core
        self.hands = hands
        self.pace = pace
        self.played = 0

    async def _send(self, command: dict, *, person: str, role: str) -> None:
        await self.core.submit(command, person=person, role=role)

    async def _td(self, command: dict) -> None:
        await self._send(command, person="rehearsal floor", role="td")

    async def run(self) -> None:
        """Play every hand in file order; a hand the core refuses stops the rehearsal, named."""
        for hand, setup in self.hands:
            try:
                await self._play(hand, setup)
            except (Refusal, ValueError) as exc:
                reason = exc.reason if isinstance(exc, Refusal) else str(exc)
                log.error("rehearsal stopped at %s: %s", hand.name, reason)
                return
            self.played += 1
            await asyncio.sleep(2.0 * self.pace)
        log.info("rehearsal: all %d hands played", self.played)

    async def _set_the_table(self, setup: Setup) -> None:
        """Between hands, what the floor would do: seats, chip counts, level, button."""
        state = self.core.state
        wanted = {player_id(name): (seat, name, stack) for seat, name, stack in zip(setup.seats, setup.names, setup.stacks)}
        for s in state.seats:
            if s.stack > 0 and (s.player not in wanted or wanted[s.player][0] != s.seat):
                await self._td({"type": "remove_player", "player": s.player, "reason": "not in the next recorded hand"})
        for pid, (seat, name, stack) in wanted.items():
            current = next((s for s in self.core.state.seats if s.player == pid and s.stack > 0), None)
            if current is None:
                await self._td({"type": "seat_player", "seat": seat, "player": pid, "name": name[:64], "stack": stack,
                                "reason": "table_move"})
            elif current.stack != stack:
                await self._td({"type": "chip_count", "player": pid, "stack": stack, "reason": "recorded starting stack"})
        level = next(i for i, lv in enumerate(self.core.levels, start=1)
                     if (lv.small_blind, lv.big_blind, lv.ante) == (setup.small_blind, setup.big_blind, setup.ante))
        if level != self.core.state.level:
            await self._td({"type": "set_level", "level": level})
        await self._td({"type": "draw_button", "seat": setup.button})

    async def _play(self, hand: PhhHand, setup: Setup) -> None:
        log.info("rehearsal: %s", hand.name)
        if self.core.state.hand_no:
            await self._set_the_table(setup)
        else:
            await self._send({"type": "start_hand", "button": setup.button}, person="rehearsal dealer", role="dealer")
            return await self._actions(hand, setup)
        await self._send({"type": "start_hand"}, person="rehearsal dealer", role="dealer")
        await self._actions(hand, setup)

    async def _actions(self, hand: PhhHand, setup: Setup) -> None:
        for _, body in _steps(hand, self.core.state.hole_card_count):
            for command in action_commands(self.core.state, setup, body):
                if command["type"] == "hole_cards":
                    # Cards dealt: the camera reads them. Cards tabled at showdown: the dealer.
                    tabled = self.core.state.hand is not None and command["seat"] in self.core.awaiting_cards()
                    role = "dealer" if tabled else "camera"
                    await self._send({**command, "source": role}, person=f"rehearsal {role}", role=role)
                else:
                    await self._send(command, person="rehearsal dealer", role="dealer")
                    await asyncio.sleep(0.8 * self.pace)
        if self.core.state.in_hand:
            raise ValueError("the recorded actions end before the hand does")
