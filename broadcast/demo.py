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

    async def _do(self, command: dict, *, person: str = "demo dealer", role: str = "dealer") -> bool:
        try:
            await self.core.submit(command, person=person, role=role)
            return True
        except Refusal as refusal:
            log.info("demo dealer: %s refused: %s", command.get("type"), refusal.reason)
            return False

    async def _pause(self, low: float, high: float) -> None:
        await asyncio.sleep(self.rng.uniform(low, high) * self.pace)

    async def _clear_tv_rules(self) -> None:
        """What the reps do before the show: devices surrendered, logos checked (TV-table rules)."""
        if not self.core.tv_rules:
            return
        for seat in self.core.state.seats:
            if seat.stack <= 0:
                continue
            rep = {"person": "demo rep", "role": "rep"}
            await self._do({"type": "surrender_devices", "player": seat.player, "items": ["phone"],
                            "bag": f"B-{seat.seat:02d}", "rep": "demo rep"}, **rep)
            await self._do({"type": "inspect_logos", "player": seat.player, "logos": []}, **rep)

    async def run(self) -> None:
        """Deal hand after hand."""
        if self.core.view("live").get("deal_blockers"):
            await self._clear_tv_rules()
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
        self.deck, self.hand_no = deck, hand.number
        count = self.core.state.hole_card_count
        for seat in hand.seats:
            await self._show_to_camera(seat, [deck.pop() for _ in range(count)])

    async def _show_to_camera(self, seat: int, cards: list[str]) -> None:
        """What the hole-card camera reports: the cards were shown, and which they are."""
        camera = {"person": "demo camera", "role": "camera"}
        if self.core.tv_rules:
            await self._do({"type": "cards_shown", "seat": seat, "source": "camera"}, **camera)
        await self._do({"type": "hole_cards", "seat": seat, "cards": cards, "source": "camera"}, **camera)

    def _remaining_deck(self) -> list[str]:
        """The unseen cards of the hand in play (after a restart the shuffle is gone)."""
        hand = self.core.state.hand
        seen = set(hand.board) | {c for cards in hand.hole for c in cards} if hand else set()
        deck = [c for c in DECK if c not in seen]
        self.rng.shuffle(deck)
        return deck

    async def _step(self) -> None:
        view = self.core.view("live")
        if not hasattr(self, "deck") or self.hand_no != self.core.state.hand_no:
            self.deck = self._remaining_deck()  # resumed mid-hand, or a hand someone else started
            self.hand_no = self.core.state.hand_no
        unseen = [row["seat"] for row in view["seats"] if row.get("dealt_in") and row.get("cards_seen") == "none"]
        if unseen:
            await self._show_to_camera(unseen[0], [self.deck.pop() for _ in range(self.core.state.hole_card_count)])
            return
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
