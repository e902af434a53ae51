"""The demo's cameras: synthetic frames of what lies on the table, read by the real worker.

``tvtable demo --cameras`` puts a hole-card camera on every seat and a board camera over
the table.  :class:`DemoRig` plays the capture PCs: it renders synthetic frames
(:mod:`cardcam.synth`) of the cards the demo dealer dealt and laid out, and pushes them as
JPEGs onto each camera's frame stream, exactly as the ingest does for a real capture PC.
The real :class:`cardcam.worker.Worker` (its own vision processes) reads them, confirms
K of N and posts ``cards_shown``, ``hole_cards`` and ``board`` to the core's inbox.

Nothing here logs a card: the rig's log lines name seats and cameras only.
"""
from __future__ import annotations

import asyncio
import itertools
import logging
import random
import time
from typing import Any

from .cameras import BOARD, frames_key, read_cardcam
from .vision import process_pool, shutdown_pool, warm
from .worker import Worker

log = logging.getLogger("tvtable.cardcam.demo")

DECK = "anglo"
FRAME_STREAM_LEN = 4  # the worker reads only the newest frame


class DemoRig:
    """Hole-card cameras for ``seats`` and a board camera at one table, plus their worker."""

    def __init__(self, redis: Any, show: Any, table: str, *, deck: str = DECK, level: str = "easy",
                 fps: float = 4.0, seed: int | None = None, jobs: int | None = None,
                 reader: bool = True) -> None:
        """``reader``: run the card reader here; False pushes the frames only, for a
        ``tvtable cardcam run`` elsewhere with :meth:`cameras_toml` in its show file."""
        self.redis = redis
        self.reader = reader
        self.table = table
        self.deck = deck
        self.level = level
        self.fps = fps
        self.rng = random.Random(seed)
        seats = [s.seat for s in show.table(table).seats]
        cams = [{"id": self.camera(n), "table": table, "source": "push", "seat": n, "group": "demo"} for n in seats]
        cams.append({"id": self.camera(BOARD), "table": table, "source": "push", "board": True, "group": "demo"})
        self.settings = read_cardcam({"cameras": cams}, show.tables)
        self.show = show
        self.jobs = jobs or 2
        self.worker: Worker | None = None
        self.ready = asyncio.Event()  # set once the vision processes have loaded the model
        self._showing: dict[Any, list[bytes] | None] = {n: None for n in seats}
        self._showing[BOARD] = None
        self._empty: list[bytes] = []

    def cameras_toml(self) -> str:
        """The ``[[cameras]]`` sections of these cameras, for a show file that a separate
        ``tvtable cardcam run`` reads (the demo's frames, another process's reader)."""
        out = []
        for cam in self.settings.cameras:
            seat = cam.regions[0].seat
            where = "board = true" if seat == BOARD else f"seat = {seat}"
            out.append(f'[[cameras]]\nid = "{cam.id}"\ntable = "{cam.table}"\nsource = "push"\n{where}\n'
                       f'group = "{cam.group}"\n')
        return "\n".join(out)

    def camera(self, seat: Any) -> str:
        return f"demo-{self.table}-{'board' if seat == BOARD else f'seat{seat}'}"

    # -- what lies in front of each camera ------------------------------------------------------
    async def show_hand(self, seat: int, cards: list[str]) -> None:
        """The player at ``seat`` shows these hole cards to the camera (until put away)."""
        self._showing[seat] = await asyncio.to_thread(self._render, cards, False)

    def put_away(self, seat: int) -> None:
        """The player puts the cards down: the camera sees the felt."""
        self._showing[seat] = None

    async def lay_board(self, cards: list[str]) -> None:
        """The board as it lies now (flop, turn, river), under the board camera."""
        self._showing[BOARD] = await asyncio.to_thread(self._render, cards, True) if cards else None

    def clear(self) -> None:
        """A new hand: nothing is shown and the board is gathered."""
        for where in self._showing:
            self._showing[where] = None

    def _render(self, cards: list[str], board: bool, frames: int = 4) -> list[bytes]:
        import cv2
        import numpy as np

        from . import synth

        out = []
        # a hand is held still, as players do: the reader follows it from frame to frame
        held = None if board else synth.HeldHand(np.random.default_rng(self.rng.getrandbits(32)), self.deck,
                                                  len(cards), self.level, cards=tuple(cards), frames=frames,
                                                  glare=False)
        for i in range(frames):
            if held is not None:
                image = held.frame(i).image
            else:
                rng = np.random.default_rng(self.rng.getrandbits(32))
                image = synth.board_frame(rng, self.deck, tuple(cards), self.level).image
            out.append(cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 85])[1].tobytes())
        return out

    def _render_empty(self) -> list[bytes]:
        return self._render([], True, frames=2)

    # -- running ------------------------------------------------------------------------------
    async def run(self) -> None:
        """Run the worker and push frames until cancelled."""
        loop = asyncio.get_running_loop()
        self._empty = await asyncio.to_thread(self._render_empty)
        if not self.reader:  # a capture PC only: the reader runs in another process
            self.ready.set()
            await self._push()
            return
        pool = process_pool(self.jobs)
        # The model loads in every vision process before the first hand is dealt.
        try:
            await asyncio.gather(*(loop.run_in_executor(pool, warm) for _ in range(self.jobs)))
        except BaseException:
            await shutdown_pool(pool)
            raise
        self.worker = Worker(self.redis, self.show, self.settings, name="demo", pool=pool,
                             pool_factory=lambda: process_pool(self.jobs))
        self.worker._own_pool = True  # the worker shuts the pool down when it stops
        worker = loop.create_task(self.worker.run(), name=f"demo cameras {self.table}")
        try:
            self.ready.set()
            await self._push()
        finally:
            await stop(worker)

    async def _push(self) -> None:
        """Push the newest frame of every camera, ``fps`` times a second; the felt once a second."""
        every = max(1, round(self.fps))
        for tick in itertools.count():
            pipe = self.redis.pipeline(transaction=False)
            for where, frames in self._showing.items():
                if frames is None and tick % every:
                    continue  # nothing shown: one frame of felt a second keeps the camera "live"
                data = (frames or self._empty)[tick % len(frames or self._empty)]
                pipe.xadd(frames_key(self.camera(where)), {"jpeg": data, "ts": int(time.time() * 1000)},
                          maxlen=FRAME_STREAM_LEN, approximate=False)
            try:
                await pipe.execute()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - a capture PC keeps sending
                log.warning("demo cameras of table %s: cannot push frames (%s)", self.table, type(exc).__name__)
            await asyncio.sleep(1.0 / self.fps)


async def stop(task: asyncio.Task) -> None:
    """Cancel a task and wait until it has ended (a task in XREAD can swallow one cancel)."""
    while not task.done():
        task.cancel()
        await asyncio.wait([task], timeout=1)
