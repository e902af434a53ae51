"""Crash: SIGKILL ``tvtable demo`` mid-show at seeded random moments, restart it with
``--resume``, and check what the journal and the feeds went through.

While the show runs, a recorder follows the public feed (open), one the commentary
feed and one the live feed (dealer token), each across the restarts, and a second
dealer plays over HTTP with client-chosen command ids (so we know exactly which
commands were acknowledged; one whose answer was lost is retried with the same id).
Afterwards:

* ``tvtable audit verify`` passes;
* every acknowledged command is in the journal at the seqs it was given, none twice,
  and every view the live feed showed replays exactly from the journal;
* nothing on public/commentary was published (Redis time) or received (local clock,
  same machine) before ``ts + D``, or before ``release_{n-1}``;
* no seq was published twice, except a hole-card reveal;
* no hole card went out before its hand ended live (``HandEnded`` in the journal);
* an action undone within D never aired.

``TVTABLE_CRASH_SEED`` picks another set of kill moments.
"""

from __future__ import annotations

import asyncio
import os
import random
import time

import pytest

from broadcast.store.journal import LATE_MS, read_all
from tests.conftest import start_show
from tests.showproc import (
    DemoProc,
    FeedRecorder,
    HttpDealer,
    check_acknowledged,
    check_arrivals,
    check_card_format,
    check_cards_dealt_once,
    check_live_matches_journal,
    check_live_messages,
    check_stream,
    check_undos,
    tear_down,
    wind_down,
)

SEED = int(os.environ.get("TVTABLE_CRASH_SEED", "20261202"))
DELAY = 2.0
KILLS = 4


@pytest.mark.slow
async def test_sigkill_and_resume_lose_nothing_and_release_nothing_early(tmp_path):
    rng = random.Random(SEED)
    proc = DemoProc(tmp_path / "show", delay=DELAY)
    recorders: list[FeedRecorder] = []
    dealer = None
    try:
        proc.start()
        await proc.wait_ready()
        tokens = proc.tokens()
        public = FeedRecorder(proc.ws, "public")
        commentary = FeedRecorder(proc.ws, "commentary", {"Authorization": f"Bearer {tokens['commentator']}"})
        live = FeedRecorder(proc.ws, "live", {"Authorization": f"Bearer {tokens['dealer']}"})
        recorders = [public, commentary, live]
        for r in recorders:
            r.start()
        dealer = HttpDealer(proc, tokens["dealer"], random.Random(rng.random()))
        dealer.start()

        kills = []
        for _ in range(KILLS):
            await asyncio.sleep(rng.uniform(2.5, 7.0))
            await proc.kill()
            kills.append(len(dealer.sent))
            await asyncio.sleep(rng.uniform(0.0, 0.8))  # down for a moment: clients retry
            proc.start(resume=True)
            await proc.wait_ready()
        await asyncio.sleep(DELAY + 4.0)  # let overdue data go out and the play go on

        data = await wind_down(proc, dealer, recorders, DELAY)
    finally:
        await tear_down(proc, dealer, recorders)

    code, report = proc.audit_verify()
    assert code == 0 and report["ok"], report

    # The trial really exercised something.
    assert dealer.error is None, dealer.error
    assert len(data.journal) > 40, proc.log_tail()
    assert len(dealer.acknowledged) > 20
    assert public.connects >= KILLS + 1 and live.connects >= KILLS + 1
    assert any(r.event["type"] == "HandEnded" for r in data.journal), "no hand ended: the trial showed no reveal"
    undo_problems, undos_within_d = check_undos(data.public, data)
    assert undos_within_d > 0, "no undo within D happened: raise the HttpDealer's undo rate"

    reveals = sum(1 for a, b in zip(data.public, data.public[1:]) if a.seq == b.seq)
    print(f"seed {SEED}: {len(data.journal)} journal events, {len(dealer.sent)} test commands "
          f"({len(dealer.acknowledged)} acknowledged, {sum(s.tries > 1 for s in dealer.sent)} retried), "
          f"{len(data.public)} public entries ({reveals} reveals), {len(public.messages)} public / "
          f"{len(live.messages)} live messages received, {undos_within_d} undos within D, "
          f"hands ended {sum(r.event['type'] == 'HandEnded' for r in data.journal)}, kills after commands {kills}, dealer idle {dealer.idle}")

    problems = []
    problems += check_acknowledged(dealer, data)
    problems += check_live_messages(live.messages)
    problems += check_live_matches_journal(live.messages, data)
    problems += check_stream("public", data.public, data)
    problems += check_stream("commentary", data.commentary, data)
    problems += check_arrivals("public", public.messages, data)
    problems += check_arrivals("commentary", commentary.messages, data)
    problems += undo_problems
    problems += check_undos(data.commentary, data)[0]
    for name, rec in (("public", public), ("commentary", commentary), ("live", live)):
        problems += check_card_format(name, [m for _, m in rec.messages])
    problems += check_cards_dealt_once(data)
    assert not problems, f"seed {SEED}, {len(problems)} problems:\n" + "\n".join(problems[:40])


async def test_a_command_cancelled_while_it_is_appended_leaves_the_core_in_step_with_its_journal(tmp_path):
    """A caller can be cancelled while the core waits for the journal's answer (a dealer
    task stopped, a request abandoned): the append may have landed. The next command must
    rule on the journal as it is, not on a state that missed that record."""
    server, runner = await start_show(tmp_path)
    core = server.core
    try:
        cancelled = 0
        for i in range(150):
            task = asyncio.get_running_loop().create_task(
                core.submit({"type": "set_level", "level": 1 + i % 2}, person="td", role="td"))
            await asyncio.sleep(0.0005 * (i % 7))  # at different points of the round trip
            cancelled += task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        assert cancelled, "no command was cancelled mid-way"
        await core.submit({"type": "set_level", "level": 1 if core.state.level == 2 else 2}, person="td", role="td")
        journal = await read_all(core.redis, core.table)
        assert core.state.seq == journal[-1].seq == core.journal.seq
        levels = [r.event["level"] for r in journal if r.event["type"] == "LevelChanged"]
        assert levels[-1] == core.state.level
    finally:
        await runner.cleanup()
        await server.runtime.stop()


async def test_a_core_that_stalls_between_its_stamp_and_the_journal_stamps_again(tmp_path):
    """A busy machine can stall the core after it read Redis TIME and before its append
    reaches Redis. A record stamped then would air less than D after it was recorded, and an
    undo stamped before its target's release could land after it. The journal refuses such
    an append and the core stamps and rules again: every record lands within LATE_MS of its ts."""
    server, runner = await start_show(tmp_path)
    core = server.core
    try:
        real, stalls = core._rule_on_table, []

        def stalling(*args, **kwargs):
            if not stalls:
                stalls.append(kwargs["ts"])
                time.sleep((LATE_MS + 300) / 1000)  # blocks the event loop, as a CPU burst does
            return real(*args, **kwargs)

        core._rule_on_table = stalling
        done = await core.submit({"type": "set_level", "level": 2}, person="td", role="td")
        record = next(r for r in await read_all(core.redis, core.table) if r.seq == done.seqs[-1])
        assert stalls, "the stall never happened"
        assert record.ts >= stalls[0] + LATE_MS + 300, "the record kept the stamp taken before the stall"
        assert core.state.seq == record.seq == core.journal.seq
        assert core.restamped == 1  # counted for /metrics
    finally:
        await runner.cleanup()
        await server.runtime.stop()
