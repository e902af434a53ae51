"""/watch in a real browser, at a phone size and a desktop size: the viewers' companion
page shows the delayed hand, board, stacks and equities, and a hand's cards only after
their release on the public stream plus the extra ``watch_delay``.
Saves docs/watch-phone.png (390x844) and docs/watch.png (1280x900).
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid

import aiohttp
import pytest

from broadcast.settings import parse_show
from broadcast.show import ShowRuntime
from tests.browser.conftest import DOCS
from tests.browser.test_commentary import Desk
from tests.conftest import ShowServer, show_toml
from tests.serving import serve, shut
from tests.showproc import hole_cards, read_show

pytestmark = pytest.mark.browser

DELAY = 1.0  # the broadcast delay
WATCH_DELAY = 2.0  # the companion page's extra delay
# Di opens, Ann moves in, Di calls: all-in with every card known, so equities air.
HOLE = {1: ["Qs", "Qd"], 2: ["7h", "2d"], 3: ["9s", "4h"], 4: ["Ac", "Kd"]}
BOARD = [["Jh", "8s", "3c"], ["5d"], ["2h"]]
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
TURN_HELD = 4.0  # seconds between the turn and the river in the desktop test: time to load the page and take its picture


async def start_watch_show(tmp_path, delay: float = DELAY):
    table = "t" + uuid.uuid4().hex[:8]
    text = show_toml(table, delay=delay).replace("[show]\n", f"[show]\nwatch_delay = {WATCH_DELAY}\n", 1)
    runtime = ShowRuntime(parse_show(text), tmp_path / "var", environ={})
    url, runner = await serve(runtime)
    return ShowServer(url, runtime, table, tmp_path / "var"), runner


@pytest.fixture
async def watch_show(tmp_path):
    server, runner = await start_watch_show(tmp_path)
    try:
        yield server
    finally:
        await shut(server.runtime, runner)


async def all_in_before_the_flop(desk: Desk) -> None:
    """Di opens to 600, Ann moves in, the blinds fold, Di calls: heads-up, all in."""
    await desk.deal(HOLE)
    for kind, seat, extra in (("raise", 4, {"amount": 600}), ("allin", 1, {}), ("fold", 2, {}), ("fold", 3, {}),
                              ("call", 4, {})):
        await desk.act(kind, seat, **extra)


async def first_reveal_ms(server: ShowServer) -> int:
    """When Redis put the first message with a hole card on the public stream (its id's ms)."""
    data = await read_show(server.runtime.url, server.table)
    return min(e.at_ms for e in data.public if hole_cards(e.msg))


async def test_watch_shows_the_cards_only_after_release_and_the_extra_delay(watch_show, browser):
    show = watch_show
    errors: list[str] = []
    phone = await browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True)
    page = await phone.new_page()
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    onair = await (await browser.new_context(viewport=DESKTOP)).new_page()  # the broadcast, for comparison
    await page.goto(f"{show.url}/watch?table={show.table}")  # open: no token needed
    await onair.goto(f"{show.url}/overlay/table?table={show.table}")
    await page.wait_for_selector('body[data-feed="up"]')

    async with aiohttp.ClientSession() as session:
        desk = Desk(show, session)
        await all_in_before_the_flop(desk)
        for cards in BOARD:
            await desk.send({"type": "board", "cards": cards})
    ended_live = time.time() * 1000

    # The cards come to the broadcast first, then to /watch WATCH_DELAY later.
    await onair.wait_for_function("() => window.tvtable.history.some(h => h.view.seats.some("
                                  "s => (s.hole_cards || []).some(c => c !== '??')))", timeout=15000)
    await page.wait_for_function("() => window.tvtable.history.some(h => h.view.seats.some("
                                 "s => (s.hole_cards || []).some(c => c !== '??')))", timeout=15000)
    released = await first_reveal_ms(show)
    assert released >= ended_live - 50  # the release rule: the hand had ended live
    history = await page.evaluate("() => window.tvtable.history.map(h => [h.at, h.view])")
    seen_at = min(at for at, view in history if hole_cards(view))
    assert seen_at >= released + WATCH_DELAY * 1000, f"/watch showed a card {released + WATCH_DELAY * 1000 - seen_at:.0f} ms early"
    assert seen_at <= released + WATCH_DELAY * 1000 + 1500  # and then it does come
    onair_history = await onair.evaluate("() => window.tvtable.history.map(h => [h.at, h.view])")
    assert min(at for at, view in onair_history if hole_cards(view)) < seen_at - 1000  # the broadcast had it first

    # Nothing reached /watch before WATCH_DELAY had passed since Redis released it.
    data = await read_show(show.runtime.url, show.table)
    released_at = {}
    for e in data.public:
        released_at.setdefault((e.seq, str(sorted(hole_cards(e.msg)))), e.at_ms)
    for at, view in history:
        assert at >= released_at[(view["seq"], str(sorted(hole_cards(view))))] + WATCH_DELAY * 1000, view["seq"]

    # Let the river and the result reach /watch and take the phone picture.
    await page.wait_for_function("() => (window.tvtable.last.results || null) !== null", timeout=15000)
    await page.wait_for_timeout(300)
    text = await page.inner_text("#watch")
    assert "Ann Lee" in text and "WINS 40,500" in text.upper() and "Hand 1" in text and "Pot 40,500" in text
    assert await page.locator("#board .card.face").count() == 5
    assert await page.locator('.player[data-seat="1"] .card.face').count() == 2
    await page.screenshot(path=str(DOCS / "watch-phone.png"), full_page=True)
    # A phone never scrolls sideways.
    assert await page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
    assert errors == []


