"""Frame ingest over HTTP and WebSocket against a real show: only the camera role may
push, bad input gets a clear answer (or is dropped and counted), and frames pushed by a
"capture PC" reach the worker and come back to the core as a confirmed read."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from concurrent.futures import ThreadPoolExecutor

import aiohttp
import pytest

from broadcast.web.ingest import MAX_FRAME_BYTES, jpeg_size
from cardcam import cameras as names
from tests.conftest import TOKENS, start_show

CAMERA = {"Authorization": f"Bearer {TOKENS['camera']}"}


def jpeg(width: int = 64, height: int = 48) -> bytes:
    import cv2
    import numpy as np

    image = np.full((height, width, 3), 90, np.uint8)
    return cv2.imencode(".jpg", image)[1].tobytes()


def zero_width(data: bytes) -> bytes:
    i = data.index(b"\xff\xc0")
    return data[:i + 7] + b"\x00\x00" + data[i + 9:]


@pytest.fixture
async def show(tmp_path):
    server, runner = await start_show(tmp_path)
    try:
        yield server
    finally:
        await runner.cleanup()
        await server.runtime.stop()


def url(show, camera: str = "cam-1") -> str:
    return f"{show.url}/api/v1/cardcam/{camera}/frames"


async def post(session, show, body: bytes, *, headers=None, camera="cam-1", ctype="image/jpeg"):
    h = {**(CAMERA if headers is None else headers)}
    if ctype:
        h["Content-Type"] = ctype
    async with session.post(url(show, camera), data=body, headers=h) as r:
        return r.status, await r.json()


async def counters(show, camera="cam-1") -> dict[str, int]:
    raw = await show.runtime.redis.hgetall(names.ingest_stats_key(camera))
    return {k.decode(): int(v) for k, v in raw.items()}


def test_jpeg_headers_are_checked_without_decoding():
    data = jpeg(64, 48)
    assert jpeg_size(data) == (64, 48)
    for bad, code in [(b"", "empty_frame"), (b"GIF89a....", "not_jpeg"), (data[: len(data) // 2], "truncated_jpeg"),
                      (b"\xff\xd8\x00\x00garbage\xff\xd9", "corrupt_jpeg"), (zero_width(data), "zero_size")]:
        with pytest.raises(Exception) as info:
            jpeg_size(bad)
        assert info.value.code == code


async def test_only_the_camera_role_may_push_and_a_token_in_the_url_is_no_token(show, caplog):
    caplog.set_level(logging.DEBUG)
    frame = jpeg()
    async with aiohttp.ClientSession() as s:
        assert (await post(s, show, frame, headers={}))[0] == 401
        assert (await post(s, show, frame, headers={"Authorization": "Bearer not-a-token-at-all-123"}))[0] == 401
        async with s.post(url(show) + f"?token={TOKENS['camera']}", data=frame,
                          headers={"Content-Type": "image/jpeg"}) as r:
            assert r.status == 401
        for role in ("dealer", "rep", "td", "graphics", "commentator", "secure", "viewer"):
            status, body = await post(s, show, frame, headers={"Authorization": f"Bearer {TOKENS[role]}"})
            assert (status, body["error"]) == (403, "forbidden"), role
        for role in ("dealer", "secure"):
            with pytest.raises(aiohttp.WSServerHandshakeError) as info:
                await s.ws_connect(show.url.replace("http", "ws") + "/ws/v1/cardcam/cam-1",
                                   headers={"Authorization": f"Bearer {TOKENS[role]}"})
            assert info.value.status == 403
        # The camera passes the gate; with no worker reading cam-1 the frame has nowhere to go.
        status, body = await post(s, show, frame)
        assert status == 503 and body["error"] == "no_worker"
        assert "no cardcam worker reads camera 'cam-1'" in body["message"]
    logged = " ".join(r.getMessage() for r in caplog.records)
    assert not any(token in logged for token in TOKENS.values())


async def test_bad_frames_get_a_clear_answer_and_are_counted(show):
    redis = show.runtime.redis
    await redis.set(names.alive_key("cam-1"), "1", px=60_000)  # as a worker reading cam-1 would
    frame = jpeg()
    async with aiohttp.ClientSession() as s:
        status, body = await post(s, show, frame)
        assert status == 202 and body["accepted"] is True and body["camera"] == "cam-1"
        entries = await redis.xrange(names.frames_key("cam-1"))
        assert entries[-1][1][b"jpeg"] == frame and entries[-1][1][b"w"] == b"64"

        cases = [
            (frame, "text/plain", 415, "wrong_content_type"),
            (b"", "image/jpeg", 400, "empty_frame"),
            (frame[: len(frame) // 2], "image/jpeg", 400, "truncated_jpeg"),
            (b"<html>not a picture</html>", "image/jpeg", 400, "not_jpeg"),
            (zero_width(frame), "image/jpeg", 400, "zero_size"),
            (b"\xff\xd8" + b"\x00" * (MAX_FRAME_BYTES + 10) + b"\xff\xd9", "image/jpeg", 413, "frame_too_large"),
        ]
        for body_bytes, ctype, want, code in cases:
            status, body = await post(s, show, body_bytes, ctype=ctype)
            assert (status, body["error"]) == (want, code), (code, body)
            assert body["message"] and "Traceback" not in body["message"]
        status, body = await post(s, show, frame, camera="no spaces allowed")
        assert status == 404

        # A flood: past the burst, frames beyond max_fps are refused (429) and counted.
        results = [await post(s, show, frame) for _ in range(40)]
    statuses = [r[0] for r in results]
    assert statuses.count(429) >= 10 and statuses.count(202) >= 5
    assert "frames a second" in next(r[1]["message"] for r in results if r[0] == 429)
    stats = await counters(show)
    assert stats["received"] == 1 + statuses.count(202)
    assert stats["dropped_rate"] == statuses.count(429)
    for code in ("content_type", "empty_frame", "truncated_jpeg", "not_jpeg", "zero_size", "too_large"):
        assert stats[f"rejected_{code}"] == 1, code
    # Only the newest frames are kept for the worker.
    assert await redis.xlen(names.frames_key("cam-1")) <= 4


async def test_websocket_frames_errors_and_limits(show):
    redis = show.runtime.redis
    await redis.set(names.alive_key("cam-ws"), "1", px=60_000)
    frame = jpeg()
    async with aiohttp.ClientSession() as s:
        ws = await s.ws_connect(show.url.replace("http", "ws") + "/ws/v1/cardcam/cam-ws", headers=CAMERA)
        await ws.send_bytes(frame)
        await ws.send_str("hello")
        msg = json.loads((await ws.receive(timeout=5)).data)
        assert msg["error"] == "not_a_frame"
        await ws.send_bytes(b"\xff\xd8 broken")
        msg = json.loads((await ws.receive(timeout=5)).data)
        assert msg["error"] == "truncated_jpeg"
        for _ in range(40):  # a flood: dropped, counted, and said once a second
            await ws.send_bytes(frame)
        msg = json.loads((await ws.receive(timeout=5)).data)
        assert msg["dropped"] >= 1 and "frames a second" in msg["message"]
        await ws.send_bytes(b"\xff\xd8" + b"\x00" * (MAX_FRAME_BYTES + 1))
        closing = await ws.receive(timeout=5)
        assert closing.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.CLOSING)
        assert ws.close_code == 1009  # message too big
        await ws.close()
    stats = await counters(show, "cam-ws")
    assert stats["received"] >= 2 and stats["dropped_rate"] >= 1 and stats["rejected_text"] == 1


async def test_frames_pushed_over_a_websocket_come_back_as_a_confirmed_read(show):
    from cardcam.cameras import read_cardcam
    from cardcam.worker import Worker
    from tests.cardcam.conftest import have_decks
    from tests.cardcam.test_worker import Running, card_words, hand_jpegs, hole, until

    if not have_decks():
        pytest.skip("needs gnome-cards-data and librsvg2-bin")
    core = show.core
    await core.submit({"type": "start_hand", "button": 1})
    truth = ("Th", "6d")
    frames = hand_jpegs(truth)
    settings = read_cardcam({"cameras": [{"id": "rail-2", "source": "push", "seat": 2}]}, show.runtime.show.tables)
    worker = Worker(show.runtime.redis, show.runtime.show, settings, pool=ThreadPoolExecutor(1))
    replies: list[str] = []
    async with Running(worker), aiohttp.ClientSession() as s:
        await until(lambda: show.runtime.redis.exists(names.alive_key("rail-2")))
        ws = await s.ws_connect(show.url.replace("http", "ws") + "/ws/v1/cardcam/rail-2", headers=CAMERA)

        async def listen():
            async for msg in ws:
                replies.append(msg.data)

        listener = asyncio.get_running_loop().create_task(listen())
        try:
            started = time.monotonic()
            i = 0
            while "??" in hole(core, 2):
                assert time.monotonic() - started < 20, "no confirmed read from pushed frames"
                await ws.send_bytes(frames[i % len(frames)])
                i += 1
                await asyncio.sleep(0.1)  # a capture PC at 10 fps
        finally:
            await ws.close()
            listener.cancel()
    assert set(hole(core, 2)) == set(truth)
    # The camera role reads nothing back: no answer on its socket names a card.
    assert not card_words(*truth).search(" ".join(replies))
