"""The secure card room: ``/secure/cards`` (role ``secure``; every access audited).

A grid of seats, each with the latest frame crop from its camera, the camera's read
(K-of-N confirmed, plus the last frame's), and the cards the core has recorded.  The
secure person enters or corrects any card and resolves duplicate and impossible reads.

* ``GET /secure/cards?table=ID``: the page (no card in the HTML; ``no-store``).
* ``GET /secure/cards/ws?table=ID``: one socket with everything live: the core's
  secure view, the camera reads and crops, the alerts (with their card), camera health.
* ``GET /secure/cards/crop/{seat}?table=ID``: the latest crop as a JPEG.
* ``POST /secure/cards/cards?table=ID`` ``{"seat", "cards", "id"?}``: enter or correct a
  seat's hole cards (the core rules on it, as for any command).
* ``POST /secure/cards/resolve?table=ID`` ``{"alert", "keep"?}``: resolve an alert;
  ``keep`` names the seat that really holds the card (the others lose it), without
  ``keep`` the alert is dismissed.

Only the secure role gets any of these (a token in the header or the login cookie, never
in the URL); the rest of the world gets 401/403 from the gate before anything is read.
Audit entries name the person, the table and the seat, never a card; so do the log
lines and error messages.
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import time
from typing import Any

from aiohttp import WSCloseCode, WSMsgType, web

from .pages import _script_json, render

log = logging.getLogger("tvtable.cardroom")

UNKNOWN = "??"
NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}
QUEUE_SIZE = 256


def _gate(request: web.Request):
    from broadcast.web.app import GATE

    return request.app[GATE].check(request, "secure")


def _runtime(request: web.Request):
    from broadcast.web.app import RUNTIME

    return request.app[RUNTIME]


def _core(request: web.Request):
    runtime = _runtime(request)
    table = request.query.get("table") or runtime.show.tables[0].id
    core = runtime.cores.get(table)
    if core is None:
        raise web.HTTPNotFound(text=f"no table {table!r} in this show",
                               content_type="text/plain")
    return runtime, core


async def _audit(request: web.Request, caller, action: str, table: str, detail: str = "") -> None:
    from broadcast.store.audit import audit

    await audit(_runtime(request).redis, person=caller.name, role=caller.role, action=action, table=table,
                detail=detail)


def _seat_no(value: Any) -> str:
    return "board" if value == "board" else f"seat {value}"


# -- reading what the worker published -------------------------------------------------------

async def _camera_seats(redis, table: str) -> dict[str, dict]:
    from cardcam.cameras import seats_key

    raw = await redis.hgetall(seats_key(table))
    out = {}
    for k, v in raw.items():
        try:
            out[k.decode()] = json.loads(v)
        except ValueError:
            continue
    return out


async def _crops(redis, table: str, seats: list[str] | None = None) -> dict[str, str]:
    from cardcam.cameras import crops_key

    if seats is None:
        raw = await redis.hgetall(crops_key(table))
        items = [(k.decode(), v) for k, v in raw.items()]
    else:
        values = await redis.hmget(crops_key(table), seats) if seats else []
        items = [(s, v) for s, v in zip(seats, values) if v]
    return {s: base64.b64encode(v).decode() for s, v in items}


async def _health(redis, table: str) -> list[dict]:
    from cardcam.cameras import health_key

    out = []
    for _, v in (await redis.hgetall(health_key())).items():
        try:
            h = json.loads(v)
        except ValueError:
            continue
        if h.get("table") == table:
            out.append(h)
    return sorted(out, key=lambda h: h.get("camera", ""))


async def _alerts(redis, core) -> list[dict]:
    """Open alerts with their card: the worker's (duplicate or impossible reads) and the
    core's camera checks (a recorded hole card that turned up on the board)."""
    from cardcam.cameras import alert_id, alerts_key, resolved_key

    table = core.table
    out: list[dict] = []
    for _, raw in sorted((await redis.hgetall(alerts_key(table))).items()):  # one field per camera group
        try:
            out.extend({**a, "source": "camera"} for a in json.loads(raw))
        except ValueError:
            continue
    state = core.state
    for check in state.camera_checks:
        out.append({"id": alert_id(table, "core", check.hand, check.seat, check.card), "kind": "board",
                     "card": check.card, "seats": [check.seat], "since": None, "source": "core"})
    resolved = {k.decode(): json.loads(v) for k, v in (await redis.hgetall(resolved_key(table))).items()}
    for a in out:
        a["resolved"] = resolved.get(a["id"])
    return out


# -- the page -------------------------------------------------------------------------------

