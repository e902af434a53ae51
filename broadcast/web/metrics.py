"""``GET /metrics``: how the show is running, in the Prometheus text format (0.0.4).

What it counts (never a card: commands by type, cards by number per seat):

* ``tvtable_commands_total{table,type,outcome}``: commands over HTTP, by outcome
  (``accepted``, ``duplicate`` for a retried id, ``refused`` for a ruling or bad input,
  ``denied`` for a token that may not enter it). Unknown types count as ``other``.
* ``tvtable_delay_queue_depth{table}``: journal records not yet released to the air.
* ``tvtable_appends_restamped_total{table}``: appends that reached the journal more than
  ``LATE_MS`` after their stamp (the core stalled) and were stamped and ruled again.
* ``tvtable_release_lateness_seconds{table}``: a histogram of how late each release went
  out after its first record was due (Redis time, by this process's releaser).
* ``tvtable_cardcam_seat_shown``, ``tvtable_cardcam_cards_read``, ``tvtable_cardcam_cards_unsure``
  ``{table,seat}``: the camera's view of each seat as numbers: cards shown to the camera
  (0/1), cards identified, cards shown but not (yet) identified.
* ``tvtable_cardcam_frames_total{camera,outcome}``: pushed frames received or refused.
* ``tvtable_socket_clients{feed,table}`` and ``tvtable_socket_clients_dropped_total{feed,table}``
  (dropped for being too slow).
* ``tvtable_redis_roundtrip_seconds``: one PING, timed at scrape.

Who may read it: any staff token (dealer, rep, td, graphics, commentator, secure), in the
``Authorization: Bearer`` header as a Prometheus ``bearer_token`` sends it, or the login
cookie. No token is 401; the viewer and camera roles get 403.
"""

from __future__ import annotations

import json
import math
import time
from collections import Counter
from typing import Any, Iterable

from aiohttp import web

from ..compliance.commands import COMMAND_TYPES as COMPLIANCE_TYPES
from ..engine.commands import COMMAND_TYPES as ENGINE_TYPES
from ..engine.errors import Refusal
from ..store import keys
from ..store.journal import LATE_MS
from ..store.releaser import LATENESS_BUCKETS_MS
from .auth import Denied

METRICS_ROLES = frozenset({"dealer", "rep", "td", "graphics", "commentator", "secure"})
KNOWN_TYPES = frozenset(ENGINE_TYPES) | frozenset(COMPLIANCE_TYPES)
COMMANDS_ROUTE = "/api/v1/tables/{table}/commands"
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

COUNTS = web.AppKey("metrics_counts", Counter)


def _label(value: object) -> str:
    return str(value).replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _number(value: float) -> str:
    if isinstance(value, float) and math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    return repr(value) if isinstance(value, float) else str(value)


