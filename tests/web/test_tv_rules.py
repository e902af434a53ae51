"""The TV-table rules wired into the core: the go-live gate, HALT PLAY, the rep's
compliance feed, and who may enter what."""

import aiohttp
import pytest

from tests.conftest import TOKENS, start_show


@pytest.fixture
async def tv(tmp_path):
    server, runner = await start_show(tmp_path, tv_rules=True)
    yield server
    await runner.cleanup()
    await server.runtime.stop()


async def post(s, server, command, role="dealer"):
    async with s.post(f"{server.url}/api/v1/tables/{server.table}/commands", json=command,
                      headers={"Authorization": f"Bearer {TOKENS[role]}"}) as r:
        return r.status, await r.json()


async def view(s, server, which, role):
    async with s.get(f"{server.url}/api/v1/tables/{server.table}/state?view={which}",
                     headers={"Authorization": f"Bearer {TOKENS[role]}"}) as r:
        assert r.status == 200
        return await r.json()


async def clear_all(s, server):
    for seat in server.core.state.seats:
        assert (await post(s, server, {"type": "surrender_devices", "player": seat.player, "items": ["phone"],
                                       "bag": f"B{seat.seat}"}, "rep"))[0] == 200
        assert (await post(s, server, {"type": "inspect_logos", "player": seat.player, "logos": []}, "rep"))[0] == 200


async def test_go_live_gate_no_deal_until_devices_are_surrendered_and_logos_checked(tv):
    async with aiohttp.ClientSession() as s:
        status, body = await post(s, tv, {"type": "start_hand", "button": 1})
        assert status == 422 and body["error"] == "not_cleared" and "no deal yet" in body["message"]
        live = await view(s, tv, "live", "dealer")
        assert live["deal_blockers"]
        await clear_all(s, tv)
        status, _ = await post(s, tv, {"type": "start_hand", "button": 1})
        assert status == 200


async def test_halt_play_when_the_action_reaches_a_seat_whose_cards_were_not_shown(tv):
    async with aiohttp.ClientSession() as s:
        await clear_all(s, tv)
        await post(s, tv, {"type": "start_hand", "button": 1})
        actor = tv.core.state.hand.actor
        live = await view(s, tv, "live", "dealer")
        assert actor in live["halt"]
        rep = await view(s, tv, "compliance", "rep")
        assert any("HALT PLAY" in m for m in rep["halt"]["messages"])
        # The camera reports the cards shown: the hold is lifted.
        assert (await post(s, tv, {"type": "cards_shown", "seat": actor, "source": "rep"}, "rep"))[0] == 200
        live = await view(s, tv, "live", "dealer")
        assert actor not in live["halt"]


async def test_an_action_entered_under_halt_play_is_recorded_with_a_violation(tv):
    async with aiohttp.ClientSession() as s:
        await clear_all(s, tv)
        await post(s, tv, {"type": "start_hand", "button": 1})
        actor = tv.core.state.hand.actor
        status, _ = await post(s, tv, {"type": "call", "seat": actor})
        assert status == 200  # it physically happened
        rep = await view(s, tv, "compliance", "rep")
        assert rep["violations"], "the action under HALT PLAY is a violation for the rep"


async def test_the_dealer_cannot_enter_rep_commands_and_the_compliance_feed_never_has_a_card(tv):
    async with aiohttp.ClientSession() as s:
        status, _ = await post(s, tv, {"type": "surrender_devices", "player": "p-ann", "items": ["phone"]}, "dealer")
        assert status == 403
        await clear_all(s, tv)
        await post(s, tv, {"type": "start_hand", "button": 1})
        await post(s, tv, {"type": "hole_cards", "seat": 2, "cards": ["As", "Kd"]}, "secure")
        async with s.ws_connect(tv.ws_url("compliance"), headers={"Authorization": f"Bearer {TOKENS['rep']}"}) as ws:
            text = (await ws.receive(timeout=5)).data
        assert '"As"' not in text and '"Kd"' not in text and '"feed":"compliance"' in text