async def page(request: web.Request) -> web.Response:
    caller = _gate(request)
    runtime, core = _core(request)
    tables = [{"id": t.id, "name": t.name} for t in runtime.show.tables]
    table_cfg = runtime.show.table(core.table)
    seats = [{"seat": s.seat, "name": s.player.name, "country": s.player.country} for s in table_cfg.seats]
    await _audit(request, caller, "opened card room", core.table)
    info = {"table": core.table, "seats": seats, "hole_cards": core.state.hole_card_count}
    response = render("cardroom.html", table=core.table, table_name=table_cfg.name, tables=tables, caller=caller,
                      seats=seats, n_cards=core.state.hole_card_count, info_json=_script_json(info))
    response.headers.update(NO_STORE)
    return response


async def crop(request: web.Request) -> web.Response:
    from cardcam.cameras import crops_key

    caller = _gate(request)
    runtime, core = _core(request)
    seat = request.match_info["seat"]
    if not (seat.isdigit() or seat == "board"):
        return web.json_response({"error": "bad_seat", "field": "seat", "message": "a seat is a number or board"},
                                 status=400)
    data = await runtime.redis.hget(crops_key(core.table), seat)
    await _audit(request, caller, "viewed frame crop", core.table, _seat_no(seat))
    if not data:
        return web.json_response({"error": "no_crop", "field": "seat",
                                  "message": f"no camera frame for {_seat_no(seat)} yet"}, status=404, headers=NO_STORE)
    return web.Response(body=data, content_type="image/jpeg", headers=NO_STORE)


# -- actions --------------------------------------------------------------------------------

async def _json(request: web.Request) -> dict:
    if request.content_type != "application/json":
        raise _Bad("send the request as JSON (Content-Type: application/json)", "body", status=415)
    try:
        data = await request.json()
    except (ValueError, RecursionError):  # not JSON, not UTF-8, or nested too deep
        raise _Bad("the request is not valid JSON", "body") from None
    if not isinstance(data, dict):
        raise _Bad("the request must be a JSON object", "body")
    return data


class _Bad(Exception):
    def __init__(self, message: str, field: str, status: int = 400) -> None:
        super().__init__(message)
        self.message, self.field, self.status = message, field, status

    def response(self) -> web.Response:
        return web.json_response({"error": "bad_request", "field": self.field, "message": self.message},
                                 status=self.status)


def _counted(cards: list[str]) -> str:
    known = sum(1 for c in cards if c != UNKNOWN)
    return f"{known} known, {len(cards) - known} unknown"


async def enter_cards(request: web.Request) -> web.Response:
    """Enter or correct one seat's hole cards; the core rules on it."""
    from broadcast.engine.errors import Refusal

    caller = _gate(request)
    _, core = _core(request)
    try:
        data = await _json(request)
        seat = data.get("seat")
        if isinstance(seat, bool) or not isinstance(seat, int):
            raise _Bad("seat must be a seat number", "seat")
        cards = data.get("cards")
        if not isinstance(cards, list) or not all(isinstance(c, str) for c in cards):
            raise _Bad("cards must be a list like [\"As\", \"??\"]", "cards")
        command_id = data.get("id")
        if command_id is not None and not isinstance(command_id, str):
            raise _Bad("id must be text", "id")
    except _Bad as bad:
        return bad.response()
    command = {"type": "hole_cards", "seat": seat, "cards": cards, "source": "secure"}
    try:
        result = await core.submit(command, person=caller.name, role=caller.role, command_id=command_id)
    except Refusal:
        await _audit(request, caller, "hole card entry refused", core.table, f"{_seat_no(seat)}: {_counted(cards)}")
        raise  # the app's middleware answers 422 with the core's reason (which names no card)
    await _audit(request, caller, "entered hole cards", core.table, f"{_seat_no(seat)}: {_counted(cards)}")
    return web.json_response(result.to_dict())