class Exposition:
    """The text format, one metric family at a time."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def family(self, name: str, kind: str, help_text: str, samples: Iterable[tuple[dict[str, Any], float]],
               *, suffix: str = "") -> None:
        self.lines += [f"# HELP {name} {help_text}", f"# TYPE {name} {kind}"]
        self.samples(name + suffix, samples)

    def samples(self, name: str, samples: Iterable[tuple[dict[str, Any], float]]) -> None:
        for labels, value in samples:
            inner = ",".join(f'{k}="{_label(v)}"' for k, v in labels.items())
            self.lines.append(f"{name}{{{inner}}} {_number(value)}" if inner else f"{name} {_number(value)}")

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


@web.middleware
async def count_commands(request: web.Request, handler):
    """Count each command by table, type and outcome (the type is read by the handler)."""
    route = request.match_info.route.resource
    if request.method != "POST" or route is None or route.canonical != COMMANDS_ROUTE:
        return await handler(request)
    runtime_tables = _tables(request.app)
    table = request.match_info.get("table", "")
    table = table if table in runtime_tables else "unknown"
    outcome = "refused"
    try:
        response = await handler(request)
        if response.status == 200:
            outcome = "duplicate" if json.loads(response.body).get("duplicate") else "accepted"
        elif response.status in (401, 403):
            outcome = "denied"
        return response
    except Denied:
        outcome = "denied"
        raise
    except Refusal:
        outcome = "refused"
        raise
    finally:
        from .app import COMMAND_TYPE

        kind = request.get(COMMAND_TYPE)
        kind = kind if isinstance(kind, str) and kind in KNOWN_TYPES else "other"
        request.app[COUNTS][(table, kind, outcome)] += 1


def _tables(app: web.Application) -> list[str]:
    from .app import RUNTIME

    return list(app[RUNTIME].cores)


def _refusal(request: web.Request) -> web.Response | None:
    """None if the caller may read metrics; else the 401/403 answer (JSON, never the login
    page: a scraper cannot log in)."""
    from .app import GATE, error

    caller = request.app[GATE].caller(request)
    if caller is None:
        return error(401, "that token is not valid: ask the show's producer for yours", code="unauthorized")
    if caller.role == "open":
        return error(401, "metrics need a staff token: send it as Authorization: Bearer <token>", code="unauthorized")
    if caller.role not in METRICS_ROLES:
        return error(403, f"the {caller.role} role cannot read metrics", code="forbidden")
    return None


async def _cardcam(redis: Any, table: str) -> list[tuple[dict, dict]]:
    """Per seat: (labels, {shown, read, unsure}) from the worker's reads. The reads hold
    cards; only their numbers leave this function."""
    out = []
    for seat, raw in sorted((await redis.hgetall(keys.seats_key(table))).items()):
        try:
            body = json.loads(raw)
            cards = [c for c in body.get("cards") or [] if isinstance(c, str)]
            shown = bool(body.get("shown"))
        except (ValueError, AttributeError):
            continue  # a read we cannot parse counts as nothing, not as a failed scrape
        read = sum(1 for c in cards if c != "??")
        unsure = sum(1 for c in cards if c == "??") if shown else 0
        out.append(({"table": table, "seat": seat.decode() if isinstance(seat, bytes) else seat},
                    {"shown": int(shown), "read": read, "unsure": unsure}))
    return out


async def _frames(redis: Any) -> list[tuple[dict, int]]:
    prefix = keys.ingest_stats_key("")
    out = []
    async for key in redis.scan_iter(match=prefix + "*", count=200):
        camera = (key.decode() if isinstance(key, bytes) else key)[len(prefix):]
        for what, n in sorted((await redis.hgetall(key)).items()):
            what = what.decode() if isinstance(what, bytes) else what
            if what != "bytes":
                out.append(({"camera": camera, "outcome": what}, int(n)))
    return out


async def metrics(request: web.Request) -> web.Response:
    """Every metric, read now. Staff tokens only (see the module docstring)."""
    from .app import RUNTIME

    refused = _refusal(request)
    if refused is not None:
        return refused
    runtime = request.app[RUNTIME]
    redis = runtime.redis
    out = Exposition()

    started = time.perf_counter()
    await redis.ping()
    out.family("tvtable_redis_roundtrip_seconds", "gauge", "Time of one Redis PING, measured at this scrape.",
               [({}, round(time.perf_counter() - started, 6))])

    counts = request.app[COUNTS]
    out.family("tvtable_commands", "counter", "Commands entered over HTTP, by table, type and outcome.",
               [({"table": t, "type": k, "outcome": o}, n) for (t, k, o), n in sorted(counts.items())], suffix="_total")

    depth = []
    for table in runtime.cores:
        head = int(await redis.hget(keys.head(table), "seq") or 0)
        cursor = int(await redis.hget(keys.release_state(table), "cursor") or 0)
        depth.append(({"table": table}, max(0, head - cursor)))
    out.family("tvtable_delay_queue_depth", "gauge", "Journal records waiting in the delay line to be released.", depth)
    out.family("tvtable_appends_restamped", "counter",
               f"Appends that reached the journal more than {LATE_MS} ms after their stamp (a stalled core) and were "
               "ruled again.", [({"table": t}, core.restamped) for t, core in sorted(runtime.cores.items())], suffix="_total")

    name = "tvtable_release_lateness_seconds"
    out.lines += [f"# HELP {name} How late each release went out after its first record was due (Redis time).",
                  f"# TYPE {name} histogram"]
    for table, releaser in sorted(runtime.releasers.items()):
        buckets = [({"table": table, "le": _number(b / 1000)}, n) for b, n in zip(LATENESS_BUCKETS_MS, releaser.lateness_buckets)]
        out.samples(name + "_bucket", buckets + [({"table": table, "le": "+Inf"}, releaser.lateness_count)])
        out.samples(name + "_sum", [({"table": table}, releaser.lateness_sum_ms / 1000)])
        out.samples(name + "_count", [({"table": table}, releaser.lateness_count)])

    seats = [row for table in runtime.cores for row in await _cardcam(redis, table)]
    for what, help_text in (("shown", "1 while the camera sees this seat's cards shown, else 0."),
                            ("read", "Cards the camera has identified at this seat (a number, never a card)."),
                            ("unsure", "Cards shown at this seat that the camera has not identified.")):
        metric = "tvtable_cardcam_seat_shown" if what == "shown" else f"tvtable_cardcam_cards_{what}"
        out.family(metric, "gauge", help_text, [(labels, numbers[what]) for labels, numbers in seats])
    # Only a process with cores reads the frame counters: an overlay server's Redis user may not.
    out.family("tvtable_cardcam_frames", "counter", "Frames pushed by capture PCs, by camera and outcome.",
               await _frames(redis) if runtime.cores else [], suffix="_total")

    hub = runtime.hub
    out.family("tvtable_socket_clients", "gauge", "Sockets connected now, by feed and table.",
               [({"feed": f, "table": t}, len(c)) for (f, t), c in sorted(hub.clients.items())])
    out.family("tvtable_socket_clients_dropped", "counter", "Sockets dropped for being too slow, by feed and table.",
               [({"feed": f, "table": t}, n) for (f, t), n in sorted(hub.dropped.items())], suffix="_total")
    return web.Response(text=out.text(), headers={"Content-Type": CONTENT_TYPE})


def setup(app: web.Application) -> None:
    """Register ``GET /metrics`` and the command counter."""
    app[COUNTS] = Counter()
    app.middlewares.append(count_commands)
    app.router.add_get("/metrics", metrics)
