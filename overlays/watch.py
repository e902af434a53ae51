"""/watch: the viewers' companion page, delayed, with an extra delay for stream lag.

A viewer watches the stream on a phone with the companion page open beside it. Their
stream runs late (CDN and player buffers), so the page must not show a river or a
winner before their picture does. ``[show] watch_delay`` adds that many seconds on top
of each table's broadcast delay: a message released on the public stream at time r
reaches ``/watch`` at r + watch_delay, never earlier.

The extra delay is applied on the server, not in the browser, so nothing in the page's
socket or source runs ahead of the stream:

* ``WatchLine`` (one per table per overlay server) follows the public stream with XREAD
  and republishes each message to the hub's ``watch`` feed once ``watch_delay`` has
  passed since Redis stamped it (stream ids are Redis ``TIME``).
* ``GET /watch?table=ID``: first paint from the newest message that is due.
* ``GET /watch/ws?table=ID``: that snapshot, then each message as it comes due.

Matrix row ``public``: open when ``open_onair`` is set, else any role with a token.
"""

from __future__ import annotations

import asyncio
import collections
import json
import logging
import math
import time
from typing import Any

from aiohttp import WSMsgType, web
from redis.exceptions import RedisError

from broadcast.store import keys
from broadcast.web.feeds import Client

from .pages import HOME, _name, _script_json, _table_id, _tables, render

log = logging.getLogger("tvtable.watch")

FEED = "watch"  # the hub feed name (sockets at /watch/ws, not /ws/v1: a page's own feed)
LINES = web.AppKey("watch_lines", dict)


async def redis_ms(redis: Any) -> int:
    sec, usec = await redis.time()
    return int(sec) * 1000 + int(usec) // 1000


def _entry_ms(entry_id: bytes | str) -> int:
    raw = entry_id.decode() if isinstance(entry_id, bytes) else entry_id
    return int(raw.split("-")[0])


class WatchLine:
    """One table's public stream, held back ``lag_ms`` more, onto the hub's ``watch`` feed."""

    def __init__(self, runtime: Any, table: str, lag_ms: int) -> None:
        self.runtime = runtime
        self.table = table
        self.lag_ms = lag_ms
        self.offset_ms = 0  # Redis time minus local time
        self.pending: collections.deque[tuple[int, str, str]] = collections.deque()  # (due ms, id, text)
        self._arrived = asyncio.Event()

    def local_ms(self) -> int:
        return int(time.time() * 1000)

    async def sync_clock(self) -> None:
        # Redis read its clock at some moment before ``after``: counting from ``after`` can
        # only make the offset smaller, so the page is late by the round trip, never early.
        server = await redis_ms(self.runtime.redis)
        after = time.time()
        self.offset_ms = server - math.ceil(after * 1000)

    async def snapshot(self) -> tuple[str, str] | None:
        """The newest public message that is due on /watch: (stream id, text), or None."""
        cutoff = await redis_ms(self.runtime.redis) - self.lag_ms
        newest = await self.runtime.redis.xrevrange(keys.public(self.table), max=str(cutoff), count=1)
        return (newest[0][0].decode(), newest[0][1][b"m"].decode()) if newest else None

    async def run(self) -> None:
        """Follow and republish until cancelled."""
        await self.sync_clock()
        last = f"{await redis_ms(self.runtime.redis) - self.lag_ms}-0"  # what is still to come due
        publisher = asyncio.get_running_loop().create_task(self._publish(), name=f"watch publisher {self.table}")
        try:
            while True:
                try:
                    reply = await self.runtime.redis.xread({keys.public(self.table): last}, block=1000, count=500)
                except (RedisError, OSError) as exc:  # Redis restarting: keep what is pending, retry
                    log.warning("table %s: /watch cannot read the public stream (%s); retrying", self.table,
                                type(exc).__name__)
                    await asyncio.sleep(1.0)
                    continue
                for _, entries in reply or []:
                    for entry_id, fields in entries:
                        last = entry_id.decode()
                        self.pending.append((_entry_ms(last) + self.lag_ms, last, fields[b"m"].decode()))
                    self._arrived.set()
                if not reply:
                    try:
                        await self.sync_clock()  # a quiet moment: re-measure, so due times stay on Redis's clock
                    except (RedisError, OSError):
                        pass  # the next read says what is wrong
        finally:
            publisher.cancel()

    async def _publish(self) -> None:
        while True:
            if not self.pending:
                self._arrived.clear()
                await self._arrived.wait()
                continue
            due, stream_id, text = self.pending[0]
            wait_ms = due - (self.local_ms() + self.offset_ms)
            if wait_ms > 0:
                await asyncio.sleep(wait_ms / 1000)  # only ever later than due, never earlier
                continue
            self.pending.popleft()
            self.runtime.hub.publish(FEED, self.table, text, stream_id)