async def resolve(request: web.Request) -> web.Response:
    """Resolve an alert: ``keep`` (a seat) keeps the card there and takes it from the
    others; without ``keep`` the alert is dismissed as checked."""
    from broadcast.engine.errors import Refusal
    from cardcam.cameras import events_key, resolved_key

    caller = _gate(request)
    runtime, core = _core(request)
    redis = runtime.redis
    try:
        data = await _json(request)
        wanted = data.get("alert")
        if not isinstance(wanted, str):
            raise _Bad("alert must be the id of an open alert", "alert")
        alerts = await _alerts(redis, core)
        alert = next((a for a in alerts if a["id"] == wanted), None)
        if alert is None:
            raise _Bad("that alert is no longer open: the reads changed or someone resolved it", "alert", status=409)
        keep = data.get("keep")
        if keep is not None and (isinstance(keep, bool) or not isinstance(keep, int) or keep not in alert["seats"]):
            raise _Bad("keep must be one of the alert's seats", "keep")
    except _Bad as bad:
        return bad.response()
    seats_text = ", ".join(_seat_no(s) for s in alert["seats"])
    changed: list[str] = []
    if keep is not None:
        try:
            changed = await _keep_at(request, caller, core, alert, keep)
        except Refusal:
            await _audit(request, caller, "camera check resolution refused", core.table,
                         f"alert {alert['id']} ({alert['kind']}, {seats_text}); keep at {_seat_no(keep)}")
            raise
    how = f"kept at {_seat_no(keep)}" if keep is not None else "dismissed"
    cleared = await _clear_live_checks(core, caller, alert)
    record = {"by": caller.name, "at": int(time.time() * 1000), "how": how}
    pipe = redis.pipeline(transaction=False)
    pipe.hset(resolved_key(core.table), alert["id"], json.dumps(record))
    pipe.xadd(events_key(core.table), {"k": "alerts"}, maxlen=2000, approximate=True)
    await pipe.execute()
    await _audit(request, caller, "resolved camera check", core.table,
                 f"alert {alert['id']} ({alert['kind']}, {seats_text}): {how}"
                 + (f"; cards changed at {', '.join(changed)}" if changed else "")
                 + (f"; live camera check {', '.join(map(str, cleared))} cleared" if cleared else ""))
    return web.json_response({"resolved": True, "alert": alert["id"], "how": how, "changed": changed,
                              "cleared": cleared})


async def _clear_live_checks(core, caller, alert: dict) -> list[int]:
    """Clear the camera checks the worker raised on the live screens for these seats
    ("seat 4: camera check"). The reason goes on those screens too: it names no card."""
    from broadcast.engine.errors import Refusal

    rules = getattr(core, "compliance", None)
    checks = getattr(getattr(rules, "camera", None), "checks", ())
    seats = {s for s in alert["seats"] if s != "board"}
    board = "board" in alert["seats"]
    cleared = []
    for check in checks:
        if set(check.seats) == seats and bool(check.board) == board:
            try:
                await core.submit({"type": "clear_camera_check", "alert": check.alert,
                                   "reason": "checked in the secure card room"}, person=caller.name, role=caller.role)
                cleared.append(check.alert)
            except Refusal as refusal:  # already cleared by a rep: nothing to do
                log.info("table %s: camera check %s not cleared: %s", core.table, check.alert, refusal.reason)
    return cleared


async def _keep_at(request: web.Request, caller, core, alert: dict, keep: int) -> list[str]:
    """Take ``alert["card"]`` from every other seat of the alert, then make sure ``keep``
    holds it (filling its unknown cards from the camera's read where they are free)."""
    card = alert["card"]
    state = core.state
    hand = state.hand
    if hand is None or hand.ended:
        raise _refusal("no hand in progress: there are no hole cards to move")
    who = {"person": caller.name, "role": caller.role}
    changed = []
    for seat in alert["seats"]:
        if seat == keep or seat == "board" or seat not in hand.seats:
            continue
        cards = list(core.state.hand.hole[core.state.hand.index(seat)])
        if card in cards:
            cards[cards.index(card)] = UNKNOWN
            await core.submit({"type": "hole_cards", "seat": seat, "cards": cards, "source": "secure"}, **who)
            changed.append(_seat_no(seat))
    if keep not in hand.seats:
        raise _refusal(f"{_seat_no(keep)} is not dealt in to this hand")
    hand = core.state.hand
    mine = list(hand.hole[hand.index(keep)])
    camera = await _camera_seats(_runtime(request).redis, core.table)
    read = [c for c in camera.get(str(keep), {}).get("cards", []) if c != UNKNOWN]
    elsewhere = set(hand.board)
    for i, seat in enumerate(hand.seats):
        if seat != keep:
            elsewhere.update(c for c in hand.hole[i] if c != UNKNOWN)
    for c in [card] + [c for c in read if c != card]:
        if c in mine or c in elsewhere or UNKNOWN not in mine:
            continue
        mine[mine.index(UNKNOWN)] = c
    if card not in mine:
        raise _refusal(f"{_seat_no(keep)} has no unknown card left to take it: correct its cards by hand")
    if mine != list(hand.hole[hand.index(keep)]):
        await core.submit({"type": "hole_cards", "seat": keep, "cards": mine, "source": "secure"}, **who)
        changed.append(_seat_no(keep))
    return changed


def _refusal(message: str):
    from broadcast.engine.errors import Refusal

    return Refusal(message, field="keep")


# -- the live socket --------------------------------------------------------------------------

