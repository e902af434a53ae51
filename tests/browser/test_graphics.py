"""On-air graphics and the graphics desk in a real Chromium: the control channel acts at
once while the data stays delayed; the CasparCG and SPX-GC entry points; each extra
graphic and hide-all, screenshotted to docs/screenshots/ at 1920x1080 on a transparent
background, inside the frame; the /graphics desk (preview, take, hotkeys, open pages
with refresh); and no hole card on any of them before its release."""

from __future__ import annotations

import asyncio
import json
import time

import aiohttp
import pytest

from broadcast.web.auth import COOKIE
from tests.browser.conftest import DOCS, Dealer, stop_show
from tests.conftest import TOKENS, start_show

pytestmark = pytest.mark.browser

SHOTS = DOCS / "screenshots"
GRAPHICS = {"Authorization": f"Bearer {TOKENS['graphics']}"}
HOLE = {1: ["7h", "2c"], 2: ["As", "Ad"], 3: ["Jc", "Tc"], 4: ["9s", "8s"]}
ALL_HOLE = {c for cards in HOLE.values() for c in cards}
EXTRAS = ("leaderboard", "payouts", "elimination", "deal", "lower_third", "slate")


async def control(session, server, command: dict) -> dict:
    async with session.post(f"{server.url}/api/v1/tables/{server.table}/graphics", json=command, headers=GRAPHICS) as r:
        body = await r.json()
        assert r.status == 200, (command, body)
        return body["control"]


async def compliance(session, server, role: str, command: dict) -> None:
    async with session.post(f"{server.url}/api/v1/tables/{server.table}/commands", json=command,
                            headers={"Authorization": f"Bearer {TOKENS[role]}"}) as r:
        assert r.status == 200, (command, await r.text())


async def open_overlay(browser, server, query: str = ""):
    page = await browser.new_page(viewport={"width": 1920, "height": 1080})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    await page.goto(f"{server.url}/overlay/table?table={server.table}{query}")
    await page.wait_for_function("window.tvtable && window.tvtable.control && window.tvtable.control.rev >= 0")
    return page, errors


async def shown(page) -> list[str]:
    """The on-air elements actually on screen (control applied, data present)."""
    return await page.evaluate("""() => [...document.querySelectorAll('[data-el]')].filter((n) => {
        if (document.body.classList.contains('hide-all') || document.body.classList.contains('played-out')) return false;
        const r = n.getBoundingClientRect(); return r.width > 0 && r.height > 0; }).map((n) => n.id || n.dataset.el)""")


async def inside_the_frame(page) -> None:
    """Every visible graphic lies inside 1920x1080 and no text of it is cut."""
    boxes = await page.evaluate("""() => [...document.querySelectorAll('#stage [data-el], #side > section, #center-top > section')]
        .map((n) => [n.id, n.getBoundingClientRect()]).filter(([, r]) => r.width > 0)
        .map(([id, r]) => [id, r.left, r.top, r.right, r.bottom])""")
    for name, left, top, right, bottom in boxes:
        assert left >= 0 and top >= 0 and right <= 1920 and bottom <= 1080, (name, left, top, right, bottom)
    # Graphics up together never cover each other (the break slate is meant to stand alone).
    solid = await page.evaluate("""() => ['bug', 'rail', 'table-panel', 'lower-third', 'leaderboard', 'payouts', 'elimination',
        'deal', 'slate-banner'].map((id) => [id, document.getElementById(id).getBoundingClientRect()])
        .filter(([, r]) => r.width > 0 && r.height > 0).map(([id, r]) => [id, r.left, r.top, r.right, r.bottom])""")
    for i, (a, al, at, ar, ab) in enumerate(solid):
        for b, bl, bt, br, bb in solid[i + 1:]:
            assert al >= br or bl >= ar or at >= bb or bt >= ab, f"{a} overlaps {b}"
    cut = await page.evaluate("""() => [...document.querySelectorAll('.who, .headline, .lt-title, .amount, .name')]
        .filter((n) => n.getBoundingClientRect().width > 0 && n.scrollWidth > n.clientWidth + 1).map((n) => n.textContent)""")
    assert cut == []


async def screenshot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    await page.wait_for_timeout(350)  # let the entry animations settle
    await page.screenshot(path=str(SHOTS / name), omit_background=True, animations="disabled")