def _lines(request: web.Request) -> dict[str, WatchLine]:
    return request.app[LINES]


async def watch_page(request: web.Request) -> web.Response:
    """``/watch``: light, phone-first, read-only; the table from ``?table=ID``."""
    from broadcast.web.app import GATE

    request.app[GATE].check(request, "public")
    runtime, tables = _tables(request)
    table = _table_id(request, tables)
    snap = await _lines(request)[table].snapshot()
    view = json.loads(snap[1]) if snap else None
    return render("watch.html", table=table, table_name=_name(tables, table), tables=tables, show_name=runtime.show.name,
                  view=view, view_json=_script_json(view), lag=runtime.show.watch_delay,
                  delay=runtime.delay(table) + runtime.show.watch_delay)


async def watch_socket(request: web.Request) -> web.StreamResponse:
    """``/watch/ws?table=ID``: the newest due message, then each one as it comes due."""
    from broadcast.web.app import GATE

    caller = request.app[GATE].check(request, "public")
    runtime, tables = _tables(request)
    table = _table_id(request, tables)
    hub = runtime.hub
    ws = web.WebSocketResponse(heartbeat=20)
    await ws.prepare(request)
    client = Client(ws=ws, feed=FEED, table=table, who=f"{caller.name} ({caller.role})")
    hub.subscribe(client)  # before the snapshot, so nothing coming due meanwhile is lost
    pump = None
    try:
        snap = await _lines(request)[table].snapshot()
        if snap is not None:
            client.last_id = snap[0]
            await ws.send_str(snap[1])
        pump = asyncio.get_running_loop().create_task(hub.pump(client))
        async for msg in ws:
            if msg.type == WSMsgType.ERROR:
                break  # viewers only listen
    finally:
        hub.unsubscribe(client)
        if pump is not None:
            pump.cancel()
    return ws


async def _run_lines(app: web.Application):
    """One ``WatchLine`` per table while the app runs (the runtime has started by now)."""
    from broadcast.web.app import RUNTIME

    runtime = app[RUNTIME]
    lag_ms = int(round(runtime.show.watch_delay * 1000))
    lines = {t.id: WatchLine(runtime, t.id, lag_ms) for t in runtime.show.tables}
    app[LINES].update(lines)
    tasks = [asyncio.get_running_loop().create_task(line.run(), name=f"watch line {line.table}") for line in lines.values()]
    yield
    pending = set(tasks)
    while pending:  # a task inside XREAD can swallow one cancellation: repeat until done
        for task in pending:
            task.cancel()
        _, pending = await asyncio.wait(pending, timeout=0.5)


def setup(app: web.Application) -> None:
    """``/watch`` and its socket; the delay lines start and stop with the app. A viewer's
    login lands here."""
    HOME.update({"viewer": "/watch"})
    app[LINES] = {}
    app.cleanup_ctx.append(_run_lines)
    app.router.add_get("/watch", watch_page)
    app.router.add_get("/watch/ws", watch_socket)
