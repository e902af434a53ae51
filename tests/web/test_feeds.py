"""Feeds: snapshot then updates, resume without a gap, a slow client is dropped
without stalling the others, and the inbox path for other processes."""

import asyncio
import json
import socket

import aiohttp

from broadcast.store import keys
from tests.conftest import TOKENS

DEALER = {"Authorization": f"Bearer {TOKENS['dealer']}"}


async def stalled_viewer(show) -> asyncio.StreamWriter:
    """A public-feed viewer with a tiny receive window that, once upgraded, never reads."""
    raw = socket.create_connection(("127.0.0.1", int(show.url.rsplit(":", 1)[1])))
    raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    raw.setblocking(False)
    reader, writer = await asyncio.open_connection(sock=raw)
    upgrade = [f"GET /ws/v1/public?table={show.table} HTTP/1.1", "Host: 127.0.0.1", "Upgrade: websocket",
               "Connection: Upgrade", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version: 13"]
    writer.write(("\r\n".join(upgrade) + "\r\n\r\n").encode())
    assert b" 101 " in await reader.readuntil(b"\r\n\r\n")
    return writer


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


async def test_the_public_feed_reconnects_after_a_redis_restart_without_a_gap(tmp_path, caplog):
    """An overlay server's reader survives its Redis restarting: connected viewers get every
    message released meanwhile, in order, and ``?after=`` still resumes without a gap."""
    import logging

    from broadcast.settings import parse_show
    from broadcast.show import ShowRuntime
    from broadcast.store.embedded import EmbeddedRedis
    from tests.conftest import show_toml
    from tests.serving import serve, shut

    caplog.set_level(logging.INFO, logger="tvtable.show")
    server = EmbeddedRedis(tmp_path / "r")
    url = await asyncio.to_thread(server.start)
    table = "tv"
    runtime = ShowRuntime(parse_show(show_toml(table, redis_url=url)), tmp_path / "ov", environ={}, services={"overlay"})
    base, runner = await serve(runtime)
    writer = None

    async def release(seq: int) -> None:  # what the core's releaser does when a message comes due
        await writer.xadd(keys.public(table), {"m": json.dumps({"seq": seq, "ts": seq}), "seq": seq})

    try:
        import redis.asyncio as aioredis

        writer = aioredis.from_url(url)
        await release(1)
        ws_url = base.replace("http", "ws", 1) + f"/ws/v1/public?table={table}"
        async with aiohttp.ClientSession() as s, s.ws_connect(ws_url) as ws:
            assert json.loads((await ws.receive(timeout=5)).data)["seq"] == 1  # the snapshot
            await release(2)
            assert json.loads((await ws.receive(timeout=5)).data)["seq"] == 2
            await writer.aclose()
            await asyncio.to_thread(server.stop)
            await asyncio.sleep(1.0)  # the reader fails and backs off
            server = EmbeddedRedis(tmp_path / "r")
            assert await asyncio.to_thread(server.start) == url
            writer = aioredis.from_url(url)
            for seq in (3, 4, 5):  # released while the reader may still be waiting to retry
                await release(seq)
            got = [json.loads((await ws.receive(timeout=15)).data)["seq"] for _ in range(3)]
            assert got == [3, 4, 5]
            async with s.ws_connect(ws_url + "&after=2") as again:
                assert [json.loads((await again.receive(timeout=5)).data)["seq"] for _ in range(3)] == [3, 4, 5]
        text = caplog.text
        assert "public feed, table tv: Redis unavailable" in text and "trying again in" in text
        assert "public feed, table tv: Redis is back" in text
    finally:
        if writer is not None:
            await writer.aclose()
        await shut(runtime, runner)
        await asyncio.to_thread(server.stop)


async def test_a_viewer_behind_by_seconds_is_dropped_while_the_others_get_each_message_at_once(show_server, monkeypatch):
    """Time, not a message count, decides: a viewer that stops reading is dropped once its
    oldest unsent message is SLOW_AFTER_S old, long before its buffer reaches the byte cap,
    and a reading viewer gets every message within a few milliseconds meanwhile."""
    import time

    from broadcast.web import feeds

    monkeypatch.setattr(feeds, "SLOW_AFTER_S", 0.5)
    hub, table = show_server.runtime.hub, show_server.table
    writer = await stalled_viewer(show_server)
    published, late = 0, []
    try:
        async with aiohttp.ClientSession() as s, s.ws_connect(show_server.ws_url("public")) as fast:
            for _ in range(100):
                if hub.count("public", table) == 2 and all(c.live for c in hub.clients[("public", table)]):
                    break
                await asyncio.sleep(0.02)
            start = time.monotonic()
            n = 0
            while not hub.dropped.get(("public", table)) and time.monotonic() - start < 20:
                text = json.dumps({"seq": n, "sent": time.monotonic(), "pad": "x" * 8000})
                hub.publish("public", table, text, "")
                published += len(text)
                got = json.loads((await fast.receive(timeout=5)).data)
                while "sent" not in got:  # the show's own messages come through too
                    got = json.loads((await fast.receive(timeout=5)).data)
                assert got["seq"] == n
                late.append(time.monotonic() - got["sent"])
                n += 1
                await asyncio.sleep(0.01)
            took = time.monotonic() - start
        assert hub.dropped.get(("public", table)) == 1
        assert published < feeds.MAX_BEHIND_BYTES  # dropped for time, not for the byte cap
        assert 0.5 <= took < 3  # a queue of 256 messages would have taken over 3 s to fill
        assert hub.count("public", table) == 0
        assert sorted(late)[int(len(late) * 0.99)] < 0.5  # the reader never waited for the slow one
    finally:
        writer.close()