async def no_live_hole_card(page) -> None:
    html = await page.content()
    text = json.dumps(await page.evaluate("window.tvtable ? window.tvtable.history.map((h) => h.view) : []"))
    for card in ALL_HOLE:
        assert f'data-card="{card}"' not in html and f'"{card}"' not in text, card


@pytest.fixture
async def slow_show(tmp_path):
    """A show whose data airs 4 s late, so "at once" and "delayed" are far apart."""
    server, runner = await start_show(tmp_path, delay=4)
    try:
        yield server
    finally:
        await stop_show(server, runner)


async def test_the_control_channel_acts_at_once_while_the_data_stays_delayed(slow_show, browser):
    server = slow_show
    async with aiohttp.ClientSession() as s:
        dealer = Dealer(server, s)
        page, errors = await open_overlay(browser, server)
        await dealer.send({"type": "start_hand", "button": 1})
        for seat, cards in HOLE.items():
            await dealer.send({"type": "hole_cards", "seat": seat, "cards": cards})
        await page.wait_for_function("window.tvtable.last && window.tvtable.last.hand === 1", timeout=15_000)
        await dealer.act("call", 4)
        live_seq = (await dealer.live())["seq"]

        sent = time.monotonic()
        await control(s, server, {"type": "show", "element": "leaderboard"})
        await page.wait_for_function("!document.getElementById('leaderboard').classList.contains('off')", timeout=2_000)
        took = time.monotonic() - sent
        assert took < 1.5, took
        # ...while the call made before it is still inside the 4 s delay.
        assert await page.evaluate("window.tvtable.last.seq") < live_seq
        assert "leaderboard" in await shown(page)

        await control(s, server, {"type": "hide_cards", "seat": 4})
        await control(s, server, {"type": "hide_all"})
        await page.wait_for_function("document.body.classList.contains('hide-all')", timeout=2_000)
        assert await page.evaluate("window.tvtable.last.seq") < live_seq
        assert await shown(page) == []
        await screenshot(page, "hide-all.png")
        await no_live_hole_card(page)

        # The data catches up after the delay; the controls still apply to it.
        await page.wait_for_function(f"window.tvtable.last.seq >= {live_seq}", timeout=10_000)
        await control(s, server, {"type": "restore"})
        await page.wait_for_function("!document.body.classList.contains('hide-all')", timeout=2_000)
        assert await page.evaluate("[...document.querySelectorAll('.player[data-seat=\"4\"] [data-card]')].map((c) => c.dataset.card)") == ["??", "??"]
        assert errors == []


async def test_casparcg_and_spx_gc_entry_points(show, browser):
    async with aiohttp.ClientSession() as s:
        dealer = Dealer(show, s)
        await dealer.send({"type": "start_hand", "button": 1})
        page, errors = await open_overlay(browser, show, "&autoplay=0")
        await page.wait_for_function("window.tvtable.last && window.tvtable.last.hand === 1", timeout=10_000)
        assert await shown(page) == []  # CasparCG loads it, then plays it
        await page.evaluate("play()")
        assert "rail" in await shown(page)

        # CasparCG's XML: the leaderboard only, on this layer.
        await page.evaluate("""update('<templateData><componentData id="f0"><data id="text" value="leaderboard"/></componentData></templateData>')""")
        assert await shown(page) == ["leaderboard"]
        # JSON with two graphics: next() steps through them.
        await page.evaluate("""update('{"graphic": "payouts,leaderboard"}')""")
        assert await page.evaluate("[...window.tvtable.playout.only]") == ["payouts"]
        await page.evaluate("next()")
        assert await page.evaluate("[...window.tvtable.playout.only]") == ["leaderboard"]
        await page.evaluate("stop()")
        assert await shown(page) == []
        with pytest.raises(Exception, match="no graphic fireworks"):
            await page.evaluate("""update('{"graphic": "fireworks"}')""")

        # SPX-GC: the definition, a field written into #f0, then the update and animations.
        definition = await page.evaluate("window.SPXGCTemplateDefinition")
        assert definition["DataFields"][0]["field"] == "f0" and definition["out"] == "manual"
        await page.evaluate("document.getElementById('f0').textContent = 'player_bars'; runTemplateUpdate(); runAnimationIN()")
        assert await shown(page) == ["rail"]
        await page.evaluate("runAnimationOUT()")
        assert await shown(page) == []
        await page.evaluate("document.getElementById('f0').textContent = 'table'; runTemplateUpdate(); runAnimationIN()")
        assert "rail" in await shown(page) and "leaderboard" not in await shown(page)  # back to the desk's choice
        assert errors == []