async def socket(request: web.Request) -> web.StreamResponse:
    from cardcam.cameras import events_key

    from urllib.parse import urlsplit

    from broadcast.web.auth import Denied

    caller = _gate(request)
    origin = request.headers.get("Origin")
    if origin and urlsplit(origin).netloc != request.host:
        # A page on another site cannot ride on the secure person's cookie.
        raise Denied(403, "the card room feed only opens from the card room page itself")
    runtime, core = _core(request)
    redis = runtime.redis
    ws = web.WebSocketResponse(heartbeat=20)
    await ws.prepare(request)
    await _audit(request, caller, "opened card room feed", core.table, "live reads and frame crops")
    queue: asyncio.Queue = asyncio.Queue(QUEUE_SIZE)
    core_changed = asyncio.Event()

    def listener(_core) -> None:
        core_changed.set()

    def put(message: dict) -> None:
        try:
            queue.put_nowait(json.dumps(message, separators=(",", ":")))
        except asyncio.QueueFull:
            log.warning("card room on table %s: %s is too slow and was disconnected", core.table, caller.name)
            asyncio.get_running_loop().create_task(ws.close(code=WSCloseCode.TRY_AGAIN_LATER, message=b"too slow"))

    async def send() -> None:
        while True:
            text = await queue.get()
            await ws.send_str(text)

    async def follow_core() -> None:
        while True:
            await core_changed.wait()
            core_changed.clear()
            put({"type": "core", "view": core.view("secure")})
            put({"type": "alerts", "alerts": await _alerts(redis, core)})
            await asyncio.sleep(0.05)  # at most 20 updates a second

    async def follow_cameras(last: str) -> None:
        stream = events_key(core.table)
        while True:
            reply = await redis.xread({stream: last}, block=500, count=500)
            seats: dict[str, bool] = {}
            alerts = health = False
            for _, entries in reply or []:
                for entry_id, fields in entries:
                    last = entry_id.decode()
                    kind = fields.get(b"k", b"").decode()
                    if kind == "seat":
                        seat = fields.get(b"seat", b"").decode()
                        seats[seat] = seats.get(seat, False) or fields.get(b"crop") == b"1"
                    elif kind == "alerts":
                        alerts = True
                    elif kind == "health":
                        health = True
            if seats:
                reads = await _camera_seats(redis, core.table)
                crops = await _crops(redis, core.table, [s for s, c in seats.items() if c])
                for seat in seats:
                    message = {"type": "seat", "seat": seat, "read": reads.get(seat)}
                    if seat in crops:
                        message["crop"] = crops[seat]
                    put(message)
            if alerts:
                put({"type": "alerts", "alerts": await _alerts(redis, core)})
            if health:
                put({"type": "health", "cameras": await _health(redis, core.table)})

    tasks: list[asyncio.Task] = []
    core.listeners.append(listener)
    try:
        newest = await redis.xrevrange(events_key(core.table), count=1)
        last = newest[0][0].decode() if newest else "0-0"
        put({"type": "snapshot", "view": core.view("secure"), "seats": await _camera_seats(redis, core.table),
             "crops": await _crops(redis, core.table), "alerts": await _alerts(redis, core),
             "cameras": await _health(redis, core.table), "at": int(time.time() * 1000)})
        loop = asyncio.get_running_loop()
        tasks = [loop.create_task(send()), loop.create_task(follow_core()), loop.create_task(follow_cameras(last))]
        async for msg in ws:
            if msg.type == WSMsgType.ERROR:
                break  # the page only listens; what it sends is ignored
    finally:
        if listener in core.listeners:
            core.listeners.remove(listener)
        pending = set(tasks)
        while pending:  # a task inside XREAD can swallow one cancel
            for task in pending:
                task.cancel()
            _, pending = await asyncio.wait(pending, timeout=0.5)
        await _audit(request, caller, "closed card room feed", core.table)
    return ws


async def review(request: web.Request) -> web.Response:
    """``GET /secure/cards/review``: hands held for the floor's review, with the held seats'
    cards (rule "Showing the Winner" 1). Audited like every look in the card room."""
    from broadcast.views.review import held_hands

    caller = _gate(request)
    _, core = _core(request)
    held = held_hands((r.seq, r.ts, r.event) for r in await core.journal.load())
    await _audit(request, caller, "reviewed held hands", core.table,
                 ", ".join(f"hand {h['hand']}" for h in held) or "none held")
    return web.json_response({"table": core.table, "held": held}, headers=NO_STORE)


def setup(app: web.Application) -> None:
    app.router.add_get("/secure/cards", page)
    app.router.add_get("/secure/cards/ws", socket)
    app.router.add_get("/secure/cards/crop/{seat}", crop)
    app.router.add_post("/secure/cards/cards", enter_cards)
    app.router.add_post("/secure/cards/resolve", resolve)
    app.router.add_get("/secure/cards/review", review)


__all__ = ["setup"]
