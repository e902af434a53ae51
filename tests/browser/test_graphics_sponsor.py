"""The sponsor badge on the player bars, in a real Chromium: it airs only while the player's
branding complies with the rule book (checked by a rep, declared or the organiser's, an
approved operator, within the filmed table's 4 cm x 5 cm), judged with the show's own
[compliance] settings on the delayed cut; a player found in breach loses it on air after the
delay, never before. Saves docs/screenshots/sponsor-badge.png."""

from __future__ import annotations

import time

import aiohttp
import pytest

import tests.conftest
from tests.browser.conftest import stop_show
from tests.browser.test_graphics import SHOTS, compliance, inside_the_frame, open_overlay, screenshot

pytestmark = pytest.mark.browser

DELAY_MS = 2000


@pytest.fixture
async def branded_show(tmp_path, monkeypatch):
    """The browser tests' show (2 s delay) with the show file's [compliance] approving RiverBet."""
    plain = tests.conftest.show_toml
    monkeypatch.setattr(tests.conftest, "show_toml", lambda *a, **k: plain(*a, **k) + (
        '[compliance]\norganiser = "Pokerfest"\napproved_operators = ["RiverBet"]\n'))
    server, runner = await tests.conftest.start_show(tmp_path, delay=DELAY_MS / 1000)
    try:
        yield server
    finally:
        await stop_show(server, runner)


def logo(company: str, place: str, w: float, h: float) -> dict:
    return {"company": company, "place": place, "width_cm": w, "height_cm": h}


async def rep(s, show, command: dict) -> int:
    """A rep's command; returns the last journal seq it wrote."""
    async with s.post(f"{show.url}/api/v1/tables/{show.table}/commands", json=command,
                      headers={"Authorization": f"Bearer {tests.conftest.TOKENS['rep']}"}) as r:
        body = await r.json()
        assert r.status == 200, (command, body)
    return body["seqs"][-1]


async def badges(page) -> dict[str, str]:
    return await page.evaluate("""() => Object.fromEntries([...document.querySelectorAll('.player')].map(
        (row) => [row.dataset.seat, (row.querySelector('.sponsor') || {}).textContent || '']))""")


async def test_the_sponsor_badge_airs_only_while_the_branding_complies(branded_show, browser):
    show = branded_show
    async with aiohttp.ClientSession() as s:
        page, errors = await open_overlay(browser, show)
        # Ann: RiverBet, declared and approved, 4 x 5 cm on the breast pocket: compliant.
        await compliance(s, show, "rep", {"type": "declare_sponsor", "player": "p-ann", "company": "RiverBet"})
        await compliance(s, show, "rep", {"type": "inspect_logos", "player": "p-ann", "logos": [logo("RiverBet", "breast_pocket", 4, 5)]})
        # Bo: the organiser's logo on the sleeve needs no declaration.
        await compliance(s, show, "rep", {"type": "inspect_logos", "player": "p-bo", "logos": [logo("Pokerfest", "sleeve", 3, 4)]})
        # Cy: a declared company that is not an approved operator: in breach, no badge.
        await compliance(s, show, "rep", {"type": "declare_sponsor", "player": "p-cy", "company": "Acme Sports"})
        last = await rep(s, show, {"type": "inspect_logos", "player": "p-cy", "logos": [logo("Acme Sports", "breast_pocket", 4, 5)]})
        # Di: logos not checked yet: no badge.
        await page.wait_for_function(f"window.tvtable.last && window.tvtable.last.seq >= {last}", timeout=10_000)
        assert await badges(page) == {"1": "RiverBet", "2": "Pokerfest", "3": "", "4": ""}
        await inside_the_frame(page)
        await screenshot(page, "sponsor-badge.png")

        # A rep finds Ann's logo is now 8 x 8 cm: in breach. The badge goes, after the delay.
        found = time.time() * 1000
        await compliance(s, show, "rep", {"type": "inspect_logos", "player": "p-ann", "logos": [logo("RiverBet", "breast_pocket", 8, 8)]})
        assert (await badges(page))["1"] == "RiverBet"  # still the delayed picture
        await page.wait_for_function("!document.querySelector('.player[data-seat=\"1\"] .sponsor')", timeout=10_000)
        assert time.time() * 1000 >= found + DELAY_MS - 50
        assert await badges(page) == {"1": "", "2": "Pokerfest", "3": "", "4": ""}

        # No view ever carried a badge for Cy or Di; Ann's went with the view of the breach.
        history = await page.evaluate("window.tvtable.history.map((h) => h.view)")
        for view in history:
            sponsors = {row["player"]: row["sponsor"] for row in view["seats"]}
            assert sponsors["p-cy"] is None and sponsors["p-di"] is None, view["seq"]

        # The polling data sources carry the same badges.
        async with s.get(f"{show.url}/api/v1/tables/{show.table}/onair.json") as r:
            data = await r.json()
        assert [row["sponsor"] for row in data["seats"]] == [None, "Pokerfest", None, None]
        assert errors == []
    assert (SHOTS / "sponsor-badge.png").exists()
