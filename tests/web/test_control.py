"""The graphics control channel over HTTP and WebSocket, on a real Redis: commands from
the graphics role only, audited with the person, applied at once (not delayed), bad
commands refused with a 400 naming the field, open pages tracked, and the polling
endpoints for vMix, Ross and Viz."""

from __future__ import annotations

import asyncio
import json
import re
import time
import xml.etree.ElementTree as ET

import aiohttp
import pytest

from broadcast.store import keys
from tests.conftest import TOKENS

GRAPHICS = {"Authorization": f"Bearer {TOKENS['graphics']}"}
DEALER = {"Authorization": f"Bearer {TOKENS['dealer']}"}
HOLE = {1: ["Qc", "Qd"], 2: ["As", "Kd"], 3: ["7h", "7s"], 4: ["Jc", "Tc"]}


def api(server, path: str) -> str:
    return f"{server.url}/api/v1/tables/{server.table}/{path}"


async def post(s, server, body, headers=GRAPHICS):
    async with s.post(api(server, "graphics"), data=body if isinstance(body, (str, bytes)) else json.dumps(body),
                      headers=headers) as r:
        return r.status, await r.json()


async def test_a_control_change_reaches_the_socket_at_once_though_the_delay_is_longer(tmp_path):
    from tests.browser.conftest import stop_show
    from tests.conftest import start_show

    server, runner = await start_show(tmp_path, delay=30)  # thirty seconds of delay on the data
    try:
        async with aiohttp.ClientSession() as s, s.ws_connect(server.ws_url("control")) as ws:
            snapshot = json.loads((await ws.receive(timeout=5)).data)
            assert snapshot["type"] == "control" and snapshot["rev"] == 0 and snapshot["hide_all"] is False
            for key in ("seq", "ts", "hand", "hand_complete"):
                assert key in snapshot
            sent = time.monotonic()
            status, body = await post(s, server, {"type": "hide_all"})
            assert status == 200 and body["rev"] == 1
            change = json.loads((await ws.receive(timeout=5)).data)
            assert change["hide_all"] is True and change["rev"] == 1 and change["by"] == "Graphics Person"
            assert time.monotonic() - sent < 2  # live: nowhere near the 30 s delay
    finally:
        await stop_show(server, runner)


async def test_only_the_graphics_role_may_send_controls(show_server):
    async with aiohttp.ClientSession() as s:
        assert (await post(s, show_server, {"type": "hide_all"}, headers={}))[0] == 401
        assert (await post(s, show_server, {"type": "hide_all"}, headers={"Authorization": "Bearer nope"}))[0] == 401
        for role in ("dealer", "rep", "td", "commentator", "secure", "viewer"):
            status, body = await post(s, show_server, {"type": "hide_all"}, headers={"Authorization": f"Bearer {TOKENS[role]}"})
            assert status == 403 and body["error"] == "forbidden", role
        async with s.get(api(show_server, "graphics"), headers=DEALER) as r:
            assert r.status == 403


@pytest.mark.parametrize("body, field", [
    ("{not json", "body"),
    ("[1]", "body"),
    ({"type": "fly"}, "type"),
    ({"type": "show", "element": "confetti"}, "element"),
    ({"type": "hide_cards", "seat": 0}, "seat"),
    ({"type": "lower_third", "player": "p-nobody"}, "player"),
    ({"type": "trim", "seconds": -3}, "seconds"),
    ({"type": "slate", "slate": "dinner"}, "slate"),
])
async def test_bad_control_commands_get_a_400_naming_the_field(show_server, body, field):
    async with aiohttp.ClientSession() as s:
        status, answer = await post(s, show_server, body)
    assert status == 400
    assert answer["field"] == field and answer["error"] == "bad_control" and answer["message"]


async def test_every_control_command_is_audited_with_the_person(show_server):
    async with aiohttp.ClientSession() as s:
        assert (await post(s, show_server, {"type": "hide_cards", "seat": 2}))[0] == 200
        assert (await post(s, show_server, {"type": "lower_third", "player": "p-bo", "text": "Macau regular"}))[0] == 200
    entries = [json.loads(f[b"a"]) for _, f in await show_server.runtime.redis.xrange(keys.audit())]
    mine = [e for e in entries if e["table"] == show_server.table and e["action"].startswith("graphics")]
    assert [(e["person"], e["action"], e["detail"]) for e in mine] == [
        ("Graphics Person", "graphics", "hide_cards seat=2"),
        ("Graphics Person", "graphics", "lower_third player=p-bo"),
    ]


