"""The commentary desk: ``/commentary`` (role commentator; graphics and secure may read it).

Everything on it is **delayed**: the page follows the ``commentary`` feed, and the APIs
below read only the released ``commentary`` stream (what the releaser has already put
on the air for the desk), never the journal or a live view. So no figure, list or
search can show a hole card, or an action, before its release.

* ``GET /commentary?table=ID``: the page (jinja2 first paint, then the socket).
* ``GET /api/v1/tables/{table}/stats``: per player at the table: chips, hands, VPIP,
  PFR, 3-bet, WTSD, won at showdown (``broadcast.views.stats``).
* ``GET /api/v1/tables/{table}/hands?q=TEXT&limit=N``: the finished, released hands,
  newest first, searchable (player, card, "AK", "#12", "showdown", "all-in", ...).
* ``GET /api/v1/tables/{table}/hands/{hand}``: one finished hand with its actions.
* ``GET /api/v1/tables/{table}/outs?seq=N``: the outs of the released view at ``seq``
  as commonly counted (mucked cards included). The feed's own ``equity.outs`` are the
  true outs; the desk shows both.
* ``GET /api/v1/notes`` and ``PUT /api/v1/notes/{player}``: the caller's private notes
  per player, kept in Redis under ``tvt:notes:{person}`` (a hash: player id -> JSON).

Notes live on the server, not in the browser: a commentator moves between the booth PC,
a laptop and a tablet during a show, and a booth PC is shared by several people, so
notes belong to the person behind the token (the login), not to a browser profile.
Each person sees only their own. The matrix row for all of it is ``commentary``.
"""

from __future__ import annotations

import asyncio
import json
import time
from functools import lru_cache
from typing import Any

from aiohttp import web

from broadcast.equity import EquityInputError, outs
from broadcast.store import keys
from broadcast.views.stats import Ledger, PlayerStats, player_stats, search

from .pages import _name, _script_json, _table_id, _tables, render

NOTE_MAX = 4000  # characters per note
HANDS_LIMIT = 200  # the most hands one list answer carries


def notes_key(person: str) -> str:
    """Redis key of one person's notes (next to ``broadcast.store.keys``; ACL: ``tvt:notes:*``)."""
    return f"{keys.PREFIX}:notes:{person}"


class _Follower:
    """Reads one table's released commentary stream into a stats ``Ledger``, incrementally."""

    def __init__(self) -> None:
        self.ledger = Ledger()
        self.last = "0-0"
        self.latest: dict | None = None  # the last released message
        self.lock = asyncio.Lock()

    async def sync(self, redis, table: str) -> Ledger:
        async with self.lock:
            while True:
                reply = await redis.xread({keys.commentary(table): self.last}, count=500)
                got = 0
                for _, entries in reply or []:
                    for entry_id, fields in entries:
                        got += 1
                        self.last = entry_id.decode()
                        view = json.loads(fields[b"m"])
                        self.latest = view
                        self.ledger.add(view)
                if got < 500:
                    return self.ledger


FOLLOWERS = web.AppKey("commentary_followers", dict)


def _gate(request: web.Request):
    from broadcast.web.app import GATE

    return request.app[GATE].check(request, "commentary")


def _runtime(request: web.Request):
    from broadcast.web.app import RUNTIME

    return request.app[RUNTIME]


def _table_or_404(request: web.Request) -> str:
    runtime = _runtime(request)
    table = request.match_info.get("table") or request.query.get("table") or runtime.show.tables[0].id
    if table not in runtime.cores:
        raise web.HTTPNotFound(reason=f"no table {table!r} in this show")
    return table


async def _follower(request: web.Request, table: str) -> _Follower:
    followers = request.app[FOLLOWERS]
    follower = followers.get(table)
    if follower is None:
        follower = followers[table] = _Follower()
    await follower.sync(_runtime(request).redis, table)
    return follower


def _stats_payload(follower: _Follower, table: str) -> dict[str, Any]:
    """The players at the table now (as released), each with their chips and counts."""
    hands = follower.ledger.hands()
    per_player = player_stats(hands)
    latest = follower.latest or {}
    big_blind = (latest.get("blinds") or {}).get("big_blind")
    rows = []
    for seat in latest.get("seats", []):
        pid = seat.get("player") or f"seat-{seat['seat']}"
        stats = per_player.get(pid)
        row = (stats or PlayerStats(pid, seat.get("name", ""), seat.get("country", ""))).to_dict()
        # Chips: behind plus in front during a hand (what the player owns), as released.
        chips = int(seat.get("stack", 0)) + int(seat.get("bet", 0) or 0)
        row.update(seat=seat["seat"], name=seat.get("name"), country=seat.get("country"), chips=chips,
                   big_blinds=round(chips / big_blind, 1) if big_blind else None)
        rows.append(row)
    total = sum(r["chips"] for r in rows) or 1
    for rank, row in enumerate(sorted(rows, key=lambda r: -r["chips"]), start=1):
        row["rank"] = rank
        row["share_pct"] = round(100 * row["chips"] / total, 1)
    return {"table": table, "seq": follower.ledger.seq, "hands": len(hands), "players": rows}


def _hands_payload(follower: _Follower, query: str, limit: int) -> dict[str, Any]:
    hands = follower.ledger.hands()
    found = search(hands, query)
    return {"query": query, "total": len(hands), "matched": len(found), "hands": [h.brief() for h in found[:limit]]}


