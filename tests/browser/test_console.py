"""The dealer console in a real browser: log in through the form (HttpOnly, SameSite=Strict
cookie), enter actions, see the engine's rulings, and never hold a hole card, neither in
the page nor in any live feed message. Saves docs/login.png and docs/console.png."""

from __future__ import annotations

import json
import re

import pytest

from tests.browser.conftest import DOCS
from tests.conftest import TOKENS

pytestmark = pytest.mark.browser

HOLE = {1: ["Qc", "Qd"], 2: ["As", "Kd"], 3: ["7h", "7s"], 4: ["Jc", "Tc"]}
GLYPH = {"s": "\u2660", "h": "\u2665", "d": "\u2666", "c": "\u2663"}


def shown_forms(card: str) -> list[str]:
    """Every way a page could write a card: "Qc", "Q♣", "10♣"."""
    rank = "10" if card[0] == "T" else card[0]
    return [card, f"{rank}{GLYPH[card[1]]}", f"{card[0]}{GLYPH[card[1]]}"]


async def banner(page, text: str) -> None:
    await page.wait_for_function(
        "(t) => document.getElementById('banner-main').textContent === t", arg=text, timeout=5_000, polling=50)


async def test_dealer_logs_in_and_the_console_never_holds_a_hole_card(show, dealer, browser):
    context = await browser.new_context(viewport={"width": 1600, "height": 1000})
    page = await context.new_page()
    await page.clock.set_fixed_time("2026-06-01T20:15:00")  # the same log times in every docs/console.png
    frames: list[tuple[str, str]] = []
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append((ws.url, payload))))

    # No cookie yet: the console sends the browser to the login form.
    await page.goto(f"{show.url}/console?table={show.table}")
    assert "/login" in page.url
    DOCS.mkdir(exist_ok=True)
    await page.screenshot(path=str(DOCS / "login.png"))

    # A wrong token is refused on the form itself.
    await page.fill("#token", "not-a-token")
    await page.click("button[type=submit]")
    assert "not valid" in await page.inner_text(".error")
    await page.fill("#token", TOKENS["dealer"])
    await page.click("button[type=submit]")
    await page.wait_for_url(f"**/console?table={show.table}")

    cookie = next(c for c in await context.cookies() if c["name"] == "tvtable_session")
    assert cookie["httpOnly"] is True
    assert cookie["sameSite"] == "Strict"
    assert "tvtable_session" not in await page.evaluate("document.cookie")
    await page.wait_for_selector('body[data-feed="up"]')
    await banner(page, "Ready to deal")

    # Deal from the console; the camera reads every hole card (the dealer never sees them).
    await page.click("#start")
    await banner(page, "Seat 4 · Di Ek to act")
    for seat, cards in HOLE.items():
        await dealer.send({"type": "hole_cards", "seat": seat, "cards": cards, "source": "camera"})
    await page.wait_for_selector("#seats tr[data-seat='4'] .lights.all")

    # The console suggests but does not restrict: a raise below the minimum goes to the
    # engine, which refuses it and says what is legal.
    assert await page.get_attribute("#seat-picker [aria-checked='true']", "data-seat") == "4"
    assert "raise to 400 – 40,000" in await page.inner_text("#range")
    await page.fill("#amount", "300")
    await page.click("button[data-cmd=raise]")
    await page.wait_for_selector(".message.error")
    assert "minimum raise is to 400" in await page.inner_text("#message")

    await page.fill("#amount", "800")
    await page.click("button[data-cmd=raise]")
    await banner(page, "Seat 1 · Ann Lee to act")
    await page.click("button[data-cmd=fold]")
    await banner(page, "Seat 2 · Bo Chen to act")
    await page.click("button[data-cmd=call]")
    await banner(page, "Seat 3 · Cy Diaz to act")
    assert await page.inner_text("#banner-sub") == "600 to call · raise to 1,400 – 24,800"
    assert await page.inner_text("#pot") == "2,000"
    live = await dealer.live()
    assert live["legal"]["seat"] == 3
    await page.wait_for_function("document.querySelectorAll('#log li.ok').length === 4")
    await page.screenshot(path=str(DOCS / "console.png"))

    # Nothing on the page is a hole card: only card backs, and no card's name or glyph.
    assert await page.eval_on_selector_all("[data-card]", "els => els.map((e) => e.dataset.card)") == ["??"] * 8
    text = await page.inner_text("body")
    html = await page.content()
    for cards in HOLE.values():
        for card in cards:
            for form in shown_forms(card):
                assert not re.search(rf"(?<![A-Za-z0-9]){re.escape(form)}(?![A-Za-z0-9])", text), form
                assert f'"{form}"' not in html and f">{form}<" not in html, form

    # Nor did any live feed message carry one.
    live_frames = [json.loads(p) for url, p in frames if "/ws/v1/live" in url]
    assert len(live_frames) >= 8
    assert not [url for url, _ in frames if "/ws/v1/live" not in url]
    for message in live_frames:
        for seat in message["seats"]:
            assert set(seat["hole_cards"]) <= {"??"}, (message["seq"], seat)
        raw = json.dumps(message)
        for cards in HOLE.values():
            for card in cards:
                assert f'"{card}"' not in raw
    assert errors == []
    await context.close()

    # The rep reads the same console, without the controls.
    rep = await browser.new_context(viewport={"width": 1600, "height": 1000})
    page = await rep.new_page()
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    await page.goto(f"{show.url}/login?next=/console?table={show.table}")
    await page.fill("#token", TOKENS["rep"])
    await page.click("button[type=submit]")
    await page.wait_for_url(f"**/console?table={show.table}")
    await banner(page, "Seat 3 · Cy Diaz to act")
    assert await page.locator("button[data-cmd]").count() == 0
    assert "Only a dealer enters actions" in await page.inner_text(".controls")
    assert await page.eval_on_selector_all("[data-card]", "els => els.map((e) => e.dataset.card)") == ["??"] * 8
    assert errors == []
    await rep.close()


