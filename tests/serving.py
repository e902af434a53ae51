"""Run a ``ShowRuntime`` behind a real aiohttp server, for tests that need their own show
file (several tables, ``watch_delay``, one service kind per process, Redis users)."""

from __future__ import annotations

import asyncio

from aiohttp import web

from broadcast.show import ShowRuntime
from broadcast.web.app import make_app
from tests.conftest import free_port


async def serve(runtime: ShowRuntime) -> tuple[str, web.AppRunner]:
    """Start the runtime, then its web app on a free port; returns (base URL, runner)."""
    await runtime.start()
    runner = web.AppRunner(make_app(runtime, manage_runtime=False), access_log=None)
    await runner.setup()
    port = free_port()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    return f"http://127.0.0.1:{port}", runner


async def shut(runtime: ShowRuntime, runner: web.AppRunner) -> None:
    """Close the sockets, the server, then the runtime (cancelling again if a task hangs)."""
    await runtime.hub.close_all()
    await runner.cleanup()
    stopper = asyncio.get_running_loop().create_task(runtime.stop())
    for _ in range(40):
        done, _ = await asyncio.wait([stopper], timeout=0.25)
        if done:
            break
        for task in list(runtime._tasks):
            task.cancel()
    await stopper


def two_tables_toml(tv: str = "tv", outer: str = "outer", *, tv_delay: float = 1.0, outer_delay: float = 2.0) -> str:
    """A show with a TV table and an outer feature table, each with its own delay and players."""
    from tests.conftest import show_toml

    text = show_toml(tv, delay=tv_delay)
    block = text[text.index("[[tables]]"):text.index("[[people]]")]
    second = block.replace(f'id = "{tv}"', f'id = "{outer}"').replace('name = "TV Table"', 'name = "Outer Table"')
    second = second.replace("[[tables]]\n", f"[[tables]]\ndelay = {outer_delay}\n", 1)
    for pid in ("p-ann", "p-bo", "p-cy", "p-di"):
        second = second.replace(f'"{pid}"', f'"{pid}-{outer}"')
    return text.replace("[[people]]", second + "[[people]]", 1)
