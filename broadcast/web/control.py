"""The graphics control channel: live, not delayed.

- ``POST /api/v1/tables/{table}/graphics`` (role graphics): one command from the
  graphics desk, checked by the pure ``broadcast.views.graphics``, audited with the
  person, then appended (``?preview=1``: only the state it would give, for the preview) to the table's control stream (``keys.control``) with a
  compare-and-append on the revision, so two desks never overwrite each other.
- ``GET /api/v1/tables/{table}/graphics`` (role graphics): the state and the open pages.
- ``/ws/v1/control?table=ID``: the state as a snapshot, then every change. On-air pages
  announce themselves on it (``{"type": "hello", "id", "page"}``), so the desk sees
  which overlays are open and can refresh each one.
- ``GET /api/v1/tables/{table}/onair.json`` and ``.xml`` (open, like the public feed):
  the delayed on-air data with the controls applied, for vMix, Ross and Viz.

Every overlay server follows the control stream with XREAD into its own sockets.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any
from xml.sax.saxutils import escape

from aiohttp import WSMsgType, web
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from ..engine.errors import Refusal
from ..store import keys
from ..store.audit import audit
from ..views.graphics import BadControl, ControlState, Roster, apply_command, describe, from_dict, onair
from .feeds import Client

log = logging.getLogger("tvtable.control")

PAGE_TTL_MS = 45_000  # a page re-announces every 15 s; silent for longer, it is gone
MAX_PAGES = 64
STREAM_LENGTH = 1000
LOCKS = web.AppKey("control_locks", dict)  # table -> asyncio.Lock: one change at a time per process  # the latest entry is the state; older ones are history for the log

# Append only if the stream's latest revision is the one the new state was built on.
APPEND = """
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
local rev = 0
if #last > 0 then rev = tonumber(last[1][2][2]) end
if rev ~= tonumber(ARGV[1]) then return false end
return redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[4], '*', 'rev', ARGV[2], 'm', ARGV[3])
"""


def pages_key(table: str) -> str:
    """Hash page id -> JSON: the on-air pages open on this table (no card data)."""
    return keys.control(table) + ":pages"


def message(table: str, state: dict[str, Any], ts: int) -> dict[str, Any]:
    """A ``control`` feed message: the whole state, so a page never needs an earlier one."""
    return {"type": "control", "feed": "control", "table": table, "seq": state["rev"], "ts": ts, "hand": None,
            "hand_complete": False, **state}


async def latest(redis: Any, table: str) -> tuple[str, dict[str, Any]]:
    """The stream id and the message of the current control state (a default one if none)."""
    last = await redis.xrevrange(keys.control(table), count=1)
    if last:
        entry_id, fields = last[0]
        return entry_id.decode(), json.loads(fields[b"m"])
    return "", message(table, ControlState().to_dict(), 0)


def _runtime(request: web.Request):
    from .app import RUNTIME

    return request.app[RUNTIME]


def _roster(runtime: Any, table: str, view: dict[str, Any] | None) -> Roster:
    """The table's players: bios from the show file, names as on air (a corrected display
    name is in the delayed view once it has aired)."""
    on_air = {s.get("player"): s["name"] for s in (view or {}).get("seats", [])}
    seats = runtime.show.table(table).seats
    return Roster(players={s.player.id: (on_air.get(s.player.id, s.player.name), s.player.bio) for s in seats})


async def public_on_air(runtime: Any, table: str) -> dict[str, Any] | None:
    """What the on-air pages show now: the latest public view held for the desk's trim."""
    _, control = await latest(runtime.redis, table)
    return await _public(runtime, table, int(control.get("trim_ms") or 0))


async def _public(runtime: Any, table: str, trim_ms: int = 0) -> dict[str, Any] | None:
    """The latest public view; with the desk's trim, the latest released at least ``trim_ms``
    ago (Redis time): a data source airs in step with the pages, which hold each view as long."""
    if trim_ms <= 0:
        backlog = await runtime.backlog("public", table, None)
        return json.loads(backlog[-1][1]) if backlog else None
    now = await runtime.redis.time()
    cut = now[0] * 1000 + now[1] // 1000 - trim_ms
    # A stream entry's id is the Redis time of its release (the release script's XADD *).
    last = await runtime.redis.xrevrange(keys.public(table), max=str(cut), count=1)
    return json.loads(last[0][1][b"m"]) if last else None


def _bad(exc: BadControl) -> web.Response:
    return web.json_response(exc.to_dict(), status=400)


