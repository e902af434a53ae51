"""``tvtable demo --script``: recorded hands rehearsed through the whole chain (core, journal,
releaser, feeds) reach the stacks the recording says they did."""

from __future__ import annotations

import asyncio
from pathlib import Path

from broadcast import phh
from broadcast.rehearsal import ScriptDealer, playable, rehearsal_show
from broadcast.settings import load_show
from broadcast.show import ShowRuntime

DATA = Path(__file__).resolve().parent / "data" / "phh"
ROOT = Path(__file__).resolve().parent.parent

SCRIPT = ["wsop-2023-43-5-hand-01.phh", "pluribus-100-0.phh", "wsop-2023-43-5-hand-02.phh"]


async def test_demo_script_plays_recorded_hands_through_the_core_to_their_finishing_stacks(tmp_path):
    hands = playable(h for name in SCRIPT for h in phh.load(DATA / name))
    assert len(hands) == 3
    show = rehearsal_show(load_show(ROOT / "config" / "demo.toml"), hands)
    runtime = ShowRuntime(show, tmp_path / "var", environ={}, delay_override=0.2)
    await runtime.start()
    try:
        core = runtime.cores["rehearsal"]
        dealer = ScriptDealer(core, hands, pace=0)
        finishing = []

        async def watch(c):
            if c.state.hand is not None and c.state.hand.ended and len(finishing) < c.state.hand_no:
                finishing.append({s.seat: s.stack for s in c.state.seats if s.seat in c.state.hand.seats})

        core.listeners.append(lambda c: asyncio.get_running_loop().create_task(watch(c)))
        await asyncio.wait_for(dealer.run(), timeout=120)
        await asyncio.sleep(0.1)
        assert dealer.played == 3 and len(finishing) == 3
        for (hand, setup), stacks in zip(hands, finishing):
            want = phh.replay_hand(hand)["finishing_stacks"]
            assert [stacks[seat] for seat in setup.seats] == want, hand.name
        # The releaser carried the rehearsal to the public feed once the delay had passed.
        await asyncio.sleep(0.5)
        public = await runtime.backlog("public", "rehearsal", None)
        assert public, "nothing was released"
    finally:
        await runtime.stop()