def test_first_view_json_cannot_close_its_script_block():
    from overlays.pages import _script_json

    text = _script_json({"name": "</script><script>alert(1)</script>", "note": "a & b"})
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text) == {"name": "</script><script>alert(1)</script>", "note": "a & b"}


async def test_console_enters_a_four_card_flop_the_burn_the_floor_drew_and_a_player_away(show, dealer, browser):
    context = await browser.new_context(viewport={"width": 1600, "height": 1000})
    page = await context.new_page()
    await page.goto(f"{show.url}/login?next=/console%3Ftable%3D{show.table}")
    await page.fill("#token", TOKENS["dealer"])
    await page.click("button[type=submit]")
    await page.wait_for_selector('body[data-feed="up"]')
    await page.click("#start")
    await page.wait_for_function("document.querySelectorAll('#log li.ok').length === 1")

    # Rule "At Your Seat": the selected seat was away when the last card reached the button.
    live = await dealer.live()
    away = next(s["seat"] for s in live["seats"] if s["dealt_in"] and s["seat"] != live["legal"]["seat"])
    await page.click(f"#seats tr[data-seat='{away}']")
    await page.click("button[data-cmd=away]")
    await page.wait_for_function("document.querySelectorAll('#log li.ok').length === 2")
    assert "away at the deal" in await page.inner_text("#log li.ok >> nth=0")

    while (live := await dealer.live())["needs_board"] != 3:
        legal = live["legal"]
        await dealer.send({"type": "check" if legal.get("check") else "call", "seat": legal["seat"]})
    await page.click("details.four-card summary")
    await page.fill("#four-cards", "Ah Kd 7c 2s")
    await page.fill("#four-burn", "7c")
    await page.click("button[data-cmd=four_card_flop]")
    # Wait for the three flop faces on the console's board itself: the seats' card backs also carry
    # data-card, so a page-wide count could pass before the dealer's command was taken.
    await page.wait_for_function("document.querySelectorAll('#board .card.face').length === 3")
    assert [await e.get_attribute("data-card") for e in await page.query_selector_all("#board .card.face")] \
        == ["Ah", "Kd", "2s"]
    live = await dealer.live()
    assert live["board"] == ["Ah", "Kd", "2s"]
    await context.close()


