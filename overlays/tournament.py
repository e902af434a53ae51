"""/rep and /td: the tournament rep's compliance dashboard and the TD's tournament controls.

* ``GET /rep?table=ID``: the compliance dashboard (the matrix row ``compliance``: the rep
  and the TD act on it; the dealer and the secure room read it). Live, and never a hole
  card: it is drawn from the compliance view, whose facts have no field for one.
* ``GET /td?table=ID``: the level clock, hand-for-hand, the called clock, field data and
  the TD's rulings on proposed disqualifications (row ``td_read``; only the TD acts).
* ``GET /api/v1/tables/{table}/compliance/audit.csv``: every rep and TD decision (who,
  when, why) as CSV, built from the journal's own events.

Both pages paint first with jinja2 and then follow ``/ws/v1/compliance``; their forms post
to ``/api/v1/tables/{table}/commands`` like every other desk, so the core rules on them.
"""

from __future__ import annotations

from aiohttp import web

from broadcast.compliance.audit import audit_csv
from broadcast.compliance.violations import NO_PENALTY
from broadcast.engine.penalties import KINDS

from .pages import HOME, _name, _script_json, _table_id, _tables, render

NO_STORE = {"Cache-Control": "no-store"}


def _gate(request: web.Request, row: str):
    from broadcast.web.app import GATE

    return request.app[GATE].check(request, row)


def _page(request: web.Request, row: str, template: str, *, acts: tuple[str, ...]) -> web.Response:
    caller = _gate(request, row)
    runtime, tables = _tables(request)
    table = _table_id(request, tables)
    view = runtime.cores[table].view("compliance")
    levels = [{"level": i, "small_blind": lv.small_blind, "big_blind": lv.big_blind, "ante": lv.ante,
               "minutes": lv.minutes} for i, lv in enumerate(runtime.show.levels, start=1)]
    response = render(template, table=table, table_name=_name(tables, table), tables=tables, view=view,
                      view_json=_script_json(view), levels=levels, levels_json=_script_json(levels), caller=caller, kinds=(*KINDS, NO_PENALTY),
                      can_act=caller.role in acts)
    response.headers.update(NO_STORE)
    return response


async def rep_page(request: web.Request) -> web.Response:
    """``/rep``: devices, card lights, HALT PLAY, penalties, branding, escorts, deal talk, audit."""
    return _page(request, "compliance", "rep.html", acts=("rep", "td"))


async def td_page(request: web.Request) -> web.Response:
    """``/td``: the level clock, hand-for-hand, the called clock, field data, TD rulings."""
    return _page(request, "td_read", "td.html", acts=("td",))


async def audit_export(request: web.Request) -> web.Response:
    """The audit log of every rep and TD decision as CSV (who, when, why); no line carries a card."""
    from broadcast.web.app import _table

    _gate(request, "compliance")
    core = _table(request)
    return web.Response(text=audit_csv(core.compliance.audit), content_type="text/csv", headers={
        **NO_STORE, "Content-Disposition": f'attachment; filename="audit-{core.table}.csv"'})


def setup(app: web.Application) -> None:
    """Register /rep, /td and the audit export; reps and TDs land on their own pages."""
    HOME.update({"rep": "/rep", "td": "/td"})
    app.router.add_get("/rep", rep_page)
    app.router.add_get("/td", td_page)
    app.router.add_get("/api/v1/tables/{table}/compliance/audit.csv", audit_export)