async def _bust_ann(s, server, dealer: Dealer) -> None:
    """Ann (seat 1) moves all in with 7-2 and Bo's aces call: Ann finishes 4th."""
    await dealer.send({"type": "start_hand", "button": 1})
    for seat, cards in HOLE.items():
        await dealer.send({"type": "hole_cards", "seat": seat, "cards": cards})
    await dealer.act("fold", 4)
    await dealer.act("allin", 1)
    await dealer.act("call", 2)
    await dealer.act("fold", 3)
    await dealer.board("Kc", "9d", "4s")
    await dealer.board("3h")
    await dealer.board("8c")
    assert (await dealer.live())["hand_complete"]


async def test_extra_graphics_on_air_each_state_screenshotted(show, browser):
    async with aiohttp.ClientSession() as s:
        dealer = Dealer(show, s)
        await compliance(s, show, "td", {
            "type": "field_data", "entries": 512, "players_left": 4, "chips_in_play": 115000, "prize_pool": 2480000,
            "payouts": [{"first": 1, "amount": 620000}, {"first": 2, "amount": 410000}, {"first": 3, "amount": 290000},
                        {"first": 4, "amount": 205000}, {"first": 5, "last": 6, "amount": 150000}]})
        page, errors = await open_overlay(browser, show)
        await _bust_ann(s, show, dealer)
        await page.wait_for_function(
            "window.tvtable.last && window.tvtable.last.hand_complete && window.tvtable.last.tournament.eliminated.length === 1",
            timeout=15_000)
        elim = await page.evaluate("window.tvtable.last.tournament.eliminated[0]")
        assert (elim["name"], elim["place"], elim["prize"], elim["eliminated_by"]) == ("Ann Lee", 4, 205000, ["Bo Chen"])

        await control(s, show, {"type": "take", "commands": [{"type": "show", "element": "leaderboard"},
                                                             {"type": "show", "element": "payouts"}]})
        await page.wait_for_function("!document.getElementById('payouts').classList.contains('off')", timeout=2_000)
        lb = await page.eval_on_selector_all("#lb-rows li", "els => els.map((e) => [...e.children].map((c) => c.textContent))")
        assert lb[0] == ["1", "Bo Chen", "50,400", "43.8%"]  # 50,400 of the field's 115,000 chips
        assert [row[1] for row in lb] == ["Bo Chen", "Di Ek", "Cy Diaz"]
        assert await page.eval_on_selector_all("#pay-rows li", "els => els.map((e) => e.textContent)") == [
            "1st620,000", "2nd410,000", "3rd290,000", "4th205,000"]
        assert await page.get_attribute("#pay-rows li:last-child", "class") == "next"
        await inside_the_frame(page)
        await screenshot(page, "leaderboard-payouts.png")

        await control(s, show, {"type": "take", "commands": [
            {"type": "hide", "element": "leaderboard"}, {"type": "hide", "element": "payouts"},
            {"type": "show", "element": "elimination"}]})
        await page.wait_for_function("!document.getElementById('elimination').classList.contains('off')", timeout=2_000)
        assert await page.inner_text("#elim-name") == "ANN LEE"
        assert await page.inner_text("#elimination .facts") == "4th place\n205,000"
        assert await page.inner_text("#elim-by") == "Eliminated by Bo Chen"
        await inside_the_frame(page)
        await screenshot(page, "elimination.png")

        # A deal at the final table, reported by the rep: it airs with the delay.
        for pid in ("p-ann", "p-bo", "p-cy", "p-di"):  # the busted seat is still on the table facts
            await compliance(s, show, "rep", {"type": "inspect_logos", "player": pid, "logos": []})
        await compliance(s, show, "td", {"type": "start_final_table"})
        await compliance(s, show, "rep", {"type": "open_deal_talk"})
        await compliance(s, show, "rep", {"type": "report_deal", "text": "Three-way chop by chip count; 100,000 left to play for.",
                                          "payouts": [["p-bo", 480000], ["p-di", 390000], ["p-cy", 350000]]})
        await control(s, show, {"type": "take", "commands": [{"type": "hide", "element": "elimination"},
                                                             {"type": "show", "element": "deal"}]})
        await page.wait_for_function("window.tvtable.last.tournament.deals.length === 1", timeout=15_000)
        await page.wait_for_function("!document.getElementById('deal').classList.contains('off')", timeout=2_000)
        assert await page.eval_on_selector_all("#deal-rows li", "els => els.map((e) => e.textContent)") == [
            "Bo Chen480,000", "Di Ek390,000", "Cy Diaz350,000"]
        await inside_the_frame(page)
        await screenshot(page, "deal.png")

        # The desk corrects a display name between hands: a correcting event in the journal,
        # so it airs with the delay; the lower third then takes the name on air.
        await compliance(s, show, "graphics", {"type": "display_name", "player": "p-bo", "name": "Bobby Chen"})
        await page.wait_for_function("document.querySelector('#rail').textContent.includes('Bobby Chen')", timeout=10_000)
        await control(s, show, {"type": "take", "commands": [
            {"type": "hide", "element": "deal"},
            {"type": "lower_third", "player": "p-bo", "text": "Chip leader. Won the Spring Classic in 2025 and "
                                                              "two circuit rings; a cash game regular in Macau."}]})
        await page.wait_for_function("document.getElementById('lt-title').textContent === 'Bobby Chen'", timeout=2_000)
        assert "lower-third" in await shown(page)
        await inside_the_frame(page)
        await screenshot(page, "lower-third.png")

        await control(s, show, {"type": "take", "commands": [{"type": "clear_lower_third"}, {"type": "slate", "slate": "hand_for_hand"}]})
        await page.wait_for_function("!document.getElementById('slate-banner').classList.contains('off')", timeout=2_000)
        assert {"slate-banner", "rail"} <= set(await shown(page))
        await inside_the_frame(page)
        await screenshot(page, "hand-for-hand.png")

        await control(s, show, {"type": "slate", "slate": "break"})
        await page.wait_for_function("!document.getElementById('slate-break').classList.contains('off')", timeout=2_000)
        assert "rail" not in await shown(page) and "slate-break" in await shown(page)
        await inside_the_frame(page)
        await screenshot(page, "break.png")
        assert await page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgba(0, 0, 0, 0)"
        assert errors == []