async def test_console_shows_halt_play_the_called_clock_on_server_time_and_a_frozen_all_in(browser, tmp_path):
    """The dealer holds a seat under HALT PLAY, watches the called clock count down (from the server's reading, not
    this PC's clock) and holds a hand-for-hand called all-in until the TD releases it."""
    import aiohttp

    from tests.browser.test_rep import api, login, wait_text
    from tests.conftest import start_show
    from tests.browser.conftest import stop_show

    server, runner = await start_show(tmp_path, delay=2, tv_rules=True)
    try:
        errors: list[str] = []
        frames: list[tuple[str, str]] = []
        context, page = await login(browser, server, "dealer", frames, errors)
        await page.clock.set_fixed_time("2020-01-01T08:00:00")  # a PC clock years off: the countdown must not care
        await page.wait_for_url("**/console**")
        await page.wait_for_selector('body[data-feed="up"]')
        assert await page.is_hidden("#called")
        async with aiohttp.ClientSession() as s:
            for seat, player in ((1, "p-ann"), (2, "p-bo"), (3, "p-cy"), (4, "p-di")):
                await api(s, server, {"type": "surrender_devices", "player": player, "items": []}, "rep")
                await api(s, server, {"type": "inspect_logos", "player": player, "logos": []}, "rep")
            await api(s, server, {"type": "hand_for_hand", "on": True}, "td")
            await api(s, server, {"type": "hand_for_hand_release"}, "td")
            await api(s, server, {"type": "start_hand", "button": 1}, "dealer")
            for seat, cards in HOLE.items():
                await api(s, server, {"type": "hole_cards", "seat": seat, "cards": cards}, "secure")
            actor = server.core.state.hand.actor
            name = next(p.name for p in server.core.state.seats if p.seat == actor)
            await banner(page, f"HALT PLAY · Seat {actor} · {name}")
            assert "cards were not shown to the camera" in await page.inner_text("#banner-sub")
            for seat in HOLE:
                await api(s, server, {"type": "cards_shown", "seat": seat, "source": "rep"}, "rep")
            await banner(page, f"Seat {actor} · {name} to act")

            # The floor approves a call for the clock, sped up for stalling: 20 s then a 3 s countdown.
            await api(s, server, {"type": "call_clock", "seat": actor, "seconds": 20, "countdown": 3,
                                  "reason": "deliberate stalling"}, "td")
            await wait_text(page, "#called-seat", f"Seat {actor}")
            first = int((await page.inner_text("#called-left")).split()[0])
            assert 18 <= first <= 20
            await page.wait_for_timeout(2_300)
            later = int((await page.inner_text("#called-left")).split()[0])
            assert first - 3 <= later <= first - 1, (first, later)
            DOCS.mkdir(exist_ok=True)
            await page.screenshot(path=str(DOCS / "screenshots" / "console-clock.png"))

            # The player acts in time: the clock goes; an all-in is called and frozen for hand-for-hand.
            action = "allin"
            while (seat := server.core.state.hand.actor) is not None:
                await api(s, server, {"type": action, "seat": seat}, "dealer")
                action = "call" if action == "allin" else "fold"
            await page.wait_for_selector("#called", state="hidden")
            await banner(page, "Called all-in: hold the hand")
            assert "until the TD releases it" in await page.inner_text("#banner-sub")
            assert await page.locator("#board-btn.legal").count() == 0, "nothing to deal is lit while frozen"
            await page.screenshot(path=str(DOCS / "screenshots" / "console-frozen.png"))
            await api(s, server, {"type": "release_all_in"}, "td")
            # The secure room knows every card, so the hands are up at once: the board comes next.
            assert server.core.awaiting_cards() == () and server.core.state.hand.needs_board() == 3
            await banner(page, "Deal the flop")
            await page.wait_for_selector("#board-btn.legal")
        # Neither the page nor any message it received holds a hole card, frozen or not.
        text, html = await page.inner_text("body"), await page.content()
        for card in (c for cards in HOLE.values() for c in cards):
            for form in shown_forms(card):
                assert not re.search(rf"(?<![A-Za-z0-9]){re.escape(form)}(?![A-Za-z0-9])", text), form
                assert f'"{form}"' not in html and f">{form}<" not in html, form
                assert not any(f'"{form}"' in payload for _, payload in frames), form
        assert errors == []
        await context.close()
    finally:
        await stop_show(server, runner)