async def test_two_desks_at_once_never_lose_a_change(show_server):
    async with aiohttp.ClientSession() as s:
        results = await asyncio.gather(*(post(s, show_server, {"type": "refresh", "page": f"p{i}"}) for i in range(12)))
        assert all(status == 200 for status, _ in results)
        async with s.get(api(show_server, "graphics"), headers=GRAPHICS) as r:
            state = (await r.json())["control"]
    assert state["rev"] == 12 and sorted(state["refresh"]) == sorted(f"p{i}" for i in range(12))


async def test_open_pages_announce_themselves_and_leave(show_server):
    async with aiohttp.ClientSession() as s:
        ws = await s.ws_connect(show_server.ws_url("control"))
        await ws.receive(timeout=5)
        await ws.send_str(json.dumps({"type": "hello", "id": "obs-1", "page": "table", "url": "/overlay/table"}))
        pages = []
        for _ in range(100):
            async with s.get(api(show_server, "graphics"), headers=GRAPHICS) as r:
                pages = (await r.json())["pages"]
            if pages:
                break
            await asyncio.sleep(0.05)
        assert [(p["id"], p["page"], p["url"]) for p in pages] == [("obs-1", "table", "/overlay/table")]
        await ws.close()
        for _ in range(100):
            async with s.get(api(show_server, "graphics"), headers=GRAPHICS) as r:
                pages = (await r.json())["pages"]
            if not pages:
                break
            await asyncio.sleep(0.05)
        assert pages == []


async def _play_to_flop(s, server):
    async def send(command, headers=DEALER):
        async with s.post(api(server, "commands"), json=command, headers=headers) as r:
            assert r.status == 200, (command, await r.text())

    await send({"type": "start_hand", "button": 1})
    for seat, cards in HOLE.items():
        await send({"type": "hole_cards", "seat": seat, "cards": cards}, {"Authorization": f"Bearer {TOKENS['secure']}"})
    for seat in (4, 1, 2):
        await send({"type": "call", "seat": seat})
    await send({"type": "check", "seat": 3})
    await send({"type": "board", "cards": ["2c", "8d", "9h"]})


async def test_polling_endpoints_are_open_delayed_and_never_show_a_live_hole_card(show_server):
    async with aiohttp.ClientSession() as s:
        async with s.get(api(show_server, "onair.json")) as r:
            assert r.status == 200
            assert (await r.json())["on_air"] is False
        await _play_to_flop(s, show_server)
        data = {}
        for _ in range(200):
            async with s.get(api(show_server, "onair.json")) as r:
                data = await r.json()
            if data.get("board"):
                break
            await asyncio.sleep(0.05)
        assert data["board"] == ["2c", "8d", "9h"] and data["hand_complete"] is False
        assert {c for seat in data["seats"] for c in seat["hole_cards"]} == {"??"}  # the hand is live
        text = json.dumps(data)
        for cards in HOLE.values():
            assert not any(c in text for c in cards)
        async with s.get(api(show_server, "onair.xml")) as r:
            assert r.status == 200 and r.content_type == "application/xml"
            root = ET.fromstring(await r.text())
        assert root.tag == "onair" and [c.text for c in root.find("board")] == ["2c", "8d", "9h"]
        assert [seat.findtext("name") for seat in root.find("seats")] == ["Ann Lee", "Bo Chen", "Cy Diaz", "Di Ek"]
        assert {c.text for c in root.iter("hole_card")} == {"??"}
        assert [row.findtext("rank") for row in root.find("leaderboard")] == ["1", "2", "3", "4"]


async def test_a_graphics_login_lands_on_the_desk_and_only_graphics_may_open_it(show_server):
    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as s:  # unsafe: the host is an IP
        async with s.post(f"{show_server.url}/login", data={"token": TOKENS["graphics"]}, allow_redirects=False) as r:
            assert r.status == 303 and r.headers["Location"] == "/graphics"
        async with s.get(f"{show_server.url}/graphics?table={show_server.table}", allow_redirects=False) as r:
            assert r.status == 200 and "Hide all" in await r.text()
    async with aiohttp.ClientSession() as s:
        async with s.get(f"{show_server.url}/graphics", allow_redirects=False) as r:
            assert r.status == 302 and r.headers["Location"].startswith("/login")
        async with s.get(f"{show_server.url}/graphics", headers=DEALER, allow_redirects=False) as r:
            assert r.status == 403


