"""Browser fixtures: Debian's Chromium driven by Playwright, and a running show.

Never ``playwright install``: the tests launch ``/usr/bin/chromium`` (``.ci/run`` installs
Debian's package). Without it the browser tests skip, except under CI, where they fail.
"""

from __future__ import annotations

import asyncio
import os
import shutil
from pathlib import Path

import aiohttp
import pytest

from tests.conftest import TOKENS, start_show

CHROMIUM = os.environ.get("TVTABLE_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
DOCS = Path(__file__).resolve().parents[2] / "docs"


@pytest.fixture
async def browser():
    if not (os.path.exists(CHROMIUM) or shutil.which(CHROMIUM)):
        if os.environ.get("CI"):
            pytest.fail(f"{CHROMIUM} is missing: .ci/run must install Debian's chromium")
        pytest.skip(f"{CHROMIUM} is missing (apt-get install -y chromium)")
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        b = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield b
        finally:
            await b.close()


async def stop_show(server, runner) -> None:
    """Stop the show. ``ShowRuntime.stop`` can hang: a background task cancelled inside a
    blocking XREAD sometimes swallows the cancellation (see the report on
    broadcast/show.py), so cancel again until it is done."""
    await runner.cleanup()
    runtime = server.runtime
    stopper = asyncio.get_running_loop().create_task(runtime.stop())
    for _ in range(40):
        done, _ = await asyncio.wait([stopper], timeout=0.25)
        if done:
            break
        for task in list(getattr(runtime, "_tasks", ())):
            task.cancel()
    await stopper


@pytest.fixture
async def show(tmp_path):
    """A running show with a 2 s delay and one person per role."""
    server, runner = await start_show(tmp_path, delay=2)
    try:
        yield server
    finally:
        await stop_show(server, runner)


class Dealer:
    """Posts dealer commands through the HTTP API and reads the live view."""

    def __init__(self, server, session: aiohttp.ClientSession) -> None:
        self.server = server
        self.session = session
        self.headers = {"Authorization": f"Bearer {TOKENS['dealer']}"}
        self.base = f"{server.url}/api/v1/tables/{server.table}"

    async def send(self, command: dict, *, ok: bool = True) -> dict:
        # Hole cards come from the card room (the camera's stand-in): the dealer never enters
        # them, except cards tabled at showdown.
        headers = self.headers
        if command.get("type") == "hole_cards" and command.get("source", "camera") != "dealer":
            headers = {"Authorization": f"Bearer {TOKENS['secure']}"}
        async with self.session.post(f"{self.base}/commands", json=command, headers=headers) as r:
            body = await r.json()
        if ok:
            assert r.status == 200, (command, body)
        return body

    async def live(self) -> dict:
        async with self.session.get(f"{self.base}/state?view=live", headers=self.headers) as r:
            assert r.status == 200
            return await r.json()

    async def act(self, kind: str, seat: int, **extra) -> dict:
        """A betting action; first checks the engine agrees it is ``seat``'s turn."""
        live = await self.live()
        assert live["legal"] and live["legal"]["seat"] == seat, (kind, seat, live["legal"])
        return await self.send({"type": kind, "seat": seat, **extra})

    async def board(self, *cards: str) -> dict:
        live = await self.live()
        assert live["needs_board"] == len(cards), (cards, live["needs_board"], live["awaiting_cards"])
        return await self.send({"type": "board", "cards": list(cards)})


@pytest.fixture
async def dealer(show):
    async with aiohttp.ClientSession() as session:
        yield Dealer(show, session)