async def test_the_graphics_desk_previews_takes_and_refreshes_pages(show, browser):
    async with aiohttp.ClientSession() as s:
        dealer = Dealer(show, s)
        await dealer.send({"type": "start_hand", "button": 1})
        for seat, cards in HOLE.items():
            await dealer.send({"type": "hole_cards", "seat": seat, "cards": cards})
        await dealer.act("call", 4)

        context = await browser.new_context(viewport={"width": 1600, "height": 1240})
        host = show.url.split("//", 1)[1].split(":")[0]
        await context.add_cookies([{"name": COOKIE, "value": TOKENS["graphics"], "domain": host, "path": "/"}])
        desk = await context.new_page()
        errors: list[str] = []
        desk.on("pageerror", lambda exc: errors.append(str(exc)))
        await desk.goto(f"{show.url}/graphics?table={show.table}")
        await desk.wait_for_function("window.tvgraphics.control !== null")
        program = desk.frame_locator("#program")
        preview = desk.frame_locator("#preview")
        await program.locator(".player").first.wait_for(timeout=10_000)

        # A toggle acts at once on the program.
        await desk.click('.toggle[data-element="leaderboard"]')
        await program.locator("#leaderboard:not(.off)").wait_for(timeout=3_000)
        assert await desk.get_attribute('.toggle[data-element="leaderboard"]', "aria-pressed") == "true"

        # Armed: the change waits in the preview until take.
        await desk.keyboard.press("p")
        assert await desk.is_checked("#arm")
        await desk.select_option("#lt-player", "p-cy")
        assert await desk.input_value("#lt-title") == "Cy Diaz"
        await desk.fill("#lt-text", "Reached the final table from 512 entries")
        await desk.click("#lt-up")
        await desk.click('.seat-toggle[data-seat="2"]')
        await desk.wait_for_function("window.tvgraphics.pending.length === 2")
        assert await desk.inner_text("#pending") == "lower third Cy Diaz\nhide cards 2"
        await preview.locator("#lower-third:not(.off)").wait_for(timeout=3_000)
        assert await preview.locator("#lt-text").inner_text() == "Reached the final table from 512 entries"
        assert await program.locator("#lower-third.off").count() == 1
        await desk.wait_for_timeout(300)
        await desk.screenshot(path=str(SHOTS / "graphics-desk.png"), full_page=True)
        rev = await desk.evaluate("window.tvgraphics.control.rev")
        await desk.keyboard.press("Enter")
        await program.locator("#lower-third:not(.off)").wait_for(timeout=3_000)
        await desk.wait_for_function(f"window.tvgraphics.control.rev === {rev + 1}")  # one take, one change
        assert await desk.evaluate("window.tvgraphics.control.hidden_cards") == [2]

        # Panic on Esc, never held for a take; Esc again restores.
        await desk.keyboard.press("Escape")
        await program.locator("body.hide-all").wait_for(state="attached", timeout=3_000)
        await desk.keyboard.press("Escape")
        await program.locator("body:not(.hide-all)").wait_for(state="attached", timeout=3_000)

        # An override is a correcting event: refused while the hand is live, in the room's words.
        await desk.fill('tr[data-player="p-bo"] .ov-chips', "31000")
        await desk.click('tr[data-player="p-bo"] .ov-apply')
        await desk.wait_for_selector("#toast.bad:not([hidden])")
        assert "between hands" in await desk.inner_text("#toast")
        await desk.evaluate("document.getElementById('toast').hidden = true")

        # A bad value is refused with the field named, and nothing changes.
        await desk.keyboard.press("p")
        await desk.fill("#trim", "-4")
        await desk.click("#trim-set")
        await desk.wait_for_selector("#toast:not([hidden])")
        assert (await desk.inner_text("#toast")).startswith("seconds: ")

        # An OBS page opens: the desk lists it; its refresh button reloads that page.
        obs, _ = await open_overlay(browser, show, "&name=OBS%20main")
        loads: list[float] = []
        obs.on("load", lambda _: loads.append(time.time()))
        row = desk.locator("#pages tr", has_text="OBS main")
        await row.wait_for(timeout=5_000)
        assert await desk.locator("#pages tr", has_text="desk program").count() == 1
        await row.locator("button.refresh").click()
        for _ in range(100):
            if loads:
                break
            await asyncio.sleep(0.05)
        assert loads, "the page did not reload"

        # Nothing on the desk or its feed ever held a live hole card.
        html = await desk.content() + json.dumps(await desk.evaluate("window.tvgraphics.control"))
        for frame in desk.frames:
            html += await frame.content()
        for card in ALL_HOLE:
            assert f'data-card="{card}"' not in html and f'"{card}"' not in html, card
        assert errors == []
        await context.close()


