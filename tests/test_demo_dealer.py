"""The demo dealer (``tvtable demo``) plays on until stopped: when one player is left with
chips, the others re-enter with their starting stacks (seated by the TD under the re-entry
rules) and a new demo tournament is dealt."""

from __future__ import annotations

import asyncio

from broadcast.demo import DemoDealer
from broadcast.store.journal import read_all
from tests.conftest import start_show


async def test_the_demo_plays_on_when_one_player_is_left(tmp_path):
    server, runner = await start_show(tmp_path)
    core = server.core
    try:
        winner, *others = core.config.seats
        for seat in others:  # as if they had busted: one player is left at the table
            await core.submit({"type": "remove_player", "player": seat.player.id, "reason": "busted"},
                              person="td", role="td")
        assert sum(1 for s in core.state.seats if s.stack > 0) == 1
        dealer = DemoDealer(core, seed=11, pace=0.05)
        task = asyncio.get_running_loop().create_task(dealer.run())
        try:
            for _ in range(100):
                if task.done() or core.state.in_hand:
                    break
                await asyncio.sleep(0.1)
            assert not task.done(), "the demo dealer stopped instead of playing on"
            assert core.state.in_hand, "no new hand was dealt"
        finally:
            while not task.done():  # a task waiting on Redis can swallow one cancel (cardcam.demo_rig.stop)
                task.cancel()
                await asyncio.wait([task], timeout=1)
        journal = [r.event for r in await read_all(core.redis, core.table)]
        back = [e for e in journal if e["type"] == "PlayerSeated" and e["reason"] == "re_entry"]
        assert {e["player"]: e["stack"] for e in back} == {s.player.id: s.player.chips for s in others}
        # The next hand deals everyone in (checked on the journal: the demo plays on meanwhile).
        dealt = next(e for e in journal[journal.index(back[-1]):] if e["type"] == "HandStarted")
        assert sorted(dealt["seats"]) == sorted(s.seat for s in core.config.seats)
    finally:
        await runner.cleanup()
        await server.runtime.stop()

