"""Tournament controls /td in a real browser: the TD lands there, runs the level clock
(start, pause, resume, add time, breaks, set the level), hand-for-hand, the called clock,
types in and imports field data from CSV, and rules on a proposed disqualification;
refusals name the field in the form. The rep reads the page without its controls.
Saves docs/td.png."""

from __future__ import annotations

import aiohttp
import pytest

from tests.browser.conftest import DOCS
from tests.browser.test_console import HOLE
from tests.browser.test_rep import (  # noqa: F401 - tv_show is a fixture
    api, login, no_card_in, reads_without_controls, send_form, tv_show, wait_text)
from tests.conftest import TOKENS

pytestmark = pytest.mark.browser


async def clock_seconds(page) -> int:
    text = await page.inner_text("#clock-time")
    parts = [int(p) for p in text.split(":")]
    return parts[-1] + 60 * parts[-2] + (3600 * parts[-3] if len(parts) > 2 else 0)


async def test_the_td_runs_the_clock_the_field_and_rules_on_a_proposed_disqualification(tv_show, browser):
    server = tv_show
    errors: list[str] = []
    frames: list[tuple[str, str]] = []
    context, page = await login(browser, server, "td", frames, errors)
    await page.wait_for_url("**/td")
    await page.wait_for_selector('body[data-feed="up"]')
    assert await page.text_content("#clock-state") == "not started"

    # The level clock: start (20-minute levels), pause, resume, add time, a break, the next level.
    await send_form(page, "level_clock_start")
    await wait_text(page, "#clock-state", "running")
    assert 19 * 60 <= await clock_seconds(page) <= 20 * 60
    assert "Blinds 100 / 200, big blind ante 200" in await page.inner_text("#blinds-now")
    await send_form(page, "level_clock_pause")
    await wait_text(page, "#clock-state", "paused")
    paused = await clock_seconds(page)
    await page.wait_for_timeout(1200)
    assert await clock_seconds(page) == paused, "a paused clock does not run"
    await send_form(page, "level_clock_resume")
    await wait_text(page, "#clock-state", "running")
    await send_form(page, "level_clock_adjust", delta_ms="+2", reason="late start after the dinner break")
    await wait_text(page, 'form[data-type="level_clock_adjust"] .form-msg', "Time adjusted.")
    assert await clock_seconds(page) > 21 * 60
    # Removing more time than is left is refused, naming the field in the form.
    await send_form(page, "level_clock_adjust", delta_ms="-60")
    adjust = page.locator('form[data-type="level_clock_adjust"]')
    await wait_text(page, 'form[data-type="level_clock_adjust"] .form-msg', "set the next level instead")
    assert (await adjust.locator(".form-msg").inner_text()).startswith("Minutes (+ add, − remove):")
    assert await adjust.locator('input[name="delta_ms"]').get_attribute("aria-invalid") == "true"
    await send_form(page, "break_start", minutes="10", reason="colour-up")
    await wait_text(page, "#clock-state", "break")
    assert 9 * 60 <= await clock_seconds(page) <= 10 * 60
    await page.locator('form[data-type="break_end"] button').click()
    await wait_text(page, "#clock-state", "running")
    await send_form(page, "level_clock_set_level", level="2")
    await wait_text(page, "#clock-level", "Level 2")
    await wait_text(page, "#blinds-now", "Blinds 200 / 400")
    assert await page.get_attribute('#structure tr[data-level="2"]', "class") == "current"

    # Field data typed in, then imported from CSV (and a bad CSV line refused by its number).
    await send_form(page, "field_data", form="#field-form", entries="512", players_left="9", chips_in_play="15,360,000", prize_pool="2480000",
                    payouts="1, 450000\n2-3, 200000")
    await wait_text(page, "#f-average", "1,706,666")
    assert "2–3" in await page.inner_text("#payouts")
    csv_form = page.locator("#csv-form")
    await csv_form.locator('textarea[name="csv"]').fill("entries,600\nplayers_left,abc\n")
    await csv_form.locator("button[type=submit]").click()
    await wait_text(page, "#csv-form .form-msg", "line 2: 'abc' is not a whole number")
    assert (await csv_form.locator(".form-msg").inner_text()).startswith("CSV:")
    await page.set_input_files("#csv-file", files=[{"name": "field.csv", "mimeType": "text/csv", "buffer": (
        b"entries,600\nplayers_left,8\nchips_in_play,18000000\nprize_pool,3000000\npayout,1,500000\nwearers,Acme Poker,31\n")}])
    await page.wait_for_function("() => document.querySelector('#csv-form textarea').value.includes('players_left,8')")
    await csv_form.locator("button[type=submit]").click()
    await wait_text(page, "#f-average", "2,250,000")
    assert "Acme Poker" in await page.inner_text("#wearers")

    # Hand-for-hand: on, then the next hand released.
    await page.locator('form[data-type="hand_for_hand"] button[value="true"]').click()
    await wait_text(page, "#h4h", "On")
    await page.locator('form[data-type="hand_for_hand_release"] button').click()
    await wait_text(page, "#h4h-detail", "released 1")

    async with aiohttp.ClientSession() as s:
        for seat, player in ((1, "p-ann"), (2, "p-bo"), (3, "p-cy"), (4, "p-di")):
            await api(s, server, {"type": "surrender_devices", "player": player, "items": ["phone"], "bag": f"B{seat}"}, "rep")
            await api(s, server, {"type": "inspect_logos", "player": player, "logos": []}, "rep")
        await api(s, server, {"type": "start_hand", "button": 1}, "dealer")
        for seat, cards in HOLE.items():
            await api(s, server, {"type": "hole_cards", "seat": seat, "cards": cards}, "secure")
        actor = server.core.state.hand.actor
        await api(s, server, {"type": "cards_shown", "seat": actor, "source": "rep"}, "rep")

        # The called clock from the TD's desk (25 s + 5 s at a 20-minute level), then cancelled.
        await send_form(page, "call_clock", seat=actor)
        await wait_text(page, "#called-seat", f"Seat {actor}")
        assert "s" in await page.inner_text("#called-left")
        assert 20 <= int((await page.inner_text("#called-left")).split()[0]) <= 25
        await send_form(page, "cancel_clock", reason="player acted, dealer missed it")
        await page.wait_for_selector("#called", state="hidden")

        # A device found by a rep: disqualification proposed; the TD decides otherwise, with a reason.
        await api(s, server, {"type": "device_found", "player": "p-cy", "item": "phone", "note": "switched off in a bag"}, "rep")
        decision = page.locator('#decisions .decision[data-violation="1"]')
        await decision.wait_for()
        assert "Confirm disqualification" in await decision.inner_text()
        otherwise = decision.locator("form.otherwise")
        await otherwise.locator('select[name="kind"]').select_option("verbal_warning")
        await otherwise.locator("button[type=submit]").click()
        await wait_text(page, '#decisions form.otherwise .form-msg', "Reason:")
        await otherwise.locator('input[name="reason"]').fill("phone switched off and sealed in the bag")
        await otherwise.locator("button[type=submit]").click()
        await wait_text(page, "#decisions", "Nothing awaits a decision.")
        async with s.get(f"{server.url}/api/v1/tables/{server.table}/state?view=compliance",
                         headers={"Authorization": f"Bearer {TOKENS['td']}"}) as r:
            view = await r.json()
        cy = next(seat for seat in view["seats"] if seat["player"] == "p-cy")
        assert [p["kind"] for p in cy["penalties"]] == ["verbal_warning"]
        assert any("decided otherwise" in a["what"] and a["why"] == "phone switched off and sealed in the bag"
                   for a in view["audit"])

    await page.wait_for_timeout(300)
    DOCS.mkdir(exist_ok=True)
    await page.screenshot(path=str(DOCS / "td.png"), full_page=True)
    no_card_in(await page.content())
    for url, payload in frames:
        no_card_in(payload)
    assert errors == []
    await context.close()


