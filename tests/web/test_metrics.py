"""``/metrics`` against a real show: staff tokens only, the Prometheus text format,
every count the issue asks for, and never a hole card, even after real hole cards
were dealt, read by the camera and entered by the card room."""

from __future__ import annotations

import asyncio
import json
import re
import socket

import aiohttp

from broadcast.store import keys
from broadcast.web.feeds import QUEUE_SIZE
from tests.conftest import TOKENS

SAMPLE = re.compile(r'^([a-z_]+)(?:\{((?:[a-z_]+="(?:[^"\\]|\\.)*",?)*)\})? (-?[0-9.e+-]+|\+Inf|NaN)$')
ANY_CARD = re.compile(r"(?<![A-Za-z0-9])[2-9TJQKA][cdhs](?![A-Za-z0-9])")
HOLE = {1: ["As", "Kd"], 2: ["Qh", "Jc"], 3: ["Ts", "9d"], 4: ["8c", "7h"]}


def parse(text: str) -> dict[tuple[str, frozenset], float]:
    """Every sample as {(name, labels): value}; fails on a line that is not the text format."""
    out = {}
    for line in text.splitlines():
        if line.startswith("# HELP ") or line.startswith("# TYPE "):
            continue
        m = SAMPLE.match(line)
        assert m, f"not a Prometheus sample line: {line!r}"
        labels = frozenset(re.findall(r'([a-z_]+)="((?:[^"\\]|\\.)*)"', m.group(2) or ""))
        out[(m.group(1), labels)] = float(m.group(3))
    return out


def value(samples, name: str, **labels) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


async def post(s, show, command, role="dealer"):
    async with s.post(f"{show.url}/api/v1/tables/{show.table}/commands", json=command,
                      headers={"Authorization": f"Bearer {TOKENS[role]}"}) as r:
        return r.status, await r.json()


async def scrape(s, show, role="td"):
    async with s.get(f"{show.url}/metrics", headers={"Authorization": f"Bearer {TOKENS[role]}"}) as r:
        assert r.status == 200, await r.text()
        assert r.headers["Content-Type"].startswith("text/plain; version=0.0.4")
        return await r.text()


