"""Fault trials for a card-reader worker: SIGKILL ``tvtable cardcam run`` at seeded random
moments while the show plays on, as a capture PC's reader would die, and restart it.

The show is ``tvtable demo --frames-only``: the demo deals, and its synthetic cameras push
JPEG frames to Redis as capture PCs do, but no card reader runs in it. The reader is a
separate ``tvtable cardcam run`` on the show file the demo writes, killed again and again
(while loading its model, between frames, in the middle of a post). After the trials:

* a killed worker leaves no vision process behind (they would eat a capture PC's CPU);
* the restarted worker reads again: its reads reach the core's inbox;
* every inbox entry was ruled on (the core's inbox cursor is at the end), none twice, and
  no read landed in the wrong hand or seat (no card twice in a hand, no camera check);
* a viewer of the delayed feed missed nothing and got nothing early;
* the journal's hash chain verifies, and neither the core nor a worker logged a traceback.

``TVTABLE_FAULT_SEED`` picks another seed; ``TVTABLE_CARDCAM_TRIALS`` the number of kills.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import subprocess
import time
from pathlib import Path

import pytest
import redis.asyncio as aioredis

from broadcast.store import keys
from tests.cardcam.conftest import needs_decks
from tests.showproc import TABLE, TVTABLE, DemoProc, FeedRecorder, check_arrivals, check_cards_dealt_once
from tests.showproc import check_no_gaps, read_show

SEED = int(os.environ.get("TVTABLE_FAULT_SEED", "5027"))
TRIALS = int(os.environ.get("TVTABLE_CARDCAM_TRIALS", "10"))
DELAY = 1.5


def session_members(sid: int) -> list[int]:
    """Live processes of a session (a worker started in its own session: it and its pool)."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if fields[0] != "Z" and int(fields[3]) == sid:  # state, ppid, pgrp, session
            out.append(int(entry))
    return out


class WorkerProc:
    """``tvtable cardcam run`` on the demo's camera show file, in a session of its own."""

    def __init__(self, folder: Path, config: Path, redis_url: str, model: Path) -> None:
        self.folder, self.config, self.redis_url, self.model = folder, config, redis_url, model
        self.proc: subprocess.Popen | None = None
        self.log = folder / "cardcam.log"
        self.starts = 0
        folder.mkdir(parents=True, exist_ok=True)

    def start(self) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith("TVTABLE_")}
        with open(self.log, "ab") as log:
            log.write(f"\n===== start {self.starts} =====\n".encode())
            log.flush()
            self.proc = subprocess.Popen(
                [TVTABLE, "cardcam", "run", "--config", str(self.config), "--redis", self.redis_url,
                 "--model", str(self.model), "--jobs", "1"],
                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env, start_new_session=True)
        self.starts += 1

    async def kill(self) -> list[int]:
        """SIGKILL the worker (not its pool: a crash does not tidy up) and return the pids of
        its vision processes still alive 10 s later."""
        assert self.proc is not None
        sid = self.proc.pid
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        await asyncio.to_thread(self.proc.wait)
        deadline = time.monotonic() + 10
        while session_members(sid) and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        left = session_members(sid)
        for pid in left:  # do not leave them running for the rest of the suite
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        return left

    def log_text(self) -> str:
        try:
            return self.log.read_text(errors="replace")
        except OSError:
            return ""


async def inbox_entries(redis_url: str) -> list[tuple[str, dict]]:
    client = aioredis.from_url(redis_url)
    try:
        return [(i.decode(), json.loads(f[b"c"])) for i, f in await client.xrange(keys.inbox(TABLE))]
    finally:
        await client.aclose()


async def inbox_cursor(redis_url: str) -> str | None:
    client = aioredis.from_url(redis_url)
    try:
        value = await client.get(keys.inbox_cursor(TABLE))
        return value.decode() if value else None
    finally:
        await client.aclose()


def run_of(command_id: str) -> str:
    """The worker run that posted a command (ids are ``cardcam-GROUP-RUN-N``)."""
    return command_id.rsplit("-", 2)[-2]


