"""The demo dealer: plays a lively show on its own so every screen has something to show.

Random legal actions, known hole cards, many all-ins and, now and then, a mis-keyed
action that is undone. It goes through ``TableCore.submit`` exactly like the console.

By default the dealer also plays the hole-card camera (it posts the cards it dealt, as
the camera would). With ``cameras`` (``tvtable demo --cameras``) the whole camera chain
runs instead: the players show their cards to synthetic cameras, the board is laid under
a board camera (:class:`cardcam.demo_rig.DemoRig`), and the real cardcam worker reads the
frames and posts to the inbox. What the cameras have not read after ``camera_wait``
seconds, the card room enters (hole cards) or the dealer keys (the board), as at a real
table.
"""

from __future__ import annotations

import asyncio
import logging
import random
from typing import Any

from .engine.cards import DECK
from .engine.errors import Refusal
from .service import TableCore

log = logging.getLogger("tvtable.demo")


class DemoDealer:
    """Deals hands at one table until cancelled or the tournament is won."""

    def __init__(self, core: TableCore, *, seed: int | None = None, pace: float = 1.0, cameras: Any = None,
                 camera_wait: float = 12.0, camera_reader: bool = True) -> None:
        """``cameras``: the show (``Show``) to run the camera chain for, or None (the dealer
        posts what the camera would). ``camera_reader`` False: push the frames only, for a
        ``tvtable cardcam run`` in another process (``rig.cameras_toml()``)."""
        self.core = core
        self.rng = random.Random(seed)
        self.pace = pace
        self.camera_wait = camera_wait
        self.rig = None
        self.dealt: dict[int, list[str]] = {}
        self.laid: list[str] = []
        self.fallbacks = {"hole_cards": 0, "board": 0}  # what the cameras did not read in time
        if cameras is not None:
            self.rig = _rig(core, cameras, seed, camera_reader)

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
        """Deal hand after hand (with the cameras running, if asked for)."""
        if self.rig is None:
            return await self._deal()
        rig = asyncio.get_running_loop().create_task(self.rig.run(), name=f"demo cameras {self.core.table}")
        try:
            log.info("demo dealer: waiting for the cameras (the card reader loads its model)")
            ready = asyncio.get_running_loop().create_task(self.rig.ready.wait())
            await asyncio.wait([ready, rig], return_when=asyncio.FIRST_COMPLETED)
            ready.cancel()
            if rig.done():
                rig.result()  # the cameras could not start: say why
            await self._deal()
        finally:
            from cardcam.demo_rig import stop

            await stop(rig)

    async def _deal(self) -> None:
        if self.core.view("live").get("deal_blockers"):
            await self._clear_tv_rules()
        while True:
            state = self.core.state
            players = [s for s in state.seats if s.stack > 0]
            if len(players) < 2:
                log.info("demo dealer: %s has all the chips; the demo tournament is over", players[0].name if players else "nobody")
                if not await self._re_enter():
                    return
                continue
            if not state.in_hand:
                button = self.rng.choice(players).seat if state.button is None else None
                await self._do({"type": "start_hand", **({"button": button} if button else {})})
                await self._deal_hole_cards()
                await self._pause(0.8, 1.5)
                continue
            await self._step()
            await self._pause(0.5, 1.3)

    async def _re_enter(self) -> bool:
        """The demo plays on until stopped: the busted players re-enter with their starting
        stacks, as in a re-entry event (the TD seats them; a seat between the small blind
        and the button is refused by the rules, so that player waits for the next one)."""
        if self.core.state.in_hand:
            return True
        busy = {s.seat for s in self.core.state.seats if s.stack > 0}
        back = 0
        for seat in self.core.config.seats:
            if seat.seat in busy:
                continue
            p = seat.player
            back += await self._do({"type": "seat_player", "seat": seat.seat, "player": p.id, "name": p.name,
                                    "country": p.country, "stack": p.chips, "reason": "re_entry"},
                                   person="demo TD", role="td")
        if back:
            log.info("demo dealer: %d player(s) re-enter; the demo plays on", back)
        return back > 0

    async def _deal_hole_cards(self) -> None:
        hand = self.core.state.hand
        assert hand is not None
        deck = list(DECK)
        self.rng.shuffle(deck)
        self.deck, self.hand_no = deck, hand.number
        count = self.core.state.hole_card_count
        self.dealt = {seat: [deck.pop() for _ in range(count)] for seat in hand.seats}
        if self.rig is None:
            for seat, cards in self.dealt.items():
                await self._show_to_camera(seat, cards)
            return
        self.rig.clear()
        self.laid = []
        for seat, cards in self.dealt.items():
            await self.rig.show_hand(seat, cards)
        await self._until(lambda: all(self._known(seat) for seat in self.dealt))
        for seat, cards in self.dealt.items():
            self.rig.put_away(seat)  # read or not, the player puts the cards down
            if not self._known(seat):
                self.fallbacks["hole_cards"] += 1
                log.info("demo dealer: the camera did not read seat %d in time; the card room enters them", seat)
                await self._card_room(seat, cards)

    def _known(self, seat: int) -> bool:
        hand = self.core.state.hand
        return hand is not None and "??" not in hand.hole[hand.index(seat)]

    async def _until(self, done: Any) -> bool:
        """Wait for the cameras' reads to reach the core (at most ``camera_wait`` seconds)."""
        loop = asyncio.get_running_loop()
        end = loop.time() + self.camera_wait
        while not done():
            if loop.time() > end:
                return False
            await asyncio.sleep(0.1)
        return True

    async def _card_room(self, seat: int, cards: list[str]) -> None:
        """What the secure card room does when the camera could not read a hand."""
        camera = self.core.compliance.camera
        shown = camera.hand == self.core.state.hand_no and seat in camera.shown  # the camera saw faces
        if self.core.tv_rules and not shown:
            await self._do({"type": "cards_shown", "seat": seat, "source": "camera"},
                           person="demo camera", role="camera")
        await self._do({"type": "hole_cards", "seat": seat, "cards": cards, "source": "secure"},
                       person="demo card room", role="secure")

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
            if self.rig is not None:
                before = len(self.core.state.hand.board)
                self.laid = list(self.core.state.hand.board) + cards
                await self.rig.lay_board(self.laid)
                if await self._until(lambda: self.core.state.hand is None or len(self.core.state.hand.board) > before):
                    return
                self.fallbacks["board"] += 1
                log.info("demo dealer: the board camera did not read the board in time; the dealer keys it")
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


def _rig(core: TableCore, show: Any, seed: int | None, reader: bool = True) -> Any:
    from cardcam.demo_rig import DemoRig

    return DemoRig(core.redis, show, core.table, seed=seed, reader=reader)
