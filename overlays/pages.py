"""The pages: login, the on-air table overlay and the dealer console.

jinja2 renders the first paint; ES modules in ``static/`` then follow the feeds over
WebSocket. Pages that carry live data check the matrix through the login cookie.
"""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urlparse

import jinja2
from aiohttp import web

HERE = Path(__file__).resolve().parent
ENV = jinja2.Environment(loader=jinja2.FileSystemLoader(HERE / "templates"), autoescape=True)

HOME = {
    "dealer": "/console", "rep": "/console", "td": "/console", "secure": "/secure/cards",
    "graphics": "/overlay/table", "commentator": "/commentary", "viewer": "/overlay/table",
}


def render(name: str, **context) -> web.Response:
    return web.Response(text=ENV.get_template(name).render(**context), content_type="text/html")


def _safe_next(value: str | None) -> str | None:
    # Only local paths: a login must never bounce a token holder to another site.
    if value and value.startswith("/") and not value.startswith("//") and not urlparse(value).netloc:
        return value
    return None


def _tables(request: web.Request):
    from broadcast.web.app import RUNTIME

    runtime = request.app[RUNTIME]
    return runtime, [{"id": t.id, "name": t.name} for t in runtime.show.tables]


def _table_id(request: web.Request, tables: list[dict]) -> str:
    wanted = request.query.get("table", tables[0]["id"])
    if wanted not in {t["id"] for t in tables}:
        raise web.HTTPNotFound(text=f"no table {wanted!r} in this show")
    return wanted


def _script_json(value) -> str:
    """JSON for a <script type="application/json"> block: a name holding "</script>" cannot end it."""
    return json.dumps(value).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _name(tables: list[dict], table: str) -> str:
    return next(t["name"] for t in tables if t["id"] == table)


async def login_page(request: web.Request) -> web.Response:
    return render("login.html", next=_safe_next(request.query.get("next")) or "", error=None)


async def login_submit(request: web.Request) -> web.Response:
    from broadcast.web.app import GATE
    from broadcast.web.auth import COOKIE

    form = await request.post()
    token = str(form.get("token", ""))
    caller = request.app[GATE].login(token) if token else None
    if caller is None:
        return web.Response(
            status=401, content_type="text/html",
            text=ENV.get_template("login.html").render(next=form.get("next", ""), error="That token is not valid."),
        )
    target = _safe_next(str(form.get("next", ""))) or HOME.get(caller.role, "/overlay/table")
    response = web.HTTPSeeOther(target)
    response.set_cookie(COOKIE, token, httponly=True, samesite="Strict", path="/", secure=request.secure)
    raise response


async def logout(request: web.Request) -> web.Response:
    from broadcast.web.auth import COOKIE

    response = web.HTTPSeeOther("/login")
    response.del_cookie(COOKIE, path="/")
    raise response


async def overlay_table(request: web.Request) -> web.Response:
    """``/overlay/table``: 1920x1080, transparent, delayed data only (open to OBS/CasparCG)."""
    from broadcast.web.app import GATE

    request.app[GATE].check(request, "public")
    runtime, tables = _tables(request)
    table = _table_id(request, tables)
    from broadcast.web.control import public_on_air

    first = await public_on_air(runtime, table)  # the first paint waits out the desk's trim too
    return render("overlay_table.html", table=table, table_name=_name(tables, table), show_name=runtime.show.name,
                  view=first, view_json=_script_json(first))


async def console(request: web.Request) -> web.Response:
    """``/console``: the dealer console (live, never a hole card)."""
    from broadcast.web.app import GATE

    caller = request.app[GATE].check(request, "live")
    runtime, tables = _tables(request)
    table = _table_id(request, tables)
    view = runtime.cores[table].view("live")
    can_act = caller.role == "dealer"
    return render("console.html", table=table, table_name=_name(tables, table), tables=tables, view=view,
                  view_json=_script_json(view), caller=caller, can_act=can_act)


async def index(request: web.Request) -> web.Response:
    raise web.HTTPFound("/login")


def setup_pages(app: web.Application) -> None:
    app.router.add_get("/", index)
    app.router.add_get("/login", login_page)
    app.router.add_post("/login", login_submit)
    app.router.add_get("/logout", logout)
    app.router.add_get("/overlay/table", overlay_table)
    app.router.add_get("/console", console)
    from .cardroom import setup as setup_cardroom; setup_cardroom(app)  # noqa: E702 - /secure/cards (role secure, audited)
    from .commentary import setup as setup_commentary; setup_commentary(app)  # noqa: E702 - /commentary and its APIs
    from .tournament import setup as setup_tournament; setup_tournament(app)  # noqa: E702 - /rep and /td
    from .graphics import setup as setup_graphics; setup_graphics(app)  # noqa: E702 - /graphics and the control feed
    from .watch import setup as setup_watch; setup_watch(app)  # noqa: E702 - /watch companion page
    app.router.add_static("/static/", HERE / "static", name="static")
