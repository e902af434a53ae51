"""``docs/openapi.yaml``: the HTTP API as OpenAPI 3.1, built from the app's own routes.

Regenerate after adding or changing a route::

    python -m broadcast.web.openapi > docs/openapi.yaml

The paths come from the aiohttp router (so none is forgotten), who may call each one
from :data:`ROUTES` and DESIGN.md's matrix (:data:`broadcast.web.auth.MATRIX`), and the
command, refusal and feed-message shapes from :mod:`broadcast.views.protocol`. A route
missing from :data:`ROUTES` is still listed, with its handler's docstring; add a line
there to state its desk. ``tests/web/test_openapi.py`` fails when the file and the
app's routes differ.
"""

from __future__ import annotations

import inspect
import re
import sys
from typing import Any

import yaml
from aiohttp import web

from ..views import protocol
from .auth import MATRIX, OPEN

ERROR = {"$ref": "#/components/schemas/Error"}
HTML = {"text/html": {"schema": {"type": "string"}}}
JSON_ANY = {"application/json": {"schema": {"type": "object"}}}
TABLE_QUERY = {"name": "table", "in": "query", "required": False, "schema": {"type": "string"},
               "description": "the table id (default: the show's first table)"}

# (method, path) -> (matrix row or None for open, summary, extra operation fields)
ROUTES: dict[tuple[str, str], tuple[str | None, str, dict[str, Any]]] = {
    ("GET", "/healthz"): (None, "Health: Redis reachable, tables served (503 when Redis is not).", {}),
    ("GET", "/metrics"): ("metrics", "Prometheus metrics (text format 0.0.4); counts only, never a card.", {
        "responses": {"200": {"description": "the metrics", "content": {"text/plain": {"schema": {"type": "string"}}}}}}),
    ("GET", "/api/v1/tables"): (None, "The show's tables, their games and delays.", {}),
    ("GET", "/api/v1/tables/{table}/state"): ("public", "One view of a table now: `?view=public|commentary` (delayed, "
                                              "the last released) or `live|compliance|secure` (live; by role).", {
        "parameters": [{"name": "view", "in": "query", "schema": {"enum": ["public", "commentary", "live", "secure", "compliance"]}}],
        "responses": {"200": {"description": "the view", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/FeedMessage"}}}}}}),
    ("POST", "/api/v1/tables/{table}/commands"): ("dealer_commands", "Enter a command (dealer, TD, rep or secure desk "
                                                  "by type); `id` makes a retry safe.", {
        "requestBody": {"required": True, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Command"}}}},
        "responses": {
            "200": {"description": "applied (or an earlier result for a known `id`)",
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Accepted"}}}},
            "400": {"description": "not JSON, not an object, or text that is not valid Unicode", "content": {"application/json": {"schema": ERROR}}},
            "413": {"description": "body over 2 MB", "content": {"application/json": {"schema": ERROR}}},
            "422": {"description": "refused: the message names the field and the rule", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Refusal"}}}},
            "503": {"description": "storage unavailable: retry with the same `id`", "content": {"application/json": {"schema": ERROR}}}}}),
    ("GET", "/ws/v1/{feed}"): ("public", "WebSocket feed `public|commentary|live|compliance|secure|control`: a snapshot, "
                               "then updates; `?after=SEQ` resumes the delayed feeds. Role by feed (DESIGN.md).", {
        "parameters": [{"name": "after", "in": "query", "schema": {"type": "integer", "minimum": 0}}],
        "responses": {"101": {"description": "switching to WebSocket; messages are FeedMessage",
                              "content": {"application/json": {"schema": {"$ref": "#/components/schemas/FeedMessage"}}}}}}),
    ("POST", "/api/v1/cardcam/{camera}/frames"): ("ingest", "Push one JPEG frame from a capture PC.", {
        "requestBody": {"required": True, "content": {"image/jpeg": {"schema": {"type": "string", "format": "binary"}}}},
        "parameters": [{"name": "X-Capture-Time", "in": "header", "schema": {"type": "string", "pattern": "^[0-9]{1,16}$"}}],
        "responses": {"202": {"description": "queued for the worker", "content": JSON_ANY},
                      "400": {"description": "empty, truncated or corrupt JPEG", "content": {"application/json": {"schema": ERROR}}},
                      "413": {"description": "over 4 MB or 8192 px a side", "content": {"application/json": {"schema": ERROR}}},
                      "415": {"description": "not image/jpeg", "content": {"application/json": {"schema": ERROR}}},
                      "429": {"description": "over the camera's frame rate", "content": {"application/json": {"schema": ERROR}}},
                      "503": {"description": "no cardcam worker reads this camera", "content": {"application/json": {"schema": ERROR}}}}}),
    ("GET", "/ws/v1/cardcam/{camera}"): ("ingest", "WebSocket frame push: one binary message per JPEG frame.", {}),
    ("GET", "/"): (None, "The landing page: where each desk goes.", {}),
    ("GET", "/login"): (None, "The login form.", {}),
    ("POST", "/login"): (None, "Log in with a token; sets the HttpOnly, SameSite=Strict session cookie.", {}),
    ("GET", "/logout"): (None, "Log out (clears the cookie).", {}),
    ("GET", "/overlay/table"): ("public", "On-air table overlay page (delayed).", {}),
    ("GET", "/console"): ("live", "The dealer console page.", {}),
    ("GET", "/secure/cards"): ("secure", "The secure card room page (audited).", {}),
    ("GET", "/secure/cards/ws"): ("secure", "The card room's live socket.", {}),
    ("GET", "/secure/cards/crop/{seat}"): ("secure", "The latest camera crop of one seat (JPEG).", {}),
    ("POST", "/secure/cards/cards"): ("secure", "Enter or correct a seat's cards.", {}),
    ("POST", "/secure/cards/resolve"): ("secure", "Resolve a duplicate-card alert.", {}),
    ("GET", "/secure/cards/review"): ("secure", "Hands held for the floor's review, with the held seats' cards (audited).", {}),
    ("GET", "/commentary"): ("commentary", "The commentary desk page (delayed).", {}),
    ("GET", "/api/v1/tables/{table}/stats"): ("commentary", "Per-player stats from the released commentary stream.", {}),
    ("GET", "/api/v1/tables/{table}/hands"): ("commentary", "Released hands, searchable.", {}),
    ("GET", "/api/v1/tables/{table}/hands/{hand}"): ("commentary", "One released hand.", {}),
    ("GET", "/api/v1/tables/{table}/outs"): ("commentary", "Outs and equities of the released hand.", {}),
    ("GET", "/api/v1/notes"): ("commentary", "The caller's private notes on players.", {}),
    ("PUT", "/api/v1/notes/{player}"): ("commentary", "Write the caller's note on one player.", {}),
    ("GET", "/rep"): ("compliance", "The rep dashboard page.", {}),
    ("GET", "/td"): ("td_read", "The tournament director's page.", {}),
    ("GET", "/api/v1/tables/{table}/compliance/audit.csv"): ("td_read", "The compliance audit log as CSV.", {}),
    ("GET", "/graphics"): ("graphics_controls", "The graphics desk page.", {}),
    ("POST", "/api/v1/tables/{table}/graphics"): ("graphics_controls", "A graphics desk command (live, not delayed).", {
        "requestBody": {"required": True, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/GraphicsCommand"}}}}}),
    ("GET", "/api/v1/tables/{table}/graphics"): ("graphics_controls", "The graphics control state and open pages.", {}),
    ("GET", "/api/v1/tables/{table}/onair.json"): ("public", "What is on air now, as JSON (for CasparCG/vMix data sources).", {}),
    ("GET", "/api/v1/tables/{table}/onair.xml"): ("public", "What is on air now, as XML.", {}),
    ("GET", "/api/v1/tables/{table}/clock"): ("public", "The on-air clock: server time minus the delay.", {}),
    ("GET", "/watch"): ("public", "The companion page for viewers (extra delay).", {}),
    ("GET", "/watch/ws"): ("public", "The companion page's socket (extra delay).", {}),
    ("GET", "/static/{filename}"): (None, "CSS, ES modules and images of the pages.", {}),
}

METRICS_ROLES = ("dealer", "rep", "td", "graphics", "commentator", "secure")  # see broadcast/web/metrics.py


def app_routes(app: web.Application) -> list[tuple[str, str, Any]]:
    """(method, path, handler) of every route, without aiohttp's automatic HEADs; a
    static folder is one ``/prefix/{filename}`` route."""
    out = []
    for route in app.router.routes():
        resource = route.resource
        if resource is None or route.method == "HEAD":
            continue
        path = resource.canonical
        if isinstance(resource, web.StaticResource):
            path = path.rstrip("/") + "/{filename}"
        out.append((route.method, path, route.handler))
    return sorted(set(out), key=lambda r: (r[1], r[0]))


def _roles(row: str | None) -> list[str]:
    if row is None:
        return [OPEN]
    if row == "metrics":
        return list(METRICS_ROLES)
    return sorted(MATRIX[row])


def _operation(method: str, path: str, handler: Any) -> dict[str, Any]:
    row, summary, extra = ROUTES.get((method, path), (None, "", {}))
    if not summary:
        doc = inspect.getdoc(handler) or ""
        summary = doc.split("\n\n")[0].replace("\n", " ") or f"{method} {path}"
    roles = _roles(row) if (method, path) in ROUTES else ["see DESIGN.md's matrix"]
    op: dict[str, Any] = {"summary": summary, "operationId": f"{method.lower()}_{re.sub(r'[^a-z0-9]+', '_', path.lower()).strip('_') or 'root'}",
                          "x-roles": roles}
    if roles != [OPEN]:
        op["security"] = [{"bearer": []}, {"cookie": []}]
    params = [{"name": name, "in": "path", "required": True, "schema": {"type": "string"}}
              for name in re.findall(r"\{(\w+)\}", path)]
    if "{table}" not in path and (path.startswith("/ws/v1/") or path in ("/overlay/table", "/console", "/watch", "/rep", "/td")):
        params.append(TABLE_QUERY)
    params += extra.get("parameters", [])
    if params:
        op["parameters"] = params
    if "requestBody" in extra:
        op["requestBody"] = extra["requestBody"]
    responses: dict[str, Any] = dict(extra.get("responses", {}))
    if not any(code[0] in "12" for code in responses):
        responses["200"] = {"description": "OK", "content": JSON_ANY if path.startswith(("/api/", "/healthz")) else HTML}
    if roles != [OPEN]:
        responses.setdefault("401", {"description": "no token or a wrong one", "content": {"application/json": {"schema": ERROR}}})
        responses.setdefault("403", {"description": "a valid token of the wrong role", "content": {"application/json": {"schema": ERROR}}})
    op["responses"] = {code: responses[code] for code in sorted(responses)}
    return op


def build(app: web.Application) -> dict[str, Any]:
    """The OpenAPI document for ``app``."""
    paths: dict[str, dict[str, Any]] = {}
    for method, path, handler in app_routes(app):
        paths.setdefault(path, {})[method.lower()] = _operation(method, path, handler)
    commands = [protocol.command_schema(kind) for kind in protocol.COMMAND_TYPES]
    graphics = [protocol.graphics_schema(kind) for kind in protocol.GRAPHICS_COMMANDS]
    return {
        "openapi": "3.1.0",
        "info": {"title": "TV Table", "version": "1",
                 "description": "The feature table of a live poker tournament, for broadcast. Generated by "
                                "`python -m broadcast.web.openapi > docs/openapi.yaml`; message details in docs/api.md. "
                                "`x-roles` lists who may call each operation (DESIGN.md's auth matrix; `open` needs no token)."},
        "servers": [{"url": "http://127.0.0.1:8080"}],
        "paths": paths,
        "components": {
            "securitySchemes": {
                "bearer": {"type": "http", "scheme": "bearer", "description": "a person's token (never in a URL)"},
                "cookie": {"type": "apiKey", "in": "cookie", "name": "tvtable_session", "description": "set by POST /login"},
            },
            "schemas": {
                "Command": {"oneOf": commands, "discriminator": {"propertyName": "type"}},
                "GraphicsCommand": {"oneOf": graphics},
                "Accepted": {"type": "object", "required": ["accepted", "seqs", "duplicate"],
                             "properties": {"accepted": {"const": True}, "seqs": {"type": "array", "items": {"type": "integer"}},
                                            "duplicate": {"type": "boolean"}}},
                "Refusal": protocol.REFUSAL,
                "Error": {"type": "object", "required": ["error", "message"],
                          "properties": {"error": {"type": "string"}, "field": {"type": ["string", "null"]},
                                         "message": {"type": "string", "description": "in the poker room's words"}}},
                "FeedMessage": protocol.FEED_MESSAGE,
            },
        },
    }


class _Dumper(yaml.SafeDumper):
    def ignore_aliases(self, data: Any) -> bool:
        return True  # spell every shared schema out: no &id001 anchors in a document people read


def render(app: web.Application) -> str:
    """``docs/openapi.yaml``'s text."""
    return yaml.dump(build(app), Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=120)


def demo_app() -> web.Application:
    """The demo show's app, built without starting it (no Redis needed)."""
    import tempfile
    from pathlib import Path

    from ..settings import parse_show
    from ..show import ShowRuntime
    from .app import make_app

    show = parse_show((Path(__file__).resolve().parents[2] / "config" / "demo.toml").read_text())
    with tempfile.TemporaryDirectory() as tmp:
        return make_app(ShowRuntime(show, Path(tmp), environ={}), manage_runtime=False)


if __name__ == "__main__":
    sys.stdout.write(render(demo_app()))