# -- handlers -------------------------------------------------------------------------------------
async def commentary_page(request: web.Request) -> web.Response:
    """``/commentary``: the current hand with cards, equity, outs and pot odds; stats; history; notes."""
    caller = _gate(request)
    runtime, tables = _tables(request)
    table = _table_id(request, tables)
    follower = await _follower(request, table)
    snapshot = await runtime.backlog("commentary", table, None)
    first = json.loads(snapshot[-1][1]) if snapshot else None
    stats = _stats_payload(follower, table)
    hands = _hands_payload(follower, "", 50)
    notes = await _load_notes(runtime.redis, caller.name)
    boot = {"view": first, "stats": stats, "hands": hands, "notes": notes, "person": caller.name}
    return render("commentary.html", table=table, table_name=_name(tables, table), tables=tables, caller=caller,
                  delay=runtime.delay(table), view=first, stats=stats, boot_json=_script_json(boot))


async def stats_api(request: web.Request) -> web.Response:
    _gate(request)
    table = _table_or_404(request)
    return web.json_response(_stats_payload(await _follower(request, table), table))


async def hands_api(request: web.Request) -> web.Response:
    _gate(request)
    table = _table_or_404(request)
    try:
        limit = max(1, min(HANDS_LIMIT, int(request.query.get("limit", "50"))))
    except ValueError:
        return _error(400, "limit must be a whole number", "limit")
    query = request.query.get("q", "")[:200]
    return web.json_response(_hands_payload(await _follower(request, table), query, limit))


async def hand_api(request: web.Request) -> web.Response:
    _gate(request)
    table = _table_or_404(request)
    number = request.match_info["hand"]
    if not number.isdigit():
        return _error(400, "the hand is a number", "hand")
    hand = (await _follower(request, table)).ledger.hand(int(number))
    if hand is None:
        return _error(404, f"hand {number} is not finished on air yet, or was never dealt", "hand")
    return web.json_response(hand.to_dict())


@lru_cache(maxsize=256)
def _raw_outs(hands: tuple[tuple[str, ...], ...], board: tuple[str, ...], game: str):
    try:
        return outs(hands, board, (), game=game)
    except EquityInputError:
        return None


async def outs_api(request: web.Request) -> web.Response:
    """Outs as commonly counted (the mucked cards still in) for a released view."""
    _gate(request)
    table = _table_or_404(request)
    seq = request.query.get("seq", "")
    if not seq.isdigit():
        return _error(400, "seq must be a journal sequence number", "seq")
    redis = _runtime(request).redis
    view = None
    for _, fields in await redis.xrevrange(keys.commentary(table), count=100):
        if int(fields[b"seq"]) == int(seq):
            view = json.loads(fields[b"m"])  # the newest message of that seq (a reveal comes last)
            break
        if int(fields[b"seq"]) < int(seq):
            break
    if view is None:
        return _error(404, f"no released view at seq {seq}", "seq")
    equity = view.get("equity") or {}
    live = [s for s in view.get("seats", []) if s.get("dealt_in") and s.get("in_hand")]
    board = tuple(view.get("board") or ())
    found = None
    if equity.get("exact") and len(board) in (3, 4) and all("??" not in s["hole_cards"] for s in live):
        found = _raw_outs(tuple(tuple(s["hole_cards"]) for s in live), board, view.get("game") or "nlhe")
    return web.json_response({
        "seq": view["seq"], "hand": view.get("hand"),
        "outs": None if found is None else {str(s["seat"]): list(o) for s, o in zip(live, found)},
    })


async def _load_notes(redis, person: str) -> dict[str, dict]:
    raw = await redis.hgetall(notes_key(person))
    out = {}
    for player, value in raw.items():
        try:
            out[player.decode()] = json.loads(value)
        except (ValueError, UnicodeDecodeError):
            continue
    return out


def _players(runtime) -> set[str]:
    return {seat.player.id for table in runtime.show.tables for seat in table.seats}


async def notes_get(request: web.Request) -> web.Response:
    caller = _gate(request)
    return web.json_response({"person": caller.name, "notes": await _load_notes(_runtime(request).redis, caller.name)})


async def notes_put(request: web.Request) -> web.Response:
    caller = _gate(request)
    runtime = _runtime(request)
    player = request.match_info["player"]
    if player not in _players(runtime):
        return _error(404, f"no player {player!r} in this show", "player")
    try:
        body = await request.json()
    except (ValueError, RecursionError):  # not JSON, not UTF-8, or nested too deep
        return _error(400, "the note is not valid JSON", "body")
    text = body.get("text") if isinstance(body, dict) else None
    if not isinstance(text, str):
        return _error(400, "a note is {\"text\": \"...\"}", "text")
    if len(text) > NOTE_MAX:
        return _error(400, f"a note holds at most {NOTE_MAX:,} characters", "text")
    key = notes_key(caller.name)
    if text.strip():
        note = {"text": text, "updated": int(time.time() * 1000)}
        await runtime.redis.hset(key, player, json.dumps(note))
    else:
        note = None
        await runtime.redis.hdel(key, player)
    return web.json_response({"player": player, "note": note})


def _error(status: int, message: str, field: str) -> web.Response:
    return web.json_response({"error": "error" if status != 404 else "not_found", "field": field, "message": message},
                             status=status)


def setup(app: web.Application) -> None:
    app[FOLLOWERS] = {}
    app.router.add_get("/commentary", commentary_page)
    app.router.add_get("/api/v1/tables/{table}/stats", stats_api)
    app.router.add_get("/api/v1/tables/{table}/hands", hands_api)
    app.router.add_get("/api/v1/tables/{table}/hands/{hand}", hand_api)
    app.router.add_get("/api/v1/tables/{table}/outs", outs_api)
    app.router.add_get("/api/v1/notes", notes_get)
    app.router.add_put("/api/v1/notes/{player}", notes_put)