async def test_watch_on_a_desktop_shows_the_equities_of_an_all_in(tmp_path, browser):
    """Hole cards and equities air once the hand has ended live; the turn then stays on
    /watch for as long as it stayed at the table, WATCH_DELAY after the broadcast."""
    show, runner = await start_watch_show(tmp_path, delay=3.0)
    errors: list[str] = []
    page = await (await browser.new_context(viewport=DESKTOP)).new_page()
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        async with aiohttp.ClientSession() as session:
            desk = Desk(show, session)
            await all_in_before_the_flop(desk)
            await desk.send({"type": "board", "cards": BOARD[0]})
            await desk.send({"type": "board", "cards": BOARD[1]})
            turn = time.monotonic()
            await asyncio.sleep(TURN_HELD)  # the turn stays TURN_HELD s at the table, so as long on air and on /watch
            await desk.send({"type": "board", "cards": BOARD[2]})
        await asyncio.sleep(turn + 3.0 + WATCH_DELAY + 0.2 - time.monotonic())  # the turn is on /watch now
        await page.goto(f"{show.url}/watch?table={show.table}")
        await page.wait_for_selector('body[data-feed="up"]')
        await page.wait_for_selector('.player[data-seat="1"] .eq:not(:empty)', timeout=3000)
        eq = {seat: await page.inner_text(f'.player[data-seat="{seat}"] .eq') for seat in (1, 4)}
        assert all(v.endswith("%") for v in eq.values()) and sum(int(v[:-1]) for v in eq.values()) in (99, 100, 101), eq
        assert await page.locator("#board .card.face").count() == 4
        assert (await page.inner_text("#street")).lower() == "turn"
        await page.screenshot(path=str(DOCS / "watch.png"))
        assert await page.locator("#board .card.face").count() == 4, "too slow: the river reached the picture"
        # The river was dealt TURN_HELD s after the turn: /watch shows it that much after the turn, not before.
        await page.wait_for_function("() => document.querySelectorAll('#board .card.face').length === 5", timeout=10000)
        assert time.monotonic() >= turn + TURN_HELD + 3.0 + WATCH_DELAY
        assert errors == []
    finally:
        await shut(show.runtime, runner)


async def test_watch_refuses_an_unknown_table_and_a_login_is_needed_when_on_air_is_closed(tmp_path):
    text = show_toml("tv", delay=DELAY).replace("[show]\n", "[show]\nopen_onair = false\n", 1)
    runtime = ShowRuntime(parse_show(text), tmp_path / "var", environ={})
    url, runner = await serve(runtime)
    try:
        async with aiohttp.ClientSession() as s:
            async with s.get(f"{url}/watch?table=tv", allow_redirects=False) as r:
                assert r.status == 302 and "/login" in r.headers["Location"]
            viewer = {"Authorization": "Bearer viewer-token-0123456789ab"}
            async with s.get(f"{url}/watch?table=tv", headers=viewer) as r:
                assert r.status == 200
            async with s.get(f"{url}/watch?table=nope", headers=viewer) as r:
                assert r.status == 404 and "no table 'nope'" in await r.text()
            camera = {"Authorization": "Bearer camera-token-0123456789ab"}
            async with s.get(f"{url}/watch?table=tv", headers=camera) as r:
                assert r.status == 403  # capture PCs read nothing
            async with s.ws_connect(f"{url.replace('http', 'ws')}/watch/ws?table=tv", headers=viewer) as ws:
                first = json.loads((await ws.receive(timeout=DELAY + 3)).data)  # the table opening, once released
            assert first["seq"] == 1 and first["hand"] is None
    finally:
        await shut(runtime, runner)