async def slow_client_dropped(show) -> None:
    """A real socket client that never reads: the server's send blocks, its queue fills,
    and the hub drops it."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", int(show.url.rsplit(":", 1)[1])))
    sock.setblocking(False)
    reader, writer = await asyncio.open_connection(sock=sock)
    writer.write((f"GET /ws/v1/public?table={show.table} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                  "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                  "Sec-WebSocket-Version: 13\r\n\r\n").encode())
    assert b" 101 " in await reader.readuntil(b"\r\n\r\n")
    hub = show.runtime.hub
    big = json.dumps({"pad": "x" * 200_000})
    try:
        for _ in range(QUEUE_SIZE * 8):
            hub.publish("public", show.table, big, "")
            await asyncio.sleep(0.001)  # let the pump send until the socket is full
            if hub.dropped.get(("public", show.table)):
                break
        assert hub.dropped.get(("public", show.table)) == 1
    finally:
        writer.close()


async def test_only_staff_tokens_read_metrics(show_server):
    async with aiohttp.ClientSession() as s:
        async with s.get(f"{show_server.url}/metrics") as r:
            assert r.status == 401 and "staff token" in (await r.json())["message"]
        async with s.get(f"{show_server.url}/metrics", headers={"Authorization": "Bearer not-a-token-xyz"}) as r:
            assert r.status == 401
        for role in ("viewer", "camera"):
            async with s.get(f"{show_server.url}/metrics", headers={"Authorization": f"Bearer {TOKENS[role]}"}) as r:
                assert r.status == 403, role
        for role in ("dealer", "rep", "td", "graphics", "commentator", "secure"):
            await scrape(s, show_server, role)


async def test_metrics_count_everything_asked_and_never_show_a_hole_card(show_server):
    show, redis = show_server, show_server.runtime.redis
    async with aiohttp.ClientSession() as s:
        async with s.ws_connect(show.ws_url("public")) as ws:
            await ws.receive(timeout=5)
            assert (await post(s, show, {"type": "start_hand", "button": 1, "id": "m-1"}))[0] == 200
            assert (await post(s, show, {"type": "start_hand", "button": 1, "id": "m-1"}))[1]["duplicate"] is True
            for seat, cards in HOLE.items():  # the card room enters every seat's cards
                assert (await post(s, show, {"type": "hole_cards", "seat": seat, "cards": cards}, "secure"))[0] == 200
            actor = show.core.state.hand.actor
            assert (await post(s, show, {"type": "raise", "seat": actor, "amount": 300}))[0] == 422
            assert (await post(s, show, {"type": "As", "seat": 1}))[0] == 422  # a card as a type counts as "other"
            assert (await post(s, show, {"type": "fold", "seat": actor}, "viewer"))[0] == 403
            early = parse(await scrape(s, show))
            # The camera's reads, as the worker writes them: seat 1 fully read, seat 2 half.
            for seat, cards, shown in ((1, HOLE[1], True), (2, [HOLE[2][0], "??"], True), (3, ["??", "??"], False)):
                await redis.hset(keys.seats_key(show.table), str(seat), json.dumps(
                    {"seat": seat, "camera": "cam-1", "light": "all", "shown": shown, "cards": cards,
                     "confidence": [0.99, 0.4], "frame": {"cards": cards}}))
            async with s.post(f"{show.url}/api/v1/cardcam/cam-m/frames", data=b"not a jpeg",
                              headers={"Authorization": f"Bearer {TOKENS['camera']}", "Content-Type": "image/jpeg"}) as r:
                assert r.status == 400
            assert value(early, "tvtable_delay_queue_depth", table=show.table) >= 1  # within D of the last command
            await asyncio.sleep(2.0)  # D = 1 s: everything goes out
        await slow_client_dropped(show)  # alone on the feed, so only it is dropped
        text = await scrape(s, show)

    samples = parse(text)
    t = show.table
    assert value(samples, "tvtable_commands_total", table=t, type="start_hand", outcome="accepted") == 1
    assert value(samples, "tvtable_commands_total", table=t, type="start_hand", outcome="duplicate") == 1
    assert value(samples, "tvtable_commands_total", table=t, type="hole_cards", outcome="accepted") == 4
    assert value(samples, "tvtable_commands_total", table=t, type="raise", outcome="refused") == 1
    assert value(samples, "tvtable_commands_total", table=t, type="other", outcome="refused") == 1
    assert value(samples, "tvtable_commands_total", table=t, type="fold", outcome="denied") == 1
    assert value(samples, "tvtable_delay_queue_depth", table=t) == 0
    assert value(samples, "tvtable_appends_restamped_total", table=t) == show.core.restamped
    count = value(samples, "tvtable_release_lateness_seconds_count", table=t)
    assert count >= 1
    assert value(samples, "tvtable_release_lateness_seconds_bucket", table=t, le="+Inf") == count
    buckets = sorted((float(dict(k[1])["le"]), v) for k, v in samples.items()
                     if k[0] == "tvtable_release_lateness_seconds_bucket" and dict(k[1]).get("table") == t
                     and dict(k[1])["le"] != "+Inf")
    assert all(a[1] <= b[1] for a, b in zip(buckets, buckets[1:])), "histogram buckets must be cumulative"
    assert value(samples, "tvtable_release_lateness_seconds_sum", table=t) >= 0

    assert value(samples, "tvtable_cardcam_seat_shown", table=t, seat="1") == 1
    assert value(samples, "tvtable_cardcam_cards_read", table=t, seat="1") == 2
    assert value(samples, "tvtable_cardcam_cards_read", table=t, seat="2") == 1
    assert value(samples, "tvtable_cardcam_cards_unsure", table=t, seat="2") == 1
    assert value(samples, "tvtable_cardcam_cards_unsure", table=t, seat="3") == 0  # not shown: nothing to be unsure of
    assert value(samples, "tvtable_cardcam_frames_total", camera="cam-m", outcome="rejected_not_jpeg") == 1

    assert value(samples, "tvtable_socket_clients", feed="public", table=t) == 0  # the socket above has closed
    assert value(early, "tvtable_socket_clients", feed="public", table=t) == 1  # while it was open
    assert value(samples, "tvtable_socket_clients_dropped_total", feed="public", table=t) == 1
    assert 0 < value(samples, "tvtable_redis_roundtrip_seconds") < 1

    # The crown jewel: real hole cards were dealt, entered and read, and none is in any metric.
    assert show.core.view("secure")["seats"][0]["hole_cards"] == HOLE[1]
    assert not ANY_CARD.findall(text), ANY_CARD.findall(text)
    assert "??" not in text
