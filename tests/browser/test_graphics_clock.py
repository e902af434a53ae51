"""The on-air level clock rolls on by itself in a real Chromium: a level that runs out between
two released views goes into the next level by the structure (as the server's clock does),
a break ends into the level it interrupted, and the last level stops at 0:00. Air time is
the Redis server's time minus the delay, learnt from GET /api/v1/tables/{T}/clock."""

from __future__ import annotations

import aiohttp
import pytest

from tests.browser.test_graphics import compliance, open_overlay

pytestmark = pytest.mark.browser


async def test_a_level_that_runs_out_between_two_views_rolls_into_the_next_on_air(show, browser):
    async with aiohttp.ClientSession() as s:
        async with s.get(f"{show.url}/api/v1/tables/{show.table}/clock") as r:
            body = await r.json()
        assert r.status == 200 and body["level_minutes"] == [20, 20] and body["delay_ms"] == 2000

        page, errors = await open_overlay(browser, show)
        # Level 1 has 2.5 s left when the TD starts the clock; nothing else happens at the table.
        await compliance(s, show, "td", {"type": "level_clock_start", "level": 1, "remaining_ms": 2500})
        await page.wait_for_function("window.tvtable.last && window.tvtable.last.tournament.clock"
                                     " && window.tvtable.last.tournament.clock.started", timeout=10_000)
        views = await page.evaluate("window.tvtable.views")
        aired = await page.evaluate("window.tvtable.last.tournament.clock")
        assert (aired["level"], aired["remaining_ms"], aired["running"]) == (1, 2500, True)
        await page.wait_for_function("window.tvtable.clock && window.tvtable.clock.synced && window.tvtable.clock.level === 1")

        # No view is released after it, yet the clock goes into level 2's 20 minutes on air.
        await page.wait_for_function("window.tvtable.clock.level === 2", timeout=10_000)
        text = await page.inner_text("#clock-left")
        assert text in ("20:00", "19:59", "19:58"), text
        assert await page.get_attribute("#clock-left", "data-level") == "2"
        assert await page.evaluate("window.tvtable.views") == views, "a view was released: the page did not roll on by itself"
        assert errors == []


async def test_the_on_air_level_reading_ends_a_break_into_its_level_and_stops_at_the_last_level(show, browser):
    page, errors = await open_overlay(browser, show)
    minutes = [20, 30]

    async def reading(clock: dict, since: int):
        return await page.evaluate("([c, since, minutes]) => import('/static/clock.js').then((m) => m.onAirLevel(c, since, minutes))",
                                   [clock, since, minutes])

    level1 = {"started": True, "running": True, "on_break": False, "level": 1, "remaining_ms": 60_000, "break_remaining_ms": 0}
    assert await reading(level1, 59_000) == {"level": 1, "on_break": False, "ms": 1_000}
    assert await reading(level1, 61_000) == {"level": 2, "on_break": False, "ms": 30 * 60_000 - 1_000}
    # The last level stops at 0:00.
    assert await reading(level1, 60_000 + 30 * 60_000 + 5_000) == {"level": 2, "on_break": False, "ms": 0}
    # A break: its own countdown, then the level it interrupted runs again from where it stood.
    on_break = {**level1, "on_break": True, "break_remaining_ms": 10_000}
    assert await reading(on_break, 4_000) == {"level": 1, "on_break": True, "ms": 6_000}
    assert await reading(on_break, 15_000) == {"level": 1, "on_break": False, "ms": 55_000}
    # A paused clock does not run; a clock not started shows nothing.
    assert await reading({**level1, "running": False}, 90_000) == {"level": 1, "on_break": False, "ms": 60_000}
    assert await reading({**level1, "started": False}, 0) is None
    assert errors == []
