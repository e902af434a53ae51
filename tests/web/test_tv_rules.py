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


async def deal_with_clock(s, server, *, seconds=1, countdown=1):
    """A hand dealt at a rehearsal show whose called clock is ``seconds`` + ``countdown``
    (the rule book's 25 s + 5 s would make the test wait half a minute)."""
    from dataclasses import replace

    server.core.rules = replace(server.core.rules, clock_short_levels=(seconds, countdown))
    await clear_all(s, server)
    await post(s, server, {"type": "start_hand", "button": 1})
    actor = server.core.state.hand.actor
    assert (await post(s, server, {"type": "cards_shown", "seat": actor, "source": "rep"}, "rep"))[0] == 200
    status, body = await post(s, server, {"type": "call_clock", "seat": actor}, "td")
    assert status == 200, body
    return actor


async def test_the_called_clock_runs_out_by_itself_and_the_hand_is_dead(tv):
    """ "If a player has not acted on his hand by the time the countdown is over, the hand will be dead." """
    import asyncio

    async with aiohttp.ClientSession() as s:
        actor = await deal_with_clock(s, tv)
        live = await view(s, tv, "live", "dealer")
        assert live["called_clock"]["seat"] == actor and live["called_clock"]["phase"] == "time"
        hand = tv.core.state.hand
        for _ in range(60):  # 1 s + 1 s countdown + the 1 s tie margin, from Redis TIME
            await asyncio.sleep(0.1)
            if not tv.core.state.hand.in_hand(actor):
                break
        assert not tv.core.state.hand.in_hand(actor), "the seat's hand is dead once the countdown is over"
        assert tv.core.state.hand.number == hand.number  # the seat's hand is dead, not the whole deal
        records = await tv.core.journal.load()
        kinds = [r.event["type"] for r in records]
        assert "ClockExpired" in kinds and "HandKilled" in kinds
        assert kinds.index("ClockExpired") < kinds.index("HandKilled")
        rep = await view(s, tv, "compliance", "rep")
        assert rep["called_clock"] is None
        assert any("clock expired on seat" in a["what"] and a["by"] == "the called clock" for a in rep["audit"])
        status, body = await post(s, tv, {"type": "call", "seat": actor})
        assert status == 422, "a dead hand cannot act"


async def test_a_tie_between_the_countdown_and_the_action_goes_to_the_player_at_the_table(tv):
    """ "In case of a perceived tie between the countdown and the player's action, that tie will customarily go to
    the player": an action keyed just after the countdown (within the tie margin) stands. """
    import asyncio
    import time

    async with aiohttp.ClientSession() as s:
        actor = await deal_with_clock(s, tv)
        called = tv.core.compliance.called_clock
        from broadcast.store.journal import redis_time_ms

        now = await redis_time_ms(tv.core.redis)
        await asyncio.sleep((called.deadline_ms + 200 - now) / 1000)  # 0.2 s after the countdown
        started = time.monotonic()
        status, body = await post(s, tv, {"type": "call", "seat": actor})
        assert time.monotonic() - started < 0.8, "the machine was too slow to key the action inside the tie margin"
        assert status == 200, body
        assert tv.core.state.hand.in_hand(actor)
        records = await tv.core.journal.load()
        answered = [r.event for r in records if r.event["type"] == "ClockAnswered"]
        assert answered and answered[-1]["tie"] is True
        await asyncio.sleep(1.5)  # the timer must not kill the hand afterwards
        assert tv.core.state.hand.in_hand(actor)
        assert "ClockExpired" not in [r.event["type"] for r in await tv.core.journal.load()]
