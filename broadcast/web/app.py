"""The aiohttp app factory: health, API, feeds, login and the pages.

``make_app(runtime)`` is used by ``tvtable serve``, ``tvtable demo`` and the tests.
Errors are JSON ``{"error", "field", "message"}`` in the poker room's words; a
request never gets a traceback or a bare 500.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any
from urllib.parse import quote

from aiohttp import WSMsgType, web
from redis import exceptions as redis_errors

from ..compliance.commands import COMMAND_TYPES as COMPLIANCE_COMMANDS
from ..engine.commands import DEALER_AND_TD, GRAPHICS_OVERRIDES, TD_ONLY
from ..engine.errors import Refusal
from ..store.audit import audit
from .auth import COOKIE, FEED_ROWS, Denied, Gate
from .feeds import Client

log = logging.getLogger("tvtable.web")

# Redis down, restarting (loading its AOF) or timing out: "storage unavailable", not a 500.
STORAGE_DOWN = (redis_errors.ConnectionError, redis_errors.TimeoutError, redis_errors.BusyLoadingError)

RUNTIME = web.AppKey("runtime", Any)
GATE = web.AppKey("gate", Gate)
COMMAND_TYPE = web.RequestKey("command_type", object)  # what a command said it was, for /metrics

STATE_VIEWS = ("public", "commentary", "live", "secure", "compliance")


def error(status: int, message: str, *, field: str | None = None, code: str = "error") -> web.Response:
    return web.json_response({"error": code, "field": field, "message": message}, status=status)


@web.middleware
async def errors_middleware(request: web.Request, handler):
    """Turn every failure into a clear JSON (or text) answer, never a traceback."""
    try:
        return await handler(request)
    except Denied as denied:
        if request.path.startswith(("/api/", "/ws/")) or "json" in request.headers.get("Accept", ""):
            return error(denied.status, denied.message, code="unauthorized" if denied.status == 401 else "forbidden")
        if denied.status == 401:
            raise web.HTTPFound(f"/login?next={quote(request.path_qs, safe='')}")
        return web.Response(status=403, text=denied.message)
    except Refusal as refusal:
        return web.json_response(refusal.to_dict(), status=422)
    except STORAGE_DOWN as exc:
        # Redis is restarting or unreachable: nothing was acknowledged, so the client may
        # retry; a command sent with its id is applied at most once, whatever happened.
        log.warning("storage unavailable on %s %s: %s", request.method, request.path, exc)
        return error(503, "storage unavailable: the journal's Redis is not answering; retry in a moment "
                          "with the same command id", code="storage_unavailable")
    except web.HTTPException as exc:
        if exc.status >= 400 and request.path.startswith("/api/"):
            return error(exc.status, exc.reason or "request refused")
        raise
    except Exception:  # noqa: BLE001 - the last line of defence: log it, answer plainly
        log.exception("unexpected failure on %s %s", request.method, request.path)
        return error(500, "the server hit an unexpected problem; the operator log has the details", code="internal")


def _table(request: web.Request) -> Any:
    runtime = request.app[RUNTIME]
    table = request.match_info.get("table") or request.query.get("table") or runtime.show.tables[0].id
    core = runtime.cores.get(table)
    if core is None:
        raise Refusal(f"no table {table!r} in this show (tables: {', '.join(runtime.cores)})", field="table")
    return core


async def healthz(request: web.Request) -> web.Response:
    runtime = request.app[RUNTIME]
    try:
        await runtime.redis.ping()
        redis_ok = True
    except Exception:  # noqa: BLE001 - health reports it instead of failing
        redis_ok = False
    return web.json_response(
        {"status": "ok" if redis_ok else "degraded", "redis": redis_ok, "tables": sorted(runtime.cores)},
        status=200 if redis_ok else 503,
    )


async def tables(request: web.Request) -> web.Response:
    runtime = request.app[RUNTIME]
    return web.json_response(
        {"tables": [{"id": t.id, "name": t.name, "game": t.game, "delay": runtime.delay(t.id)} for t in runtime.show.tables]}
    )


async def state(request: web.Request) -> web.Response:
    view = request.query.get("view", "public")
    if view not in STATE_VIEWS:
        raise Refusal(f"view must be one of {', '.join(STATE_VIEWS)}", field="view")
    caller = request.app[GATE].check(request, view)
    core = _table(request)
    runtime = request.app[RUNTIME]
    if view in ("live", "secure", "compliance"):
        if view == "secure":
            await audit(runtime.redis, person=caller.name, role=caller.role, action="read secure state", table=core.table)
        return web.json_response(core.view(view))
    backlog = await runtime.backlog(view, core.table, None)
    if not backlog:
        return web.json_response({"type": "waiting", "feed": view, "table": core.table, "seq": 0, "ts": None,
                                  "hand": None, "hand_complete": False, "message": "nothing has been released yet"})
    return web.Response(text=backlog[-1][1], content_type="application/json")


# Which desk may enter which command (DESIGN.md's matrix: dealer commands, tournament
# controls, and the secure card room's card entry).
TD_COMMANDS = TD_ONLY | DEALER_AND_TD
SECURE_COMMANDS = {"hole_cards", "winner"}


def command_rows(kind: object) -> tuple[str, ...]:
    if kind in COMPLIANCE_COMMANDS:
        # Rep and TD desks; the compliance core itself checks which of the two may rule.
        return ("rep_commands", "td_commands")
    rows = ["dealer_commands"] if kind not in TD_ONLY else []
    if kind in TD_COMMANDS:
        rows.append("td_commands")
    if kind in SECURE_COMMANDS:
        rows.append("secure")
    if kind in GRAPHICS_OVERRIDES:
        rows.append("graphics_controls")
    return tuple(rows)


async def commands(request: web.Request) -> web.Response:
    gate = request.app[GATE]
    core = _table(request)
    try:
        data = json.loads(await request.read())
    except web.HTTPRequestEntityTooLarge:
        gate.check(request, "dealer_commands")
        return error(413, f"a command may be at most {request.client_max_size // 1024} KB", field="body", code="bad_command")
    except (ValueError, RecursionError):  # not JSON, not UTF-8, a number too long, or nested too deep
        gate.check(request, "dealer_commands")
        return error(400, "the command is not valid JSON", field="body", code="bad_command")
    if not isinstance(data, dict):
        gate.check(request, "dealer_commands")
        return error(400, "a command must be a JSON object", field="body", code="bad_command")
    try:
        json.dumps(data, ensure_ascii=False).encode("utf-8")  # "\ud800" is valid JSON but no text Redis can store
    except UnicodeEncodeError:
        gate.check(request, "dealer_commands")
        return error(400, "the command holds text that is not valid Unicode (a lone surrogate escape)", field="body",
                     code="bad_command")
    request[COMMAND_TYPE] = data.get("type")
    rows = command_rows(data.get("type") if isinstance(data.get("type"), str) else None)
    caller, denied = None, None
    for row in rows:
        try:
            caller = gate.check(request, row)
            break
        except Denied as exc:
            denied = denied if denied and denied.status == 401 else exc
    if caller is None:
        raise denied or Denied(403, "no desk may enter that command")
    if caller.role == "dealer" and data.get("type") == "hole_cards" and data.get("seat") not in core.awaiting_cards():
        # The dealer never sees hole cards: only cards tabled at showdown are theirs to enter.
        raise Denied(403, "the dealer enters hole cards only when they are tabled at showdown; "
                          "card entry and correction belong to the secure card room")
    if data.get("type") == "hole_cards":
        data = {**data, "source": caller.role}  # who entered the cards is the caller, not what they claim
    if caller.role == "secure":
        await audit(request.app[RUNTIME].redis, person=caller.name, role=caller.role, action=f"entered {data.get('type')}",
                    table=core.table, detail=f"seat {data.get('seat')}")
    result = await core.submit(data, person=caller.name, role=caller.role, command_id=data.get("id"))
    return web.json_response(result.to_dict())


async def feed(request: web.Request) -> web.StreamResponse:
    """WebSocket ``/ws/v1/{feed}?table=ID[&after=SEQ]``: a snapshot, then updates."""
    name = request.match_info["feed"]
    if name not in FEED_ROWS:
        return error(404, f"no feed {name!r}: feeds are {', '.join(FEED_ROWS)}", field="feed")
    caller = request.app[GATE].check(request, FEED_ROWS[name])
    core = _table(request)
    after = request.query.get("after")
    if after is not None and not (after.isascii() and after.isdigit() and len(after) <= 18):
        return error(400, "after must be a journal sequence number", field="after")
    if name == "control":  # the graphics desk's live channel: its own snapshot, and pages say hello on it
        from .control import control_feed

        return await control_feed(request, core.table, f"{caller.name} ({caller.role})")
    runtime = request.app[RUNTIME]
    ws = web.WebSocketResponse(heartbeat=20)
    await ws.prepare(request)
    if name == "secure":
        await audit(runtime.redis, person=caller.name, role=caller.role, action="opened secure feed", table=core.table)
    client = Client(ws=ws, feed=name, table=core.table, who=f"{caller.name} ({caller.role})")
    hub = runtime.hub
    hub.subscribe(client)  # before the snapshot, so nothing published meanwhile is lost
    pump = None
    try:
        if name in ("live", "secure", "compliance"):
            await ws.send_str(json.dumps(core.view(name), separators=(",", ":")))
        elif name in ("public", "commentary"):
            for stream_id, text in await runtime.backlog(name, core.table, int(after) if after else None):
                await ws.send_str(text)
                client.last_id = stream_id
        pump = asyncio.get_running_loop().create_task(hub.pump(client))
        async for msg in ws:
            if msg.type == WSMsgType.ERROR:
                break  # clients only listen on feeds; what they send is ignored
    finally:
        hub.unsubscribe(client)
        if pump is not None:
            pump.cancel()
        if name == "secure":
            await audit(runtime.redis, person=caller.name, role=caller.role, action="closed secure feed", table=core.table)
    return ws


def make_app(runtime: Any, *, manage_runtime: bool = True) -> web.Application:
    """Build the app. With ``manage_runtime`` the runtime starts and stops with it."""
    from overlays.pages import setup_pages

    app = web.Application(middlewares=[errors_middleware], client_max_size=2 * 1024 * 1024)
    app[RUNTIME] = runtime
    app[GATE] = Gate(runtime.people, open_onair=runtime.show.open_onair)

    if manage_runtime:
        async def lifecycle(app: web.Application):
            await runtime.start()
            yield
            await runtime.stop()

        app.cleanup_ctx.append(lifecycle)
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/api/v1/tables", tables)
    app.router.add_get("/api/v1/tables/{table}/state", state)
    app.router.add_post("/api/v1/tables/{table}/commands", commands)
    app.router.add_get("/ws/v1/{feed}", feed)
    from .ingest import setup as setup_ingest; setup_ingest(app)  # noqa: E702 - JPEG frames from capture PCs (role camera)
    from .metrics import setup as setup_metrics; setup_metrics(app)  # noqa: E702 - /metrics (staff tokens)
    setup_pages(app)
    return app


__all__ = ["make_app", "RUNTIME", "GATE", "COOKIE"]
