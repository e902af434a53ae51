"""The cardcam worker: camera frames in, confirmed card reads out to the core's inbox.

One :class:`Worker` runs the cameras of one group (``tvtable cardcam run`` starts one
worker process per group, on this machine or another, through the same Redis):

* each camera's :mod:`~cardcam.sources` source hands over its latest frame;
* the vision work (JPEG decode, crop, :func:`cardcam.recognize.recognize`, the card-room
  thumbnail) is :mod:`cardcam.vision`'s job, run in a pool of processes (or threads),
  never on the event loop;
* per seat, :class:`cardcam.tracker.TableTracker` confirms a card when K of the last N
  frames agree; the worker posts to the table's inbox stream, each command with an id
  of its own so a retry is applied once:

  - ``{"type": "cards_shown", "seat": N, "source": "camera"}`` when faces are shown;
  - ``{"type": "hole_cards", "seat": N, "cards": ["As", "??"], "source": "camera"}``
    when the confirmed cards add to what it posted (``??`` for cards it is not sure of);
  - ``{"type": "camera_check", "seats": [3, 5], "board": false}`` for a duplicate or
    impossible read: the seats, never the card;
  - from a board camera, ``{"type": "board", "cards": [...], "source": "camera"}``, the
    dealer's own command, only when the core waits for those very cards (see
    :mod:`cardcam.board`: the core's board-need key tells it, with no hole card in it).

* for the secure card room it keeps, in Redis (see :mod:`cardcam.cameras` for the
  names), each seat's read and light, the latest frame crop, and the alerts with their
  card; for any live screen, the per-seat light and each camera's health, which hold no
  card.

A dead camera is reported (health ``down``, a warning naming the camera) and reopened
with backoff; a frame that cannot be decoded is skipped and counted.  Nothing the worker
logs, counts or reports outside the secret keys names a card.
"""
from __future__ import annotations

import asyncio
import itertools
import json
import logging
import os
import secrets
import time
from concurrent.futures import BrokenExecutor, Executor, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Callable

from broadcast.store import keys

from . import cameras as names
from .cameras import BOARD, BOARD_CARDS, Camera, CardcamSettings, hole_cards
from .board import BoardFollower, cards_to_deal
from . import schedule
from .sources import Source, make_source
from .tracker import UNKNOWN, TableTracker
from .vision import analyse, process_pool, shutdown_pool, warm

log = logging.getLogger("tvtable.cardcam")

EVENTS_MAXLEN = 2000

# -- the worker ---------------------------------------------------------------------------

@dataclass(frozen=True)
class SeatRead:
    """One frame's read of one seat, as the tracker wants it."""

    shown: bool
    faces: int
    cards: tuple[str, ...]
    confidence: tuple[float, ...]


class Places:
    """The vision pool's places: as many as it has processes. A camera takes one for each
    frame it reads; when one comes free it goes to the waiting camera that needs a read
    most (:func:`cardcam.schedule.order`), not to the first to ask. The pool itself then
    never queues a frame: a frame is read as soon as it is given a place."""

    def __init__(self, n: int, key: Callable[[str], Any]) -> None:
        self.free = max(1, n)
        self.key = key  # camera id -> sort key, asked when a place comes free
        self.waiting: dict[str, asyncio.Future] = {}

    async def take(self, camera: str) -> None:
        """Wait for a place for ``camera`` (one frame's read); :meth:`give_back` it after."""
        if self.free > 0 and not self.waiting:
            self.free -= 1
            return
        fut = asyncio.get_running_loop().create_future()
        self.waiting[camera] = fut
        try:
            await fut
        except asyncio.CancelledError:
            if self.waiting.get(camera) is fut:
                del self.waiting[camera]
            elif fut.done() and not fut.cancelled():
                self.give_back()  # given a place just as it was cancelled: pass it on
            raise

    def give_back(self) -> None:
        """A read is over: its place goes to the waiting camera that needs it most."""
        while self.waiting:
            camera = min(self.waiting, key=self.key)
            fut = self.waiting.pop(camera)
            if not fut.done():
                fut.set_result(None)
                return
        self.free += 1