async def test_the_preview_answers_the_next_state_without_applying_it(show_server):
    async with aiohttp.ClientSession() as s:
        async with s.post(api(show_server, "graphics") + "?preview=1", json={"type": "slate", "slate": "break"},
                          headers=GRAPHICS) as r:
            body = await r.json()
        assert r.status == 200 and body["control"]["slate"] == "break" and body["control"]["rev"] == 1
        async with s.get(api(show_server, "graphics"), headers=GRAPHICS) as r:
            assert (await r.json())["control"]["rev"] == 0
    entries = [json.loads(f[b"a"]) for _, f in await show_server.runtime.redis.xrange(keys.audit())]
    assert not [e for e in entries if e["table"] == show_server.table and e["action"].startswith("graphics")]


async def _onair_until(s, server, done, tries=200):
    data = {}
    for _ in range(tries):
        async with s.get(api(server, "onair.json")) as r:
            data = await r.json()
        if done(data):
            return data
        await asyncio.sleep(0.05)
    raise AssertionError(f"onair.json never got there: {data}")


async def test_the_desks_trim_holds_the_polling_endpoints_back_too(show_server):
    """The trim only adds delay: onair.json and onair.xml serve the view released at least the
    trim ago (Redis time), in step with the pages, never anything newer."""
    redis = show_server.runtime.redis
    async with aiohttp.ClientSession() as s:
        async def send(command, headers=DEALER):
            async with s.post(api(show_server, "commands"), json=command, headers=headers) as r:
                assert r.status == 200, (command, await r.text())

        await send({"type": "start_hand", "button": 1})
        for seat in (4, 1, 2):
            await send({"type": "call", "seat": seat})
        await send({"type": "check", "seat": 3})
        await _onair_until(s, show_server, lambda d: d.get("hand") == 1 and d["seats"][2]["action"] == "check")
        await asyncio.sleep(1.5)  # the flop is released at least 1.5 s after the last pre-flop view
        await send({"type": "board", "cards": ["2c", "8d", "9h"]})
        await _onair_until(s, show_server, lambda d: d.get("board") == ["2c", "8d", "9h"])

        # Put the trim's cut halfway between the last pre-flop release and the flop's.
        entries = await redis.xrange(keys.public(show_server.table))
        released = [(int(i.decode().split("-")[0]), json.loads(f[b"m"])) for i, f in entries]
        flop_at = next(at for at, view in released if view["board"])
        before_at, before = [(at, view) for at, view in released if not view["board"]][-1]
        assert flop_at - before_at >= 1000
        now = await redis.time()
        trim_ms = now[0] * 1000 + now[1] // 1000 - (flop_at + before_at) // 2
        status, _ = await post(s, show_server, {"type": "trim", "seconds": trim_ms / 1000})
        assert status == 200
        async with s.get(api(show_server, "onair.json")) as r:
            held = await r.json()
        async with s.get(api(show_server, "onair.xml")) as r:
            held_xml = ET.fromstring(await r.text())
        assert held["trim_ms"] == trim_ms and held["board"] == [] and held["seq"] == before["seq"], held
        assert held_xml.find("board") is not None and list(held_xml.find("board")) == []
        # A page opened now paints the same held view first, not the newest one.
        async with s.get(f"{show_server.url}/overlay/table?table={show_server.table}") as r:
            page = await r.text()
        first = json.loads(re.search(r'id="first-view">(.*?)</script>', page, re.S).group(1))
        assert first["seq"] == before["seq"] and first["board"] == [], first

        # Thirty seconds of trim: nothing this young show released has aired yet.
        assert (await post(s, show_server, {"type": "trim", "seconds": 30}))[0] == 200
        async with s.get(api(show_server, "onair.json")) as r:
            assert (await r.json())["on_air"] is False
        # Trim back to zero: the data source catches up with the feed.
        assert (await post(s, show_server, {"type": "trim", "seconds": 0}))[0] == 200
        async with s.get(api(show_server, "onair.json")) as r:
            assert (await r.json())["board"] == ["2c", "8d", "9h"]