async def command(request: web.Request) -> web.Response:
    """One graphics command; 400 naming the field when it is malformed."""
    from .app import GATE, _table

    caller = request.app[GATE].check(request, "graphics_controls")
    table = _table(request).table
    runtime = _runtime(request)
    if "core" not in getattr(runtime, "services", ("core",)):
        # An overlay server's Redis user may only read the control stream (and list pages).
        raise Refusal("graphics commands go to the core's web server; this overlay server only follows them",
                      field="table")
    try:
        data = json.loads(await request.read())
    except (ValueError, RecursionError):
        return _bad(BadControl("the graphics command is not valid JSON", field="body"))
    view = await _public(runtime, table)
    roster = _roster(runtime, table, view)
    if request.query.get("preview") == "1":
        # The desk's preview: the state this command would give, neither stored nor audited.
        _, current = await latest(runtime.redis, table)
        try:
            after = apply_command(from_dict(current), data, roster, by=caller.name)
        except BadControl as exc:
            return _bad(exc)
        return web.json_response({"preview": True, "control": message(table, after.to_dict(), current["ts"])})
    async with request.app[LOCKS].setdefault(table, asyncio.Lock()):
        return await _append(runtime, table, data, roster, caller)


async def _append(runtime: Any, table: str, data: Any, roster: Roster, caller: Any) -> web.Response:
    for _ in range(10):  # another desk changed it between our read and our append: build again
        _, current = await latest(runtime.redis, table)
        before = from_dict(current)
        try:
            after = apply_command(before, data, roster, by=caller.name)
        except BadControl as exc:
            return _bad(exc)
        now = await runtime.redis.time()
        msg = message(table, after.to_dict(), now[0] * 1000 + now[1] // 1000)
        added = await runtime.redis.eval(APPEND, 1, keys.control(table), before.rev, after.rev,
                                         json.dumps(msg, separators=(",", ":")), STREAM_LENGTH)
        if added:
            break
    else:
        return web.json_response({"error": "busy", "field": None,
                                  "message": "the graphics state kept changing under this command: send it again"},
                                 status=409)
    await audit(runtime.redis, person=caller.name, role=caller.role, action="graphics", table=table, detail=describe(data))
    return web.json_response({"accepted": True, "rev": after.rev, "control": after.to_dict()})


async def open_pages(redis: Any, table: str, now_ms: int) -> list[dict[str, Any]]:
    """The on-air pages that announced themselves lately, oldest first; forgets the silent."""
    pages, stale = [], []
    for page_id, raw in (await redis.hgetall(pages_key(table))).items():
        page = json.loads(raw)
        if now_ms - page["seen"] > PAGE_TTL_MS:
            stale.append(page_id)
        else:
            pages.append(page)
    if stale:
        await redis.hdel(pages_key(table), *stale)
    return sorted(pages, key=lambda p: p["since"])


async def status(request: web.Request) -> web.Response:
    """The graphics desk's view: the control state and the open on-air pages."""
    from .app import GATE, _table

    request.app[GATE].check(request, "graphics_controls")
    table = _table(request).table
    redis = _runtime(request).redis
    _, current = await latest(redis, table)
    now = await redis.time()
    return web.json_response({"control": current, "pages": await open_pages(redis, table, now[0] * 1000 + now[1] // 1000)})


async def _onair_data(request: web.Request) -> dict[str, Any]:
    from .app import GATE, _table

    request.app[GATE].check(request, "public")
    table = _table(request).table
    runtime = _runtime(request)
    _, control = await latest(runtime.redis, table)
    return onair(await _public(runtime, table, int(control.get("trim_ms") or 0)), control, table=table)


async def onair_json(request: web.Request) -> web.Response:
    """Delayed on-air data as JSON, for data-source polling (vMix, Ross, Viz)."""
    return web.json_response(await _onair_data(request), headers={"Cache-Control": "no-store"})


def to_xml(value: Any, tag: str) -> str:
    """Plain XML: objects become elements, lists repeat the singular tag (seats -> seat)."""
    if isinstance(value, dict):
        return f"<{tag}>" + "".join(to_xml(v, k) for k, v in value.items()) + f"</{tag}>"
    if isinstance(value, list):
        item = tag[:-1] if tag.endswith("s") and len(tag) > 1 else "item"
        return f"<{tag}>" + "".join(to_xml(v, item) for v in value) + f"</{tag}>"
    if value is None:
        return f"<{tag}/>"
    text = ("true" if value else "false") if isinstance(value, bool) else str(value)
    return f"<{tag}>{escape(text)}</{tag}>"


async def onair_xml(request: web.Request) -> web.Response:
    """The same data as XML (vMix's XML data source reads repeated elements as rows)."""
    body = '<?xml version="1.0" encoding="UTF-8"?>\n' + to_xml(await _onair_data(request), "onair")
    return web.Response(text=body, content_type="application/xml", headers={"Cache-Control": "no-store"})


async def server_clock(request: web.Request) -> web.Response:
    """The Redis server's time, the table's delay and the structure's minutes per level: on-air
    clocks run on these, never on the PC's own clock, and roll a level that runs out into the
    next (open like the public feed: no card, no live data)."""
    from .app import GATE, _table

    request.app[GATE].check(request, "public")
    table = _table(request).table
    runtime = _runtime(request)
    now = await runtime.redis.time()
    return web.json_response({"server_ms": now[0] * 1000 + now[1] // 1000, "delay_ms": int(runtime.delay(table) * 1000),
                              "level_minutes": [lv.minutes for lv in runtime.show.levels]},
                             headers={"Cache-Control": "no-store"})


async def _hello(redis: Any, table: str, data: Any, who: str) -> str | None:
    """Record an on-air page that announced itself; returns its id."""
    if not isinstance(data, dict) or data.get("type") != "hello":
        return None
    page_id, page = data.get("id"), data.get("page")
    if not (isinstance(page_id, str) and 0 < len(page_id) <= 64 and isinstance(page, str) and 0 < len(page) <= 64):
        return None
    if not await redis.hexists(pages_key(table), page_id) and await redis.hlen(pages_key(table)) >= MAX_PAGES:
        return None  # a runaway client cannot fill Redis with pages
    now = await redis.time()
    ms = now[0] * 1000 + now[1] // 1000
    raw = await redis.hget(pages_key(table), page_id)
    since = json.loads(raw)["since"] if raw else ms
    url = data.get("url") if isinstance(data.get("url"), str) else ""
    record = {"id": page_id, "page": page, "url": url[:300], "since": since, "seen": ms, "who": who,
              "player": str(data.get("player", ""))[:40]}
    await redis.hset(pages_key(table), page_id, json.dumps(record))
    return page_id


async def control_feed(request: web.Request, table: str, who: str) -> web.WebSocketResponse:
    """``/ws/v1/control``: snapshot, then every change; pages say hello on it."""
    runtime = _runtime(request)
    ws = web.WebSocketResponse(heartbeat=20)
    await ws.prepare(request)
    client = Client(ws=ws, feed="control", table=table, who=who)
    hub = runtime.hub
    hub.subscribe(client)  # before the snapshot, so no change is lost meanwhile
    pump, page_id = None, None
    try:
        stream_id, current = await latest(runtime.redis, table)
        await ws.send_str(json.dumps(current, separators=(",", ":")))
        client.last_id = stream_id
        pump = asyncio.get_running_loop().create_task(hub.pump(client))
        async for msg in ws:
            if msg.type == WSMsgType.ERROR:
                break
            if msg.type == WSMsgType.TEXT and len(msg.data) < 2000:
                try:
                    data = json.loads(msg.data)
                except ValueError:
                    continue  # a page's noise is ignored, never answered with an error on air
                page_id = await _hello(runtime.redis, table, data, who) or page_id
    finally:
        hub.unsubscribe(client)
        if pump is not None:
            pump.cancel()
        if page_id is not None and runtime.redis is not None:
            try:
                await runtime.redis.hdel(pages_key(table), page_id)
            except Exception:  # noqa: BLE001 - the show is stopping; the entry expires anyway
                pass
    return ws


async def follow(runtime: Any, table: str) -> None:
    """Read the control stream with XREAD (every server needs every change) into the hub.
    If Redis goes away it keeps trying, from where it was: pages keep the last state meanwhile."""
    last, wait = "$", 0.5
    while True:
        try:
            reply = await runtime.redis.xread({keys.control(table): last}, block=1000, count=100)
        except (RedisConnectionError, RedisTimeoutError) as exc:
            log.warning("control stream of table %s: %s; trying again in %.1f s", table, exc, wait)
            await asyncio.sleep(wait)
            wait = min(wait * 2, 8.0)
            continue
        wait = 0.5
        for _, entries in reply or []:
            for entry_id, fields in entries:
                last = entry_id.decode()
                runtime.hub.publish("control", table, fields[b"m"].decode(), last)


def setup(app: web.Application) -> None:
    """Routes of the control channel, and one control-stream reader per table."""
    app[LOCKS] = {}
    app.router.add_post("/api/v1/tables/{table}/graphics", command)
    app.router.add_get("/api/v1/tables/{table}/graphics", status)
    app.router.add_get("/api/v1/tables/{table}/onair.json", onair_json)
    app.router.add_get("/api/v1/tables/{table}/onair.xml", onair_xml)
    app.router.add_get("/api/v1/tables/{table}/clock", server_clock)

    async def readers(app: web.Application):
        runtime = _runtime_of(app)
        tasks = [asyncio.get_running_loop().create_task(follow(runtime, t.id), name=f"control reader {t.id}")
                 for t in runtime.show.tables]
        yield
        # A task blocked in XREAD can swallow one cancellation: cancel until it is done.
        pending = set(tasks)
        while pending:
            for task in pending:
                task.cancel()
            _, pending = await asyncio.wait(pending, timeout=0.5)

    app.cleanup_ctx.append(readers)


def _runtime_of(app: web.Application):
    from .app import RUNTIME

    return app[RUNTIME]
