"""/graphics (role graphics): the graphics operator's desk, applied at once on the control feed.

The desk shows the program (the on-air page as it airs) beside a preview that applies
the pending changes before "take"; toggles per element, the panic "hide all", "hide
seat N's cards", the lower-third picker and editor, slates, the delay trim, the open
on-air pages with a refresh button each, and the audited overrides (display names,
chip counts at a break). The control channel itself lives in ``broadcast/web/control.py``.
"""

from __future__ import annotations

from aiohttp import web

from broadcast.views.graphics import ELEMENTS, MAX_TEXT, MAX_TITLE, SLATES

from .pages import HOME, _name, _script_json, _table_id, _tables, render

LABELS = {
    "player_bars": "Player bars", "board": "Board", "pot": "Pot", "clock": "Blinds and clock",
    "leaderboard": "Chip leaderboard", "payouts": "Payout ladder", "elimination": "Elimination", "deal": "Deal",
    "lower_third": "Lower third", "slate": "Slate",
}
# Hotkeys: digits toggle elements in order; the rest are named in the page's legend.
HOTKEYS = {name: str((i + 1) % 10) for i, name in enumerate(ELEMENTS)}


async def graphics_page(request: web.Request) -> web.Response:
    """``/graphics``: the desk. Live controls; the data it previews stays delayed."""
    from broadcast.web.app import GATE

    caller = request.app[GATE].check(request, "graphics_controls")
    runtime, tables = _tables(request)
    table = _table_id(request, tables)
    seats = runtime.show.table(table).seats
    players = [{"id": s.player.id, "seat": s.seat, "name": s.player.name, "country": s.player.country, "bio": s.player.bio}
               for s in seats]
    elements = [{"id": e, "label": LABELS[e], "key": HOTKEYS[e]} for e in ELEMENTS]
    return render("graphics.html", table=table, table_name=_name(tables, table), tables=tables, caller=caller,
                  players=players, elements=elements, slates=SLATES, max_title=MAX_TITLE, max_text=MAX_TEXT,
                  boot_json=_script_json({"table": table, "players": players, "elements": elements}))


def setup(app: web.Application) -> None:
    """``/graphics`` and the control channel's routes; a graphics login lands on the desk."""
    from broadcast.web.control import setup as setup_control

    HOME.update({"graphics": "/graphics"})
    app.router.add_get("/graphics", graphics_page)
    setup_control(app)