class Worker:
    """Runs the cameras of one group until cancelled (or until every source has ended)."""

    def __init__(self, redis: Any, show: Any, settings: CardcamSettings, cameras: tuple[Camera, ...] | None = None,
                 *, group: str | None = None, pool: Executor | None = None,
                 pool_factory: Callable[[], Executor] | None = None, name: str | None = None,
                 model_path: str | None = None, sources: dict[str, Source] | None = None) -> None:
        if cameras is None:
            cameras = tuple(c for c in settings.cameras if group is None or c.group == group)
        if not cameras:
            raise ValueError(f"no cameras in group {group!r}" if group else "no cameras configured")
        self.redis = redis
        self.show = show
        self.settings = settings
        self.cameras = cameras
        self.name = name or (group or "main")
        self.person = f"cardcam {self.name} (camera)"
        self.model_path = model_path
        self.pool = pool
        self._own_pool = pool is None
        self._pool_factory = pool_factory or (lambda: process_pool(min(len(cameras), os.cpu_count() or 1),
                                                                   model_path=model_path,
                                                                   profile=settings.profile))
        self._given_sources = sources or {}
        self.sources: dict[str, Source] = {}
        self.run_id = secrets.token_hex(4)
        self._ids = itertools.count(1)
        # per table: the tracker, what was posted, the open alerts
        self.trackers: dict[str, TableTracker] = {}
        by_table: dict[str, dict[Any, int]] = {}
        boards: set[str] = set()
        for cam in cameras:
            for region in cam.regions:
                if region.seat == BOARD:
                    boards.add(cam.table)
                else:
                    by_table.setdefault(cam.table, {})[region.seat] = hole_cards(show, cam.table)
        for table in set(by_table) | boards:
            self.trackers[table] = TableTracker(by_table.get(table, {}), board_cards=BOARD_CARDS if table in boards else 0,
                                                k=settings.k, n=settings.n)
        self._posted: dict[tuple[str, Any], frozenset[str]] = {}
        self._shown_posted: set[tuple[str, Any]] = set()
        # per table with a board camera: what the core has, and the street already posted
        self.boards: dict[str, BoardFollower] = {t: BoardFollower(redis, t) for t in boards}
        self._board_hand: dict[str, int] = {}
        self._board_posted: dict[str, tuple[int, int]] = {}
        self._published: dict[tuple[str, Any], tuple] = {}
        self._published_at: dict[tuple[str, Any], float] = {}
        self._lights: dict[tuple[str, Any], str] = {}
        self._alerts: dict[str, dict[tuple, float]] = {t: {} for t in self.trackers}
        self._last_crop: dict[tuple[str, Any], float] = {}
        self.stats: dict[str, dict[str, float]] = {
            c.id: {"processed": 0, "followed": 0, "undecodable": 0, "failed": 0, "ms": 0.0} for c in cameras}
        self.posted: list[dict] = []  # what went to the inbox (for tests and `--json` summaries)
        # which camera reads next (cardcam.schedule): when each was last read, its class,
        # and since when each seat's faces have been confirmed shown (worker's clock)
        self._last_read: dict[str, float] = {}
        self._need: dict[str, int] = {}
        self._shown_since: dict[tuple[str, Any], float] = {}
        self.places: Places | None = None
        self._health_tasks: set[asyncio.Task] = set()
        self._since: dict[str, tuple[str, int]] = {}
        self.health_every = 2.0

    # -- running ---------------------------------------------------------------------------
    async def run(self) -> None:
        if self.pool is None:
            self.pool = self._pool_factory()
        # two places a process: one frame read, the next one ready in its queue (with one, a
        # process idled for the hand-over between reads, and the pool read 76 % of the frames
        # instead of 85 %)
        self.places = Places(2 * (getattr(self.pool, "_max_workers", None) or 1),
                             lambda cam: schedule.order(self._need.get(cam, schedule.FRESH),
                                                        self._last_read.get(cam, 0.0), time.monotonic()))
        tasks = []
        try:
            for table in self.trackers:  # alerts of an earlier run of this worker are stale
                await _quietly(self.redis.hdel(names.alerts_key(table), self.name),
                               f"cardcam {self.name}: cannot clear old alerts of table {table}")
            for cam in self.cameras:
                source = self._given_sources.get(cam.id) or make_source(
                    cam, self.redis, on_status=lambda s, r, cam=cam: self._on_status(cam, s, r))
                if cam.id in self._given_sources:
                    source.on_status = lambda s, r, cam=cam: self._on_status(cam, s, r)
                self.sources[cam.id] = source
                await self._health(cam, "starting", "")
                await source.start()
                tasks.append(asyncio.get_running_loop().create_task(self._camera(cam, source), name=f"camera {cam.id}"))
            log.info("cardcam %s: reading %d camera(s): %s", self.name, len(self.cameras),
                     ", ".join(f"{c.id} ({', '.join(r.label for r in c.regions)})" for c in self.cameras))
            refresher = asyncio.get_running_loop().create_task(self._refresh_health(self.health_every))
            try:
                await asyncio.gather(*tasks)
            finally:
                refresher.cancel()
        finally:
            for task in tasks:
                task.cancel()
            for source in self.sources.values():
                try:
                    await source.close()
                except Exception:  # noqa: BLE001
                    pass
            for task in list(self._health_tasks):
                task.cancel()
            for cam in self.cameras:
                if self._since.get(cam.id, ("stopped",))[0] not in ("ended", "stopped"):
                    # the card room and the dealer's lights must not show a stopped camera as
                    # live; a Redis that is gone does not hold the stop up for long
                    try:
                        await asyncio.wait_for(self._health(cam, "stopped", "its worker stopped"), 2.0)
                    except asyncio.TimeoutError:
                        log.warning("cardcam %s: cannot report camera %s stopped", self.name, cam.id)
            if self._own_pool and self.pool is not None:
                pool, self.pool = self.pool, None
                await shutdown_pool(pool)

    async def _camera(self, cam: Camera, source: Source) -> None:
        loop = asyncio.get_running_loop()
        regions = [(r.seat, r.box, BOARD_CARDS if r.seat == BOARD else hole_cards(self.show, cam.table))
                   for r in cam.regions]
        stats = self.stats[cam.id]
        # where the last frame's hands were read (card codes: they stay in this process and its pool)
        tracks: dict[Any, list] = {}
        while True:
            frame = await source.next_frame()
            if frame is None:
                await self._health(cam, source.status if source.status == "ended" else "stopped", source.reason)
                return
            places = self.places
            assert places is not None, "run() gives the worker its places"
            await places.take(cam.id)
            try:
                frame = source.newest(frame)  # a newer frame came while this one waited its turn
                now = self._last_read[cam.id] = time.monotonic()
                crops = any(now - self._last_crop.get((cam.table, r[0]), -1e9) >= self.settings.crop_every
                            for r in regions)
                job = {"image": frame.image, "jpeg": frame.jpeg, "regions": regions, "crops": crops,
                       "model": self.model_path, "profile": self.settings.profile, "tracks": tracks}
                try:
                    result = await loop.run_in_executor(self.pool, analyse, job)
                except BrokenExecutor:
                    log.error("cardcam %s: the vision pool broke; starting a new one", self.name)
                    self.pool = self._pool_factory()
                    self._own_pool = True
                    stats["failed"] += 1
                    continue
                if not result.get("ok"):
                    stats["undecodable"] += 1
                    continue
                tracks = result.get("tracks") or {}
                stats["processed"] += 1
                stats["followed"] += any(raw and raw.get("followed") for _, raw in result["reads"])
                stats["ms"] = result["ms"]
                if crops:
                    for seat, _, _ in regions:
                        self._last_crop[(cam.table, seat)] = now
                await self._handle(cam, frame.ts, result)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - one bad frame never stops the camera
                stats["failed"] += 1
                # the type only: a message could quote a value, and values here can be cards
                log.error("cardcam %s: camera %s: a frame was skipped (%s)", self.name, cam.id, type(exc).__name__)
            finally:
                places.give_back()

    async def _handle(self, cam: Camera, ts: float, result: dict) -> None:
        table = cam.table
        tracker = self.trackers[table]
        crops = result.get("crops") or {}
        for seat, raw in result["reads"]:
            if raw is None:
                continue
            read = SeatRead(raw["shown"], raw["faces"], tuple(raw["cards"]), tuple(raw["confidence"]))
            need = await self._board_need(table) if seat == BOARD else None
            changes = tracker.update(seat, read, ts)
            state = tracker.state(seat)
            if seat == BOARD:
                await self._deal_board(table, state, need)
            else:
                for change in changes:
                    if change.kind == "HoleCardsShown" and (table, seat) not in self._shown_posted:
                        # once until the cards are put away: "shown" flickering under glare is one showing
                        self._shown_posted.add((table, seat))
                        await self.post(table, {"type": "cards_shown", "seat": seat, "source": "camera"})
                    elif change.kind == "HoleCardsSeen":
                        await self._post_cards(table, seat, change.cards)
                if not state.shown and all(c == UNKNOWN for c in state.cards):
                    self._posted.pop((table, seat), None)  # cards put away: the next hand starts afresh
                    self._shown_posted.discard((table, seat))
            await self._publish_seat(cam, seat, state, raw, ts, crops.get(seat))
        # how much this camera needs the pool (cardcam.schedule): its most urgent seat's class
        now, classes = time.monotonic(), []
        for seat, _ in result["reads"]:
            state = tracker.state(seat)
            if not state.shown:
                self._shown_since.pop((table, seat), None)
            shown_for = now - self._shown_since.setdefault((table, seat), now) if state.shown else 0.0
            classes.append(schedule.FRESH if seat == BOARD else schedule.need(state.shown, state.complete, shown_for))
        self._need[cam.id] = min(classes, default=schedule.FRESH)
        await self._check_alerts(table)

    async def _board_need(self, table: str):
        """What the core has on the board and waits for; a new hand starts the board afresh."""
        need = await self.boards[table].refresh()
        if need is not None and self._board_hand.get(table) != need.hand:
            self._board_hand[table] = need.hand
            self.trackers[table].trackers[BOARD].reset()  # last hand's board confirms nothing now
        return need

    async def _deal_board(self, table: str, state: Any, need: Any) -> None:
        if need is None:
            return
        cards = cards_to_deal(state.cards, need.board, need.needs)
        street = (need.hand, len(need.board))
        if cards is None or self._board_posted.get(table) == street:
            return  # nothing due, not sure, or this street is posted already (the core decides)
        self._board_posted[table] = street
        await self.post(table, {"type": "board", "cards": list(cards), "source": "camera"})

    async def _post_cards(self, table: str, seat: Any, cards: tuple[str, ...]) -> None:
        known = frozenset(c for c in cards if c != UNKNOWN)
        before = self._posted.get((table, seat), frozenset())
        if not known or known <= before:
            return  # nothing new: a card falling out of view never takes back a read
        self._posted[(table, seat)] = known
        await self.post(table, {"type": "hole_cards", "seat": seat, "cards": list(cards), "source": "camera"})

    async def post(self, table: str, command: dict) -> bool:
        """Add one command to the table's inbox, with an id of ours; retried with the same id."""
        command = {**command, "id": f"cardcam-{self.name}-{self.run_id}-{next(self._ids)}"}
        fields = {"c": json.dumps(command, separators=(",", ":")), "person": self.person}
        for attempt in range(1, 6):
            try:
                await self.redis.xadd(keys.inbox(table), fields)
                self.posted.append(command)
                log.info("cardcam %s: table %s: %s for %s", self.name, table, command["type"], _where(command))
                return True
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - Redis away: same id, so the core applies it once
                wait = min(5.0, 0.2 * 2 ** attempt)
                log.warning("cardcam %s: table %s: cannot post %s for %s (%s); retrying in %g s", self.name, table,
                            command["type"], _where(command), type(exc).__name__, wait)
                await asyncio.sleep(wait)
        log.error("cardcam %s: table %s: gave up posting %s for %s", self.name, table, command["type"], _where(command))
        return False

    # -- what the card room and live screens see ----------------------------------------------
    async def _publish_seat(self, cam: Camera, seat: Any, state: Any, raw: dict, ts: float, crop: bytes | None) -> None:
        table = cam.table
        key = (table, seat)
        body = {
            "seat": seat, "camera": cam.id, "light": state.light, "shown": state.shown,
            "cards": list(state.cards), "confidence": list(state.confidence), "impossible": state.impossible,
            "frame": {"shown": raw["shown"], "faces": raw["faces"], "cards": raw["cards"], "confidence": raw["confidence"]},
        }
        signature = json.dumps(body, sort_keys=True)
        now = time.monotonic()
        changed = self._published.get(key) != signature
        if not changed and crop is None and now - self._published_at.get(key, 0) < 1.0:
            return
        self._published[key] = signature
        self._published_at[key] = now
        body.update(ts=int(ts * 1000), ms=raw.get("ms"), k=self.settings.k, n=self.settings.n)
        field = str(seat)
        pipe = self.redis.pipeline(transaction=False)
        pipe.hset(names.seats_key(table), field, json.dumps(body, separators=(",", ":")))
        if crop is not None:
            pipe.hset(names.crops_key(table), field, crop)
        if self._lights.get(key) != state.light:
            self._lights[key] = state.light
            pipe.hset(names.lights_key(table), field, state.light)
        pipe.xadd(names.events_key(table), {"k": "seat", "seat": field, "crop": "1" if crop is not None else "0"},
                  maxlen=EVENTS_MAXLEN, approximate=True)
        await _quietly(pipe.execute(), f"cardcam {self.name}: cannot publish {_label(seat)} of table {table}")

    async def _check_alerts(self, table: str) -> None:
        tracker = self.trackers[table]
        now_ms = int(time.time() * 1000)
        previous = self._alerts[table]
        current: dict[tuple, float] = {}
        for alert in tracker.alerts():
            sig = (alert.kind, tuple(alert.seats), alert.card)
            current[sig] = previous.get(sig, now_ms)
        if set(current) == set(previous):
            return
        self._alerts[table] = current
        for sig in current:
            if sig in previous:
                continue
            kind, seats, _ = sig
            where = [s for s in seats if s != BOARD]
            # Live screens say which seats, never which card.
            log.warning("cardcam %s: table %s: %s (%s read)", self.name, table,
                        "; ".join(f"{_label(s)}: camera check" for s in seats), kind)
            await self.post(table, {"type": "camera_check", "seats": where, "board": BOARD in seats})
        detail = [{"id": names.alert_id(table, kind, card, seats, since), "kind": kind, "card": card,
                   "seats": list(seats), "since": since}
                  for (kind, seats, card), since in sorted(current.items(), key=lambda kv: kv[1])]
        pipe = self.redis.pipeline(transaction=False)
        pipe.hset(names.alerts_key(table), self.name, json.dumps(detail, separators=(",", ":")))
        pipe.xadd(names.events_key(table), {"k": "alerts"}, maxlen=EVENTS_MAXLEN, approximate=True)
        await _quietly(pipe.execute(), f"cardcam {self.name}: cannot publish the alerts of table {table}")

    def _on_status(self, cam: Camera, status: str, reason: str) -> None:
        task = asyncio.get_running_loop().create_task(self._health(cam, status, reason))
        self._health_tasks.add(task)
        task.add_done_callback(self._health_tasks.discard)

    async def _refresh_health(self, every: float) -> None:
        """Re-report every camera now and then, so the counters in the card room move."""
        while True:
            await asyncio.sleep(every)
            for cam in self.cameras:
                source = self.sources.get(cam.id)
                if source is not None:
                    await self._health(cam, source.status, source.reason)

    async def _health(self, cam: Camera, status: str, reason: str) -> None:
        source = self.sources.get(cam.id)
        last = self._since.get(cam.id)
        if last is None or last[0] != status:
            last = self._since[cam.id] = (status, int(time.time() * 1000))
        body = {"camera": cam.id, "table": cam.table, "seats": [r.label for r in cam.regions], "status": status,
                "reason": reason, "since": last[1], "worker": self.name,
                "kind": cam.kind, "stats": {**self.stats[cam.id], **(source.stats if source else {})}}
        pipe = self.redis.pipeline(transaction=False)
        pipe.hset(names.health_key(), cam.id, json.dumps(body, separators=(",", ":")))
        pipe.xadd(names.events_key(cam.table), {"k": "health", "camera": cam.id}, maxlen=EVENTS_MAXLEN, approximate=True)
        if status in ("down", "ended", "stopped"):
            for region in cam.regions:  # no picture: no light
                self._lights[(cam.table, region.seat)] = "none"
                pipe.hset(names.lights_key(cam.table), str(region.seat), "none")
        await _quietly(pipe.execute(), f"cardcam {self.name}: cannot report camera {cam.id}")


