"""Feeds: snapshot then updates, resume without a gap, a slow client is dropped
without stalling the others, and the inbox path for other processes."""

import asyncio
import json

import aiohttp

from broadcast.store import keys
from tests.conftest import TOKENS

DEALER = {"Authorization": f"Bearer {TOKENS['dealer']}"}


async def test_a_slow_client_is_dropped_and_the_others_keep_up(show_server):
    hub, table = show_server.runtime.hub, show_server.table
    payload = "x" * 30_000
    async with aiohttp.ClientSession() as s:
        slow = await s.ws_connect(show_server.ws_url("live"), headers=DEALER, max_msg_size=0)
        fast = await s.ws_connect(show_server.ws_url("live"), headers=DEALER, max_msg_size=0)
        await fast.receive(timeout=5)  # snapshot
        got = 0

        async def read_fast():
            nonlocal got
            while got < 2000:
                msg = await fast.receive(timeout=10)
                assert msg.type == aiohttp.WSMsgType.TEXT
                got += 1

        reader = asyncio.create_task(read_fast())
        for i in range(2000):
            hub.publish("live", table, json.dumps({"n": i, "pad": payload}))
            await asyncio.sleep(0.002)  # a busy show's pace; the healthy client keeps up with it
        await asyncio.wait_for(reader, 30)
        assert got == 2000
        # The slow client (it never read) was disconnected with "try again later".
        closed = None
        for _ in range(3000):
            msg = await slow.receive(timeout=10)
            if msg.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.CLOSING):
                closed = msg
                break
        assert closed is not None and slow.close_code == 1013
        await fast.close()


async def test_resume_with_after_sends_every_message_since(show_server):
    async with aiohttp.ClientSession() as s:
        for command in ({"type": "start_hand", "button": 1}, {"type": "call", "seat": 4}, {"type": "call", "seat": 1}):
            async with s.post(f"{show_server.url}/api/v1/tables/{show_server.table}/commands", json=command, headers=DEALER) as r:
                assert r.status == 200
        redis = show_server.runtime.redis
        for _ in range(300):
            if await redis.xlen(keys.public(show_server.table)) >= 4:
                break
            await asyncio.sleep(0.02)
        async with s.ws_connect(show_server.ws_url("public", after=2)) as ws:
            seqs = [json.loads((await ws.receive(timeout=5)).data)["seq"] for _ in range(2)]
    assert seqs == [3, 4]


async def test_other_processes_post_commands_to_the_inbox(show_server):
    redis = show_server.runtime.redis
    command = {"type": "start_hand", "button": 2, "id": "from-inbox-1"}
    await redis.xadd(keys.inbox(show_server.table), {"c": json.dumps(command), "person": "camera pc 1"})
    await redis.xadd(keys.inbox(show_server.table), {"c": json.dumps(command), "person": "camera pc 1"})  # a retry
    for _ in range(200):
        if show_server.core.state.hand_no:
            break
        await asyncio.sleep(0.02)
    await asyncio.sleep(0.2)
    assert show_server.core.state.hand_no == 1 and show_server.core.state.button == 2
    assert show_server.core.state.seq == 2  # the retry added nothing
