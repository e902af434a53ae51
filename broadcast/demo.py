"""The demo dealer: plays a lively show on its own so every screen has something to show.

Random legal actions, known hole cards, many all-ins and, now and then, a mis-keyed
action that is undone. It goes through ``TableCore.submit`` exactly like the console.
"""

from __future__ import annotations

import asyncio
import logging
import random

from .engine.cards import DECK
from .engine.errors import Refusal
from .service import TableCore

log = logging.getLogger("tvtable.demo")


class DemoDealer:
    """Deals hands at one table until cancelled or the tournament is won."""

    def __init__(self, core: TableCore, *, seed: int | None = None, pace: float = 1.0) -> None:
        self.core = core
        self.rng = random.Random(seed)
        self.pace = pace

    async def _do(self, command: dict) -> bool:
        try:
            await self.core.submit(command, person="demo dealer")
            return True
        except Refusal as refusal:
            log.info("demo dealer: %s refused: %s", command.get("type"), refusal.reason)
            return False

    async def _pause(self, low: float, high: float) -> None:
        await asyncio.sleep(self.rng.uniform(low, high) * self.pace)

    async def run(self) -> None:
        """Deal hand after hand."""
        while True:
            state = self.core.state
            players = [s for s in state.seats if s.stack > 0]
            if len(players) < 2:
                log.info("demo dealer: %s has all the chips; the demo tournament is over", players[0].name if players else "nobody")
                return
            if not state.in_hand:
                button = self.rng.choice(players).seat if state.button is None else None
                await self._do({"type": "start_hand", **({"button": button} if button else {})})
                await self._deal_hole_cards()
                await self._pause(0.8, 1.5)
                continue
            await self._step()
            await self._pause(0.5, 1.3)

    async def _deal_hole_cards(self) -> None:
        hand = self.core.state.hand
        assert hand is not None
        deck = list(DECK)
        self.rng.shuffle(deck)
        self.deck = deck
        count = self.core.state.hole_card_count
        for seat in hand.seats:
            cards = [deck.pop() for _ in range(count)]
            await self._do({"type": "hole_cards", "seat": seat, "cards": cards, "source": "camera"})

    def _remaining_deck(self) -> list[str]:
        """The unseen cards of the hand in play (after a restart the shuffle is gone)."""
        hand = self.core.state.hand
        seen = set(hand.board) | {c for cards in hand.hole for c in cards} if hand else set()
        deck = [c for c in DECK if c not in seen]
        self.rng.shuffle(deck)
        return deck

    async def _step(self) -> None:
        view = self.core.view("live")
        if not hasattr(self, "deck"):
            self.deck = self._remaining_deck()  # resumed mid-hand
        if view["needs_board"]:
            cards = [self.deck.pop() for _ in range(view["needs_board"])]
            await self._do({"type": "board", "cards": cards})
            return
        legal = view["legal"]
        if legal is None:
            return
        seat = legal["seat"]
        roll = self.rng.random()
        raise_key = "raise" if "raise" in legal else "bet"
        rng = legal.get(raise_key)
        if roll < 0.04 and self.core.state.hand and self.core.state.hand.entries:
            # A mis-keyed action, caught and undone by the dealer a moment later.
            await self._do({"type": "undo", "reason": "demo: dealer corrected a mis-key"})
            return
        if roll < 0.18 and rng:
            command = {"type": "allin", "seat": seat}
        elif roll < 0.38 and rng:
            low, high = rng
            amount = min(high, self.rng.choice([low, low, int(low * 1.5), low * 2, low * 3]))
            command = {"type": raise_key, "seat": seat, "amount": amount}
        elif roll < 0.55 and legal["fold"]:
            command = {"type": "fold", "seat": seat}
        elif legal["check"]:
            command = {"type": "check", "seat": seat}
        else:
            command = {"type": "call", "seat": seat}
        await self._do(command)