async def test_the_on_air_clocks_run_on_server_time_minus_the_delay(show, browser):
    async with aiohttp.ClientSession() as s:
        dealer = Dealer(show, s)
        page, errors = await open_overlay(browser, show)
        await compliance(s, show, "td", {"type": "level_clock_start", "level": 1, "remaining_ms": 600_000})
        await dealer.send({"type": "start_hand", "button": 1})
        await compliance(s, show, "rep", {"type": "declare_blind", "seat": 2})
        await compliance(s, show, "rep", {"type": "call_clock", "seat": 4, "approved_by": "Floor Fay"})
        await page.wait_for_function("window.tvtable.last && window.tvtable.last.tournament.called_clock", timeout=10_000)
        started = await page.evaluate("""window.tvtable.history.map((h) => h.view)
            .find((v) => v.tournament.clock && v.tournament.clock.started)""")
        assert started["tournament"]["clock"]["remaining_ms"] == 600_000
        await page.wait_for_function("window.tvtable.clock && window.tvtable.clock.synced")
        await page.wait_for_timeout(300)

        def seconds(text: str) -> int:
            m, s_ = text.split(":")
            return int(m) * 60 + int(s_)

        shown_at = time.time() * 1000  # Redis runs on this machine: the same clock
        text = await page.inner_text("#clock-left")
        # On air it reads as the clock read D (2 s) ago: 600 s less the air time since it started.
        expected = 600 - (shown_at - 2000 - started["ts"]) / 1000
        assert abs(seconds(text) - expected) <= 1.5, (text, expected)
        await page.wait_for_timeout(2100)
        assert seconds(await page.inner_text("#clock-left")) in (seconds(text) - 3, seconds(text) - 2)
        called = await page.inner_text("#called-clock")
        assert called.upper().startswith("CLOCK · SEAT 4 · ")
        assert 0 < int(called.rsplit("·", 1)[1]) <= 30  # 25 s, then a 5 s countdown
        # Bo declared he plays blind: announced at the table, so it airs (with the delay).
        assert await page.inner_text('.player[data-seat="2"] .blind-label') == "PLAYING BLIND"
        assert await page.locator(".blind-label").count() == 1
        await inside_the_frame(page)
        await screenshot(page, "clocks.png")
        assert errors == []
