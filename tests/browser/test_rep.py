"""The rep dashboard /rep in a real browser: a rep logs in and lands there, records device
surrenders through the forms (a refusal names the field in the form), acknowledges and
clears HALT PLAY, sees a found device proposed for disqualification awaiting the TD,
exports the audit log as CSV, and never holds a hole card. Saves docs/rep.png."""

from __future__ import annotations

import csv
import io
import json

import aiohttp
import pytest

from tests.browser.conftest import DOCS, stop_show
from tests.browser.test_console import HOLE, shown_forms
from tests.conftest import TOKENS, start_show

pytestmark = pytest.mark.browser


@pytest.fixture
async def tv_show(tmp_path):
    """A show whose table plays by the TV-table rules (devices, logos, cards to the camera)."""
    server, runner = await start_show(tmp_path, delay=2, tv_rules=True)
    try:
        yield server
    finally:
        await stop_show(server, runner)


async def api(session, server, command, role):
    async with session.post(f"{server.url}/api/v1/tables/{server.table}/commands", json=command,
                            headers={"Authorization": f"Bearer {TOKENS[role]}"}) as r:
        body = await r.json()
        assert r.status == 200, (command, body)
        return body


async def login(browser, server, role, frames=None, errors=None):
    context = await browser.new_context(viewport={"width": 1680, "height": 1250})
    page = await context.new_page()
    if errors is not None:
        page.on("pageerror", lambda exc: errors.append(str(exc)))
    if frames is not None:
        page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append((ws.url, payload))))
    await page.goto(f"{server.url}/login")
    await page.fill("#token", TOKENS[role])
    await page.click("button[type=submit]")
    return context, page


async def wait_text(page, selector, text, timeout=5_000):
    await page.wait_for_function(
        "([s, t]) => { const n = document.querySelector(s); return n && n.textContent.includes(t); }",
        arg=[selector, text], timeout=timeout, polling=50)


async def send_form(page, kind: str, *, form: str | None = None, **fields) -> None:
    """Fill a command form the way a rep does (selects by value, inputs by typing) and send it."""
    form = page.locator(form or f'form[data-type="{kind}"]')
    for name, value in fields.items():
        field = form.locator(f'[name="{name}"]')
        if await field.evaluate("(e) => e.tagName") == "SELECT":
            await field.select_option(str(value))
        else:
            await field.fill(str(value))
    await form.locator("button[type=submit]").click()


def no_card_in(text: str) -> None:
    for cards in HOLE.values():
        for card in cards:
            for form in shown_forms(card):
                assert f'"{form}"' not in text and f">{form}<" not in text and f" {form} " not in text, form


