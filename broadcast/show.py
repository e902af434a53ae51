"""A running show: Redis (embedded or external), one core and one releaser per table,
and the readers that carry the delayed streams to the sockets.

One process may run every service (the default, and ``tvtable demo``) or only some, so
a show can spread over several machines against one external Redis:

* ``core``: the tables' cores (the only journal writers), their inbox followers and
  releasers, and the crew's pages. One core process per show writes; a second one started
  with ``standby`` runs only releasers, which wait on each table's release lock and take
  over when the holder dies, so what the journal already holds keeps airing on time while
  the writer restarts (the fenced cursor and Redis ``TIME`` keep it from airing twice or early).
* ``overlay``: pages and sockets fed only from the delayed ``public`` and ``commentary``
  streams (and the live ``control`` stream), read with XREAD. It opens no journal, so it
  runs under a Redis user that cannot read one; start as many as the viewers need.
* ``cardcam``: the camera workers of the show's ``[[cameras]]``, posting to the inboxes.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import time
import traceback
from pathlib import Path
from typing import Any, Awaitable, Callable, Mapping

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from .engine.errors import Refusal
from .service import TableCore
from .settings import SERVICE_KINDS, Show
from .store import keys
from .store.acl import redacted, service_url
from .store.chain import load_or_create_key
from .store.embedded import EmbeddedRedis
from .store.persistence import check_persistence
from .store.releaser import Releaser
from .tokens import resolve_people
from .web.feeds import Hub

log = logging.getLogger("tvtable.show")

DELAYED_FEEDS = ("public", "commentary")
SERVICES = SERVICE_KINDS  # core, overlay, cardcam


# A Redis restart takes about a second: try again at least that often, so the releaser and
# the feeds are back within a second of it (an operator watching the air notices more).
REDIS_RETRY_MAX_S = 1.0

def parse_services(text: str) -> frozenset[str]:
    """``"core,overlay"`` -> the set of services; raises ``ValueError`` naming a wrong one."""
    chosen = [part.strip() for part in text.split(",") if part.strip()]
    wrong = [part for part in chosen if part not in SERVICES]
    if wrong or not chosen:
        raise ValueError(f"--services takes a comma-separated list of {', '.join(SERVICES)}"
                         + (f"; {', '.join(map(repr, wrong))} is not one" if wrong else ""))
    return frozenset(chosen)


class OverlayTable:
    """A table as an overlay server sees it: its id and config, never its journal.

    Stands in for a ``TableCore`` where the web app looks a table up; everything live
    (views, commands) is the core's, so it is refused here with a clear message.
    """

    def __init__(self, config: Any) -> None:
        self.config = config
        self.table = config.id
        self.listeners: list = []

    def view(self, feed: str) -> dict[str, Any]:
        raise Refusal(f"the {feed} view is served by the core's web server; this overlay server carries only "
                      "delayed data", field="feed")

    async def submit(self, *_: Any, **__: Any) -> Any:
        raise Refusal("commands go to the core's web server; this overlay server only shows delayed data", field="table")

    def awaiting_cards(self) -> tuple[int, ...]:
        return ()


def failure(exc: BaseException) -> str:
    """An error for the log: its type and where it was raised, never its text (which could
    name a live card; logs are not secure)."""
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" at {Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else ""
    return f"{type(exc).__name__}{where}"


class ShowRuntime:
    """Everything one ``tvtable serve`` process runs. ``start()``, then ``stop()``.

    ``services`` picks what runs here (default core and overlay: the camera workers are
    ``tvtable serve``'s, or ``cardcam run``'s, to start).
    """

    def __init__(
        self,
        show: Show,
        data_dir: Path,
        *,
        redis_url: str | None = None,
        delay_override: float | None = None,
        environ: Mapping[str, str] | None = None,
        services: frozenset[str] | set[str] | tuple[str, ...] = ("core", "overlay"),
        cardcam_options: Mapping[str, Any] | None = None,
        standby: bool = False,
    ) -> None:
        self.show = show
        self.services = frozenset(services)
        self.standby = standby  # core: releasers only, waiting to take over (no journal writer)
        self.cardcam_options = dict(cardcam_options or {})
        self.data_dir = Path(data_dir)
        self.redis_url = redis_url or show.redis_url
        self.delay_override = delay_override
        self.environ = os.environ if environ is None else environ
        self.people, self.generated_tokens = resolve_people(show, self.data_dir, self.environ)
        self.hub = Hub()
        self.embedded: EmbeddedRedis | None = None
        self.redis: aioredis.Redis | None = None
        self.cores: dict[str, Any] = {}  # TableCore per table; OverlayTable on an overlay-only server
        self.field = None  # the field coordinator, with two or more tables (broadcast/field.py)
        self.url: str | None = None  # the Redis URL in use (with this process's user)
        self.releasers: dict[str, Releaser] = {}
        self._tasks: list[asyncio.Task] = []

    @property
    def rules(self):
        """The show's ``[compliance]`` settings as the compliance core's config."""
        from .compliance.config import ComplianceConfig

        c = self.show.compliance
        return ComplianceConfig(halt_at=c.halt_at, hidden_camera=c.hidden_camera, organiser=c.organiser,
                                approved_operators=c.approved_operators, forbidden_operators=c.forbidden_operators,
                                unauthorised_satellites=c.unauthorised_satellites,
                                clock_standard=(c.clock_seconds, c.clock_countdown),
                                clock_short_levels=(c.short_level_clock_seconds, c.short_level_clock_countdown),
                                short_level_minutes=c.short_level_minutes, clock_tie_ms=c.clock_tie_ms)

    def delay(self, table_id: str) -> float:
        return self.delay_override if self.delay_override is not None else self.show.table(table_id).delay

    @property
    def kind(self) -> str:
        """Which Redis user this process connects as: the widest of its services."""
        return next(kind for kind in SERVICES if kind in self.services)

    def service_url(self, kind: str) -> str:
        """The Redis URL for one process kind (its ACL user, password and TLS files)."""
        assert self.url is not None, "start() first"
        if self.embedded is not None:
            return self.url  # one machine, one private socket: no per-kind users
        return service_url(self.url, kind, self.show, self.environ)

    async def start(self) -> None:
        """Connect Redis, check it keeps what it acknowledges, open every table."""
        if self.redis_url is None:
            self.embedded = EmbeddedRedis(self.data_dir)
            self.url = await asyncio.to_thread(self.embedded.start)
            where = "embedded Redis under " + str(self.data_dir)
        else:
            self.url = self.redis_url
        url = self.service_url(self.kind)
        if self.embedded is None:
            where = f"external Redis {redacted(url)} as the {self.kind} user"
        self.redis = aioredis.from_url(url)
        await self.redis.ping()
        log.info("using %s for %s", where, ", ".join(k for k in SERVICES if k in self.services))
        if "core" in self.services:
            await self._start_cores()
        elif "overlay" in self.services:
            self.cores = {t.id: OverlayTable(t) for t in self.show.tables}
        if "overlay" in self.services or "core" in self.services:
            for table in self.show.tables:
                for feed in DELAYED_FEEDS:
                    self._spawn(lambda feed=feed, t=table.id: self._carry(feed, t), f"{feed} reader {table.id}")
        if "cardcam" in self.services:
            self._start_cardcam()

    async def _start_cores(self) -> None:
        for warning in await check_persistence(self.redis, allow_unsafe=self.show.allow_unsafe_redis):
            log.warning("%s", warning)
        from .equity import prepare

        await asyncio.to_thread(prepare)  # the equity tables, built once so the first all-in airs at once
        if self.standby:
            for table in self.show.tables:
                self.cores[table.id] = OverlayTable(table)  # pages still find the table; commands go to the writer
                self._start_releaser(table.id)
            return
        key = load_or_create_key(self.data_dir)
        for table in self.show.tables:
            core = TableCore(self.redis, table, self.show.levels, key, delay_s=self.delay(table.id),
                             compliance_config=self.rules, field_data=self.show.field_data)
            await core.open()
            core.listeners.append(self._live_changed)
            self.cores[table.id] = core
            self._start_releaser(table.id)
            self._spawn(core.follow_inbox, f"inbox {table.id}")
        if len(self.cores) > 1:  # places and the field's count span the tables
            from .field import FieldCoordinator

            self.field = FieldCoordinator(dict(self.cores))
            for core in self.cores.values():
                core.listeners.append(self.field.changed)

    def _start_releaser(self, table: str) -> None:
        releaser = Releaser(self.redis, table, config=self.rules)
        self.releasers[table] = releaser
        self._spawn(releaser.run, f"releaser {table}")

    def _start_cardcam(self) -> None:
        """The camera workers, one task per camera group, as the cardcam Redis user."""
        settings = self.show.cardcam
        if settings is None or not settings.groups():
            log.info("cardcam: the show has no [[cameras]]; no camera worker runs here")
            return
        from cardcam.worker import run_group

        url = self.service_url("cardcam")
        for group in settings.groups():
            self._spawn(lambda group=group: run_group(self.show, settings, group, url, **self.cardcam_options), f"cardcam {group}")

    def _spawn(self, start: Callable[[], Awaitable[Any]], name: str) -> None:
        """Run a background loop under supervision until ``stop()``."""
        task = asyncio.get_running_loop().create_task(self._supervise(start, name), name=name)
        self._tasks.append(task)

    @staticmethod
    def _task_done(task: asyncio.Task) -> None:
        """Log a task that stopped on an error (for tasks that are not supervised)."""
        if not task.cancelled() and task.exception() is not None:
            log.error("background task %s stopped: %s", task.get_name(), type(task.exception()).__name__)

    @staticmethod
    async def _supervise(start: Callable[[], Awaitable[Any]], name: str) -> None:
        """Restart a background loop (releaser, inbox, feed reader, camera group) that stops on
        an error, with backoff: a Redis restart must not leave the show without a releaser.
        Each loop rebuilds what it needs from Redis when it starts again."""
        backoff = 0.0
        while True:
            started = time.monotonic()
            try:
                await start()
                log.info("%s: finished", name)
                return
            except (RedisError, OSError) as exc:
                problem, cap = f"Redis unavailable ({exc})", REDIS_RETRY_MAX_S
            except Exception as exc:  # noqa: BLE001 - a bug: logged loudly, and the show goes on
                problem = f"stopped on a {failure(exc)}"
                cap = 5.0
                log.error("%s: %s", name, problem)
            if time.monotonic() - started > 30:
                backoff = 0.0  # it ran well for a while: this is a new outage
            backoff = min(cap, backoff * 2 or 0.1)
            log.warning("%s: %s; starting it again in %.1f s", name, problem, backoff)
            await asyncio.sleep(backoff)

    def _live_changed(self, core: TableCore) -> None:
        for feed in ("live", "secure", "compliance"):
            if self.hub.count(feed, core.table):
                self.hub.publish(feed, core.table, json.dumps(core.view(feed), separators=(",", ":")))

    async def _carry(self, feed: str, table: str) -> None:
        """Read a delayed stream with XREAD (every server needs every message) into the hub."""
        stream = keys.public(table) if feed == "public" else keys.commentary(table)
        last = "$"
        backoff = 0.0
        while True:
            try:
                if last == "$":  # pin "now" to an id, so a reconnect reads on from there
                    newest = await self.redis.xrevrange(stream, count=1)  # type: ignore[union-attr]
                    last = newest[0][0].decode() if newest else "0-0"
                reply = await self.redis.xread({stream: last}, block=1000, count=500)  # type: ignore[union-attr]
            except (RedisError, OSError) as exc:
                # Redis restarting or a network blip: wait, then read on from the last id we
                # carried, so sockets miss nothing that was released meanwhile.
                backoff = min(REDIS_RETRY_MAX_S, backoff * 2 or 0.1)
                log.warning("%s feed, table %s: Redis unavailable (%s); trying again in %.1f s",
                            feed, table, exc, backoff)
                await asyncio.sleep(backoff)
                continue
            if backoff:
                log.info("%s feed, table %s: Redis is back; reading on", feed, table)
                backoff = 0.0
            for _, entries in reply or []:
                for entry_id, fields in entries:
                    last = entry_id.decode()
                    self.hub.publish(feed, table, fields[b"m"].decode(), last)

    async def backlog(self, feed: str, table: str, after: int | None) -> list[tuple[str, str]]:
        """The snapshot (latest message) or, with ``after``, every message since that seq."""
        stream = keys.public(table) if feed == "public" else keys.commentary(table)
        assert self.redis is not None
        if after is None:
            last = await self.redis.xrevrange(stream, count=1)
            return [(i.decode(), f[b"m"].decode()) for i, f in last]
        out: list[tuple[str, str]] = []
        seen_equal = False
        for entry_id, fields in await self.redis.xrange(stream):
            seq = int(fields[b"seq"])
            if seq == after and not seen_equal:
                seen_equal = True  # the client has this one; a later reveal of the same seq it has not
                continue
            if seq >= after:
                out.append((entry_id.decode(), fields[b"m"].decode()))
        return out

    async def stop(self) -> None:
        """Cancel the background work, close sockets, stop the embedded Redis cleanly."""
        # A task blocked in XREAD can swallow one cancellation (redis-py retries the read),
        # so cancel again until every task has really finished.
        pending = set(self._tasks)
        while pending:
            for task in pending:
                task.cancel()
            _, pending = await asyncio.wait(pending, timeout=0.5)
        self._tasks.clear()
        for core in self.cores.values():
            if isinstance(core, TableCore):  # its called-clock and refusal timers submit commands
                await core.close()
        await self.hub.close_all()
        if self.redis is not None:
            await self.redis.aclose()
        if self.embedded is not None:
            await asyncio.to_thread(self.embedded.stop)
            self.embedded = None
