"""End to end through HTTP and sockets: a command is acknowledged, shown live, and
released on the public feed only after its delay."""

import json
import time

import aiohttp

from tests.conftest import TOKENS


async def post(session, server, command, token=TOKENS["dealer"]):
    async with session.post(
        f"{server.url}/api/v1/tables/{server.table}/commands", json=command, headers={"Authorization": f"Bearer {token}"}
    ) as r:
        return r.status, await r.json()


async def test_a_command_goes_live_at_once_and_public_after_the_delay(show_server):
    async with aiohttp.ClientSession() as s:
        status, body = await post(s, show_server, {"type": "start_hand", "button": 1, "id": "c1"})
        assert status == 200 and body["seqs"] == [2]
        async with s.get(f"{show_server.url}/api/v1/tables/{show_server.table}/state?view=live", headers={"Authorization": f"Bearer {TOKENS['dealer']}"}) as r:
            live = await r.json()
        assert live["hand"] == 1 and live["seq"] == 2
        started = time.monotonic()
        async with s.ws_connect(show_server.ws_url("public")) as ws:
            while True:
                msg = json.loads((await ws.receive(timeout=5)).data)
                if msg.get("hand") == 1:
                    break
        assert time.monotonic() - started >= 0.5  # released after the 1 s delay, not at once
        assert msg["ts"] + 1000 <= int(time.time() * 1000) + 50


async def test_a_retried_command_is_applied_once(show_server):
    async with aiohttp.ClientSession() as s:
        first = await post(s, show_server, {"type": "start_hand", "id": "same"})
        again = await post(s, show_server, {"type": "start_hand", "id": "same"})
    assert first[0] == again[0] == 200
    assert again[1]["duplicate"] is True and again[1]["seqs"] == first[1]["seqs"]
    assert show_server.core.state.hand_no == 1


async def test_an_illegal_raise_is_refused_with_the_legal_range(show_server):
    async with aiohttp.ClientSession() as s:
        await post(s, show_server, {"type": "start_hand", "button": 1})
        actor = show_server.core.state.hand.actor
        status, body = await post(s, show_server, {"type": "raise", "seat": actor, "amount": 300})
    assert status == 422
    assert body["field"] == "amount"
    assert body["message"] == f"seat {actor} cannot raise to 300: minimum raise is to 400"


async def test_bad_json_names_the_problem(show_server):
    async with aiohttp.ClientSession() as s:
        async with s.post(f"{show_server.url}/api/v1/tables/{show_server.table}/commands", data="{nope",
                          headers={"Authorization": f"Bearer {TOKENS['dealer']}", "Content-Type": "application/json"}) as r:
            assert r.status == 400
            body = await r.json()
    assert body["field"] == "body" and "JSON" in body["message"]