async def test_the_rep_reads_the_td_page_without_its_controls_and_the_dealer_is_refused(tv_show, browser):
    await reads_without_controls(browser, tv_show, "rep", "/rep", "/td", "Only the Tournament Director", "dealer")
    async with aiohttp.ClientSession() as s:
        status, body = await _post(s, tv_show, {"type": "level_clock_start"}, "rep")
        assert (status, body["error"]) == (422, "not_allowed"), body  # the rep reads the clock; only the TD runs it
        assert "run the level clock" in body["message"]


async def _post(s, server, command, role):
    async with s.post(f"{server.url}/api/v1/tables/{server.table}/commands", json=command,
                      headers={"Authorization": f"Bearer {TOKENS[role]}"}) as r:
        return r.status, await r.json()


async def test_the_td_releases_a_hand_for_hand_called_all_in_from_the_page(tv_show, browser):
    """Rule "Called All-In": the all-in table waits, and the TD tells it to complete the hand."""
    server = tv_show
    errors: list[str] = []
    context, page = await login(browser, server, "td", errors=errors)
    await page.wait_for_url("**/td")
    await page.wait_for_selector('body[data-feed="up"]')
    assert await page.is_hidden("#all-in-frozen")
    assert await page.is_disabled("#release-all-in")
    async with aiohttp.ClientSession() as s:
        for seat, player in ((1, "p-ann"), (2, "p-bo"), (3, "p-cy"), (4, "p-di")):
            await api(s, server, {"type": "surrender_devices", "player": player, "items": []}, "rep")
            await api(s, server, {"type": "inspect_logos", "player": player, "logos": []}, "rep")
        await page.locator('form[data-type="hand_for_hand"] button[value="true"]').click()
        await wait_text(page, "#h4h", "On")
        await page.locator('form[data-type="hand_for_hand_release"] button').click()
        await wait_text(page, "#h4h-detail", "released 1")
        await api(s, server, {"type": "start_hand", "button": 1}, "dealer")
        for seat in HOLE:
            await api(s, server, {"type": "cards_shown", "seat": seat, "source": "rep"}, "rep")
        action = "allin"
        while (seat := server.core.state.hand.actor) is not None:
            await api(s, server, {"type": action, "seat": seat}, "dealer")
            action = "call" if action == "allin" else "fold"
        await page.wait_for_selector("#all-in-frozen", state="visible")
        assert "release it once every other table has finished the hand" in await page.inner_text("#all-in-frozen")
        await page.wait_for_timeout(200)
        DOCS.mkdir(exist_ok=True)
        await page.locator("#all-in-frozen").scroll_into_view_if_needed()
        await page.screenshot(path=str(DOCS / "screenshots" / "td-all-in-frozen.png"))
        rep_context, rep_page = await login(browser, server, "rep", errors=errors)  # the rep sees the hold too
        await rep_page.wait_for_url("**/rep")
        await rep_page.wait_for_selector("#all-in-frozen", state="visible")
        await page.locator("#release-all-in").click()
        await rep_page.wait_for_selector("#all-in-frozen", state="hidden")
        await rep_context.close()
        await wait_text(page, 'form[data-type="release_all_in"] .form-msg', "Called all-in released")
        await page.wait_for_selector("#all-in-frozen", state="hidden")
        assert await page.is_disabled("#release-all-in")
        kinds = [r.event["type"] for r in await server.core.journal.load()]
        assert kinds.count("AllInReleased") == 1
        waiting = server.core.awaiting_cards()
        status, body = await _post(s, server, {"type": "hole_cards", "seat": waiting[0], "cards": ["2c", "7d"]}, "dealer")
        assert status == 200, body  # released: the dealer enters the tabled cards
    assert errors == []
    await context.close()
