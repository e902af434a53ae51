"""Shared fixtures: a real show (real Redis, real aiohttp server) per test.

``show_server`` runs against the embedded Redis, and also against the external one
named by ``TVTABLE_REDIS_URL`` when that is set. Tables get unique ids, so tests can
share an external Redis.
"""

from __future__ import annotations

import os
import socket
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest
from aiohttp import web

from broadcast.settings import parse_show

TOKENS = {
    "dealer": "dealer-token-0123456789",
    "rep": "rep-token-0123456789ab",
    "td": "td-token-0123456789abc",
    "graphics": "graphics-token-0123456789",
    "commentator": "commentator-token-0123456",
    "secure": "secure-token-0123456789ab",
    "camera": "camera-token-0123456789ab",
    "viewer": "viewer-token-0123456789ab",
}


def show_toml(table: str, *, delay: float = 1.0, secure: bool = True, people: bool = True, redis_url: str | None = None,
              tv_rules: bool = False) -> str:
    """A small show: one table, four players, two levels.

    The TV-table rules (devices, logos, cards to the camera) are off unless asked for:
    tests of the hand, the feeds and the pages drive the table directly; the rules have
    their own tests (tests/web/test_tv_rules.py) and the demo show plays with them on."""
    lines = [
        "[show]", 'name = "Test show"', f"delay = {delay}", "allow_unsafe_redis = true",
        *([f'redis_url = "{redis_url}"'] if redis_url else []),
        "[[levels]]", "small_blind = 100", "big_blind = 200", "ante = 200", "minutes = 20",
        "[[levels]]", "small_blind = 200", "big_blind = 400", "ante = 400", "minutes = 20",
        "[[tables]]", f'id = "{table}"', 'name = "TV Table"', f"tv_rules = {'true' if tv_rules else 'false'}",
    ]
    for seat, (pid, name, country, stack) in enumerate(
        [("p-ann", "Ann Lee", "GB", 20000), ("p-bo", "Bo Chen", "CN", 30000), ("p-cy", "Cy Diaz", "ES", 25000), ("p-di", "Di Ek", "SE", 40000)],
        start=1,
    ):
        lines += ["[[tables.seats]]", f"seat = {seat}", f'id = "{pid}"', f'name = "{name}"', f'country = "{country}"', f"chips = {stack}"]
    if people:
        for role, token in TOKENS.items():
            if role == "secure" and not secure:
                continue
            lines += ["[[people]]", f'name = "{role.title()} Person"', f'role = "{role}"', f'token = "{token}"']
    return "\n".join(lines) + "\n"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class ShowServer:
    url: str
    runtime: object
    table: str
    data_dir: Path

    @property
    def core(self):
        return self.runtime.cores[self.table]

    def ws_url(self, feed: str, **query) -> str:
        q = "&".join(f"{k}={v}" for k, v in {"table": self.table, **query}.items())
        return self.url.replace("http", "ws", 1) + f"/ws/v1/{feed}?{q}"


def redis_targets() -> list[str | None]:
    external = os.environ.get("TVTABLE_REDIS_URL")
    return [None, external] if external else [None]


async def start_show(tmp_path: Path, *, redis_url: str | None = None, delay: float = 1.0, secure: bool = True, people: bool = True,
                     tv_rules: bool = False) -> tuple[ShowServer, web.AppRunner]:
    from broadcast.show import ShowRuntime
    from broadcast.web.app import make_app

    table = "t" + uuid.uuid4().hex[:8]
    show = parse_show(show_toml(table, delay=delay, secure=secure, people=people, redis_url=redis_url, tv_rules=tv_rules))
    runtime = ShowRuntime(show, tmp_path / "var", environ={})
    app = make_app(runtime, manage_runtime=False)
    await runtime.start()
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    port = free_port()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    return ShowServer(f"http://127.0.0.1:{port}", runtime, table, tmp_path / "var"), runner


@pytest.fixture(params=redis_targets(), ids=lambda u: "external" if u else "embedded")
async def show_server(request, tmp_path):
    """A running show (delay 1 s) with one person per role, secure included."""
    server, runner = await start_show(tmp_path, redis_url=request.param)
    yield server
    await runner.cleanup()
    await server.runtime.stop()
