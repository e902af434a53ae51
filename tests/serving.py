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