def _label(seat: Any) -> str:
    return BOARD if seat == BOARD else f"seat {seat}"


def _where(command: dict) -> str:
    """Where a command is about, for a log line: seats only, never its cards."""
    if "seat" in command:
        return _label(command["seat"])
    if command.get("type") == "board":
        return BOARD
    seats = [_label(s) for s in command.get("seats", [])] + ([BOARD] if command.get("board") else [])
    return ", ".join(seats) or "the table"


async def _quietly(awaitable: Any, what: str) -> None:
    try:
        await awaitable
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # noqa: BLE001 - reporting must not stop reading
        log.warning("%s (%s)", what, type(exc).__name__)


# -- one process per group -------------------------------------------------------------------

async def run_group(show: Any, settings: CardcamSettings, group: str | None, redis_url: str, *,
                    jobs: int | None = None, model_path: str | None = None, seconds: float = 0,
                    threads: bool = False) -> int:
    """Run one group's worker against Redis until cancelled (or for ``seconds``). Cancelled,
    it stops the worker and its vision processes first, then ends cancelled."""
    import redis.asyncio as aioredis

    cams = tuple(c for c in settings.cameras if group is None or c.group == group)
    client = aioredis.from_url(redis_url)
    try:
        await client.ping()
        if threads:
            pool: Executor = ThreadPoolExecutor(max_workers=jobs or 1, thread_name_prefix="cardcam-vision")
            await asyncio.get_running_loop().run_in_executor(pool, warm, model_path, settings.profile)
        else:
            pool = process_pool(jobs or min(len(cams), os.cpu_count() or 1), model_path=model_path,
                                profile=settings.profile)
        worker = Worker(client, show, settings, cams, group=group, pool=pool,
                        pool_factory=(lambda: process_pool(jobs, model_path=model_path, profile=settings.profile))
                        if not threads else None, model_path=model_path)
        worker._own_pool = True
        loop = asyncio.get_running_loop()
        task = loop.create_task(worker.run())
        stopped = False
        try:
            await asyncio.wait([task], timeout=seconds or None)
        except asyncio.CancelledError:
            stopped = True  # a signal, or the show stopping: the worker stops below, then Redis closes
        while not task.done():  # a task in XREAD can swallow one cancel
            task.cancel()
            await asyncio.wait([task], timeout=0.5)
        if not task.cancelled() and task.exception() is not None:
            raise task.exception()  # the show's supervisor logs it and starts the group again
        if stopped:
            # stopped cleanly, and the caller asked for it: it sees the cancel it made, so a
            # supervisor or a timeout around this group knows it was stopped, not finished
            raise asyncio.CancelledError
        return 0
    finally:
        await client.aclose()