@needs_decks
@pytest.mark.slow
@pytest.mark.timeout(600)
async def test_killing_the_card_reader_loses_no_read_and_leaves_no_vision_process(tmp_path, model):
    from cardcam.model import default_model_path

    rng = random.Random(SEED)
    core = DemoProc(tmp_path / "show", delay=DELAY, extra=("--frames-only",))
    config = core.data_dir / "demo-cameras.toml"
    worker: WorkerProc | None = None
    viewer = FeedRecorder(core.ws, "public")
    orphans: list[int] = []
    try:
        core.start()
        await core.wait_ready()
        deadline = time.monotonic() + 30
        while not config.exists():
            assert time.monotonic() < deadline, "the demo wrote no camera show file:\n" + core.log_tail()
            await asyncio.sleep(0.1)
        viewer.start()
        worker = WorkerProc(tmp_path / "reader", config, core.redis_url, default_model_path())
        worker.start()
        for _ in range(TRIALS):
            await asyncio.sleep(rng.uniform(1.0, 12.0))  # loading the model, reading, posting
            orphans += await worker.kill()
            await asyncio.sleep(rng.uniform(0.0, 1.0))
            worker.start()
        runs_before = {run_of(c["id"]) for _, c in await inbox_entries(core.redis_url) if "id" in c}
        # The last worker reads again: a hole-card read of a run not seen before reaches the inbox.
        deadline = time.monotonic() + 120
        while True:
            fresh = [c for _, c in await inbox_entries(core.redis_url)
                     if c.get("type") == "hole_cards" and run_of(c["id"]) not in runs_before]
            if fresh:
                break
            assert worker.proc.poll() is None, "the restarted worker stopped:\n" + worker.log_text()[-3000:]
            assert time.monotonic() < deadline, "the restarted worker read nothing in 120 s:\n" + worker.log_text()[-3000:]
            await asyncio.sleep(0.5)
        orphans += await worker.kill()
        await asyncio.sleep(DELAY + 1.5)  # what the core took in reaches the viewer
        await viewer.stop()
        await asyncio.sleep(0.5)  # the inbox reader rules on the last entries
        entries = await inbox_entries(core.redis_url)
        cursor = await inbox_cursor(core.redis_url)
        data = await read_show(core.redis_url)
        assert await core.stop() == 0, core.log_tail()
        verified = core.audit_verify()
    finally:
        await viewer.stop()
        if worker is not None and worker.proc is not None and worker.proc.poll() is None:
            orphans += await worker.kill()
        core.ensure_dead()

    assert not orphans, f"killed workers left vision processes running: {orphans}"
    camera = [c for _, c in entries if str(c.get("id", "")).startswith("cardcam-")]
    assert len({run_of(c["id"]) for c in camera}) >= 2, "too few worker runs posted anything to tell"
    assert entries and cursor == entries[-1][0], f"the core's inbox cursor {cursor} is not at the last entry"
    appends: dict[str, list[int]] = {}  # a command's events are one append: consecutive seqs
    for r in data.journal:
        if r.command_id:
            appends.setdefault(r.command_id, []).append(r.seq)
    twice = {c: seqs for c, seqs in appends.items() if seqs != list(range(seqs[0], seqs[0] + len(seqs)))}
    assert not twice, f"commands applied twice: {twice}"
    problems = check_cards_dealt_once(data) + check_no_gaps("public", viewer.messages, data) \
        + check_arrivals("public", viewer.messages, data)
    assert not problems, f"seed {SEED}:\n" + "\n".join(problems[:30])
    assert not [r.seq for r in data.journal if r.event["type"] == "CardMisread"], "a read landed at the wrong seat"
    camera_sets = [r for r in data.journal if r.event["type"] == "HoleCardsSet" and r.event.get("source") == "camera"]
    assert camera_sets, "no camera read reached the journal"
    assert verified[0] == 0, verified
    for name, text in (("core", core.log_text()), ("worker", worker.log_text())):
        assert "Traceback" not in text and "could not be ruled on" not in text, f"the {name} log:\n{text[-4000:]}"
