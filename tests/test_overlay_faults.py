"""Fault trials for an overlay server: SIGKILL ``tvtable serve --services overlay`` at
seeded random moments while the show plays on, and check that a viewer who resumes with
``?after=SEQ`` misses nothing and gets nothing early.

The core is ``tvtable demo`` (its demo dealer plays by itself); the overlay server is a
second process reading the same Redis, as on a separate machine. Overlay servers hold no
state of their own (each reads the whole public stream), so a restarted one serves a
resuming viewer from the stream. ``TVTABLE_FAULT_SEED`` picks another seed.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import time
from pathlib import Path

import aiohttp
import pytest

from tests.showproc import TVTABLE, DemoProc, FeedRecorder, check_arrivals, check_no_gaps, free_port, read_show

SEED = int(os.environ.get("TVTABLE_FAULT_SEED", "5027"))
TRIALS = int(os.environ.get("TVTABLE_OVERLAY_TRIALS", "12"))
DELAY = 1.0
DEMO_SHOW = Path(__file__).resolve().parents[1] / "config" / "demo.toml"


class OverlayProc:
    """``tvtable serve --services overlay`` against the core's Redis."""

    def __init__(self, folder: Path, redis_url: str) -> None:
        self.folder, self.redis_url, self.port = folder, redis_url, free_port()
        self.proc: subprocess.Popen | None = None
        self.log = folder / "overlay.log"
        folder.mkdir(parents=True, exist_ok=True)

    async def start(self) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith("TVTABLE_")}
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(
                [TVTABLE, "serve", "--config", str(DEMO_SHOW), "--services", "overlay", "--redis", self.redis_url,
                 "--port", str(self.port), "--data-dir", str(self.folder / "var")],
                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env, start_new_session=True)
        deadline = time.monotonic() + 30
        async with aiohttp.ClientSession() as s:
            while True:
                assert self.proc.poll() is None, self.log.read_text()[-3000:]
                try:
                    async with s.get(f"http://127.0.0.1:{self.port}/healthz",
                                     timeout=aiohttp.ClientTimeout(total=1)) as r:
                        if r.status == 200:
                            return
                except (aiohttp.ClientError, asyncio.TimeoutError):
                    pass
                assert time.monotonic() < deadline, "the overlay server did not come up:\n" + self.log.read_text()[-3000:]
                await asyncio.sleep(0.05)

    async def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            await asyncio.to_thread(self.proc.wait)


@pytest.mark.slow
@pytest.mark.timeout(300)
async def test_killing_the_overlay_server_loses_no_public_message_for_a_resuming_viewer(tmp_path):
    rng = random.Random(SEED)
    core = DemoProc(tmp_path / "show", delay=DELAY)
    overlay = OverlayProc(tmp_path / "overlay", core.redis_url)
    viewer = FeedRecorder(f"ws://127.0.0.1:{overlay.port}", "public")
    try:
        core.start()
        await core.wait_ready()
        await overlay.start()
        viewer.start()
        for _ in range(TRIALS):
            await asyncio.sleep(rng.uniform(0.3, 1.5))
            await overlay.kill()
            await asyncio.sleep(rng.uniform(0.0, 0.5))
            await overlay.start()
        await asyncio.sleep(DELAY + 1.5)  # the last released messages reach the viewer
        await viewer.stop()
        data = await read_show(core.redis_url)
    finally:
        await viewer.stop()
        await overlay.kill()
        if core.proc is not None and core.proc.poll() is None:
            await core.stop()

    assert viewer.connects > TRIALS, f"the viewer reconnected {viewer.connects} times over {TRIALS} kills"
    assert len(viewer.messages) > TRIALS, "the show aired too little to tell"
    problems = check_no_gaps("public", viewer.messages, data) + check_arrivals("public", viewer.messages, data)
    assert not problems, f"seed {SEED}:\n" + "\n".join(problems[:30])