async def test_the_rep_runs_the_tv_table_from_the_dashboard_and_never_holds_a_hole_card(tv_show, browser):
    server = tv_show
    frames: list[tuple[str, str]] = []
    errors: list[str] = []
    context, page = await login(browser, server, "rep", frames, errors)
    await page.wait_for_url("**/rep")  # a rep lands on the dashboard, not the dealer console
    await page.wait_for_selector('body[data-feed="up"]')
    assert await page.inner_text("#blockers") == "8 to clear"  # four players: devices and logos each

    # The surrender ledger, through the form: what, to which rep, when, which bag.
    await send_form(page, "surrender_devices", player="p-ann", items="phone, smart watch", bag="B-12")
    await wait_text(page, '#seats tr[data-seat="1"] .devices', "phone, smart watch → Rep Person, bag B-12")
    assert "Surrender recorded." in await page.inner_text('form[data-type="surrender_devices"] .form-msg')

    # A refusal is shown in the form, naming the field.
    await send_form(page, "override_device_gate", player="p-bo")
    override = page.locator('form[data-type="override_device_gate"]')
    await wait_text(page, 'form[data-type="override_device_gate"] .form-msg', "reason")
    message = await override.locator(".form-msg").inner_text()
    assert message.startswith("Reason:") and "reason is required" in message, message
    assert await override.locator('input[name="reason"]').get_attribute("aria-invalid") == "true"

    async with aiohttp.ClientSession() as s:
        for seat, player in ((1, "p-ann"), (2, "p-bo"), (3, "p-cy"), (4, "p-di")):
            if player != "p-ann":
                await api(s, server, {"type": "surrender_devices", "player": player, "items": ["phone"], "bag": f"B{seat}"}, "rep")
            await api(s, server, {"type": "inspect_logos", "player": player, "logos": []}, "rep")
        await wait_text(page, "#blockers", "Cleared")
        await api(s, server, {"type": "start_hand", "button": 1}, "dealer")
        for seat, cards in HOLE.items():  # the secure card room enters real hole cards
            await api(s, server, {"type": "hole_cards", "seat": seat, "cards": cards}, "secure")
        actor = server.core.state.hand.actor

        # HALT PLAY for the seat to act: acknowledged (audited), then cleared with a reason.
        alert = page.locator(f'#alerts li[data-key="halt:1:{actor}"]')
        await alert.wait_for()
        assert "HALT PLAY" in await alert.inner_text()
        await wait_text(page, f'#seats tr[data-seat="{actor}"] .cards', "HALT PLAY")
        await alert.locator('form[data-type="acknowledge_alert"] button').click()
        await wait_text(page, f'#alerts li[data-key="halt:1:{actor}"]', "seen by Rep Person")
        clear = page.locator(f'#alerts li[data-key="halt:1:{actor}"] form[data-type="clear_halt"]')
        await clear.locator("button").click()  # no reason: refused, naming it
        await wait_text(page, f'#alerts li[data-key="halt:1:{actor}"] .form-msg', "Reason:")
        await clear.locator('input[name="reason"]').fill("camera cable reseated")
        await clear.locator("button").click()
        await page.wait_for_function("(k) => !document.querySelector(`#alerts li[data-key='${k}']`)", arg=f"halt:1:{actor}",
                                     timeout=5_000)

        # The rep confirms a seat showed its cards; the light turns to "shown".
        other = next(seat for seat in HOLE if seat != actor)
        await send_form(page, "cards_shown", seat=other)
        await wait_text(page, f'#seats tr[data-seat="{other}"] .cards', "shown")

        # A device found during play: disqualification proposed, awaiting the TD's decision.
        await send_form(page, "device_found", player="p-cy", item="phone", note="in the jacket pocket")
        await wait_text(page, "#alerts", "awaiting TD decision")
        assert "disqualification" in await page.inner_text("#alerts")

        # Escort board and deal talk with the rep's presence recorded.
        await page.locator("details:has(form[data-type=escort_out]) summary").click()
        await send_form(page, "escort_out", player="p-di", escort="Mia Rep", where="smoking area")
        await wait_text(page, "#escorts-out", "p-di out with Mia Rep (smoking area)")
        await page.locator("details:has(form[data-type=open_deal_talk]) summary").click()
        await page.locator('form[data-type="open_deal_talk"] button').click()
        await wait_text(page, 'form[data-type="open_deal_talk"] .form-msg', "only at the final table")
        await send_form(page, "escort_in", player="p-di")
        await wait_text(page, "#trips", "Mia Rep")
        await api(s, server, {"type": "start_final_table"}, "td")  # the TD's call, on /td
        await wait_text(page, "#stage", "Final table")
        await page.locator('form[data-type="open_deal_talk"] button').click()
        await wait_text(page, "#deal-talk", "Rep Person present")

        # The audit log: every decision, who and why, on the page and as CSV.
        await wait_text(page, "#audit", "device found on p-cy: phone")
        assert "camera cable reseated" in await page.inner_text("#audit")
        async with s.get(f"{server.url}/api/v1/tables/{server.table}/compliance/audit.csv",
                         headers={"Authorization": f"Bearer {TOKENS['rep']}"}) as r:
            assert r.status == 200 and r.headers["Content-Type"].startswith("text/csv")
            text = await r.text()
        rows = list(csv.DictReader(io.StringIO(text)))
        assert any(row["what"].startswith("HALT PLAY cleared") or "HALT PLAY cleared" in row["what"] for row in rows)
        assert any(row["why"] == "camera cable reseated" and row["by"] == "Rep Person" for row in rows)
        assert any("alert acknowledged" in row["what"] for row in rows)
        no_card_in(text)
        async with s.get(f"{server.url}/api/v1/tables/{server.table}/compliance/audit.csv") as r:
            assert r.status == 401  # no token, no audit log

    await page.wait_for_timeout(300)
    DOCS.mkdir(exist_ok=True)
    await page.screenshot(path=str(DOCS / "rep.png"), full_page=True)

    # Nothing on the page, nor in any compliance message, carries a hole card.
    no_card_in(await page.content())
    compliance = [json.loads(p) for url, p in frames if "/ws/v1/compliance" in url]
    assert len(compliance) >= 10
    for message in compliance:
        no_card_in(json.dumps(message))
        assert "hole_cards" not in message
    assert errors == []
    await context.close()


async def reads_without_controls(browser, server, role: str, home: str, path: str, notice: str, refused: str) -> None:
    """``role`` logs in, lands on ``home``, opens ``path``: live, and not one command form.
    ``refused`` (a role outside the matrix row) gets 403, and no token goes to the login page."""
    context, page = await login(browser, server, role)
    await page.wait_for_url(f"**{home}")
    await page.goto(f"{server.url}{path}?table={server.table}")
    await page.wait_for_selector('body[data-feed="up"]')
    assert await page.locator("form.cmd").count() == 0
    assert notice in await page.inner_text(".controls")
    await context.close()
    async with aiohttp.ClientSession() as s:
        async with s.get(f"{server.url}{path}", headers={"Authorization": f"Bearer {TOKENS[refused]}"}) as r:
            assert r.status == 403
        async with s.get(f"{server.url}{path}", allow_redirects=False) as r:
            assert r.status == 302 and r.headers["Location"].startswith("/login")


async def test_the_dealer_reads_the_dashboard_without_the_forms_and_a_viewer_is_refused(tv_show, browser):
    await reads_without_controls(browser, tv_show, "dealer", "/console", "/rep", "Only a rep or the TD", "viewer")
