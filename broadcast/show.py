"""A running show: Redis (embedded or external), one core and one releaser per table,
and the readers that carry the delayed streams to the sockets."""

from __future__ import annotations

import asyncio
import json
import logging
import os
from pathlib import Path
from typing import Any, Mapping

import redis.asyncio as aioredis

from .service import TableCore
from .settings import Show
from .store import keys
from .store.chain import load_or_create_key
from .store.embedded import EmbeddedRedis
from .store.persistence import check_persistence
from .store.releaser import Releaser
from .tokens import resolve_people
from .web.feeds import Hub

log = logging.getLogger("tvtable.show")

DELAYED_FEEDS = ("public", "commentary")


class ShowRuntime:
    """Everything one ``tvtable serve`` process runs. ``start()``, then ``stop()``."""

    def __init__(
        self,
        show: Show,
        data_dir: Path,
        *,
        redis_url: str | None = None,
        delay_override: float | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        self.show = show
        self.data_dir = Path(data_dir)
        self.redis_url = redis_url or show.redis_url
        self.delay_override = delay_override
        self.environ = os.environ if environ is None else environ
        self.people, self.generated_tokens = resolve_people(show, self.data_dir, self.environ)
        self.hub = Hub()
        self.embedded: EmbeddedRedis | None = None
        self.redis: aioredis.Redis | None = None
        self.cores: dict[str, TableCore] = {}
        self.releasers: dict[str, Releaser] = {}
        self._tasks: list[asyncio.Task] = []

    @property
    def rules(self):
        """The show's ``[compliance]`` settings as the compliance core's config."""
        from .compliance.config import ComplianceConfig

        c = self.show.compliance
        return ComplianceConfig(halt_at=c.halt_at, hidden_camera=c.hidden_camera, organiser=c.organiser,
                                approved_operators=c.approved_operators, forbidden_operators=c.forbidden_operators,
                                unauthorised_satellites=c.unauthorised_satellites)

    def delay(self, table_id: str) -> float:
        return self.delay_override if self.delay_override is not None else self.show.table(table_id).delay

    async def start(self) -> None:
        """Connect Redis, check it keeps what it acknowledges, open every table."""
        if self.redis_url is None:
            self.embedded = EmbeddedRedis(self.data_dir)
            url = await asyncio.to_thread(self.embedded.start)
            where = "embedded Redis under " + str(self.data_dir)
        else:
            url, where = self.redis_url, "external Redis"
        self.redis = aioredis.from_url(url)
        await self.redis.ping()
        for warning in await check_persistence(self.redis, allow_unsafe=self.show.allow_unsafe_redis):
            log.warning("%s", warning)
        log.info("using %s", where)
        from .equity import prepare

        await asyncio.to_thread(prepare)  # the equity tables, built once so the first all-in airs at once
        key = load_or_create_key(self.data_dir)
        for table in self.show.tables:
            core = TableCore(self.redis, table, self.show.levels, key, delay_s=self.delay(table.id),
                             compliance_config=self.rules)
            await core.open()
            core.listeners.append(self._live_changed)
            self.cores[table.id] = core
            releaser = Releaser(self.redis, table.id)
            self.releasers[table.id] = releaser
            self._spawn(releaser.run(), f"releaser {table.id}")
            self._spawn(core.follow_inbox(), f"inbox {table.id}")
            for feed in DELAYED_FEEDS:
                self._spawn(self._carry(feed, table.id), f"{feed} reader {table.id}")

    def _spawn(self, coro: Any, name: str) -> None:
        task = asyncio.get_running_loop().create_task(coro, name=name)
        task.add_done_callback(self._task_done)
        self._tasks.append(task)

    @staticmethod
    def _task_done(task: asyncio.Task) -> None:
        if not task.cancelled() and task.exception() is not None:
            log.error("background task %s stopped: %r", task.get_name(), task.exception())

    def _live_changed(self, core: TableCore) -> None:
        for feed in ("live", "secure", "compliance"):
            if self.hub.count(feed, core.table):
                self.hub.publish(feed, core.table, json.dumps(core.view(feed), separators=(",", ":")))

    async def _carry(self, feed: str, table: str) -> None:
        """Read a delayed stream with XREAD (every server needs every message) into the hub."""
        stream = keys.public(table) if feed == "public" else keys.commentary(table)
        last = "$"
        while True:
            reply = await self.redis.xread({stream: last}, block=1000, count=500)  # type: ignore[union-attr]
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
        await self.hub.close_all()
        if self.redis is not None:
            await self.redis.aclose()
        if self.embedded is not None:
            await asyncio.to_thread(self.embedded.stop)
            self.embedded = None
