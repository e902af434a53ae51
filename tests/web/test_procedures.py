"""Procedures that need the adapter around the pure core: the random draw of a four-card
flop's burn, the refusal-to-show countdown on Redis time, and seating through the TD's desk."""

import asyncio

import aiohttp
import pytest

from tests.conftest import TOKENS, start_show


@pytest.fixture
async def table(tmp_path):
    server, runner = await start_show(tmp_path)
    yield server
    await runner.cleanup()
    await server.runtime.stop()


async def post(s, server, command, role="dealer"):
    async with s.post(f"{server.url}/api/v1/tables/{server.table}/commands", json=command,
                      headers={"Authorization": f"Bearer {TOKENS[role]}"}) as r:
        return r.status, await r.json()


async def to_the_flop(s, server):
    assert (await post(s, server, {"type": "start_hand", "button": 4}))[0] == 200
    while server.core.state.hand.needs_board() != 3:
        hand = server.core.state.hand
        kind = "check" if not hand.to_call(hand.actor) else "call"
        assert (await post(s, server, {"type": kind, "seat": hand.actor}))[0] == 200


async def test_four_card_flop_with_no_burn_entered_tv_table_draws_it_at_random_and_journals_it(table):
    async with aiohttp.ClientSession() as s:
        await to_the_flop(s, table)
        status, body = await post(s, table, {"type": "four_card_flop", "cards": ["Ah", "Kd", "7c", "2s"]})
        assert status == 200, body
    records = await table.core.journal.load()
    drawn = next(r.event for r in records if r.event["type"] == "FourCardFlop")
    assert drawn["burn"] in ("Ah", "Kd", "7c", "2s")
    assert sorted(table.core.state.hand.board + (drawn["burn"],)) == sorted(("Ah", "Kd", "7c", "2s"))


async def test_refusal_to_show_the_countdown_runs_out_on_its_own_the_hand_is_dead_and_a_penalty_issued(table):
    async with aiohttp.ClientSession() as s:
        await to_the_flop(s, table)
        for cards in ("2c7d9h", "Js", "3d"):
            if table.core.state.hand.needs_board():
                assert (await post(s, table, {"type": "board", "cards": cards}))[0] == 200
            while (hand := table.core.state.hand).actor is not None:
                assert (await post(s, table, {"type": "check", "seat": hand.actor}))[0] == 200
        first = table.core.state.hand.to_show
        status, body = await post(s, table, {"type": "refuse_to_show", "seat": first})
        assert status == 200, body
        # A seat that is not to show is refused with who is.
        other = next(n for n in table.core.state.hand.seats if n != first)
        status, body = await post(s, table, {"type": "refuse_to_show", "seat": other})
        assert status == 422 and body["field"] == "seat", body
        assert f"seat {first} shows first" in body["message"]
        for _ in range(100):  # five seconds on Redis time, then the core rules by itself
            if first in table.core.state.killed:
                break
            await asyncio.sleep(0.1)
    state = table.core.state
    assert first in state.killed and state.ledger.penalties[-1].rule.startswith("Refusal to Show")
    assert first not in state.hand.shown()


async def test_the_td_seats_a_late_entry_between_hands_and_the_dealer_cannot(table):
    entry = {"type": "seat_player", "seat": 6, "player": "p-late", "name": "Lu Late", "country": "FR", "stack": 20000}
    async with aiohttp.ClientSession() as s:
        status, body = await post(s, table, entry, role="dealer")
        assert status == 403, body
        status, body = await post(s, table, entry, role="td")
        assert status == 200, body
        status, body = await post(s, table, {**entry, "seat": 2}, role="td")
        assert status == 422 and body["field"] == "player" and "already at seat 6" in body["message"], body
    assert table.core.state.seat(6).name == "Lu Late"
    live = table.core.view("live")
    assert any(x["seat"] == 6 and x["name"] == "Lu Late" for x in live["seats"])


async def test_the_graphics_operator_and_the_td_correct_chip_counts_and_names_the_dealer_cannot(table):
    count = {"type": "chip_count", "player": "p-bo", "stack": 28750, "reason": "chip count at the break"}
    async with aiohttp.ClientSession() as s:
        assert (await post(s, table, count, role="dealer"))[0] == 403
        status, body = await post(s, table, count, role="graphics")
        assert status == 200, body
        status, body = await post(s, table, {"type": "display_name", "player": "p-bo", "name": "Bo \u201cBig Stack\u201d Chen"},
                                  role="td")
        assert status == 200, body
    bo = next(x for x in table.core.state.seats if x.player == "p-bo")
    assert (bo.stack, bo.name) == (28750, "Bo \u201cBig Stack\u201d Chen")
    records = await table.core.journal.load()
    corrected = next(r for r in records if r.event["type"] == "ChipCountCorrected")
    assert corrected.event["before"] == 30000 and corrected.event["reason"] == "chip count at the break"


async def test_held_cards_stay_available_to_the_secure_card_room_after_the_next_hand_and_each_look_is_audited(table):
    from broadcast.store import keys

    async with aiohttp.ClientSession() as s:
        assert (await post(s, table, {"type": "start_hand", "button": 4}))[0] == 200
        for seat, cards in ((1, "AhAd"), (2, "7c2d")):
            assert (await post(s, table, {"type": "hole_cards", "seat": seat, "cards": cards}, role="secure"))[0] == 200
        status, body = await post(s, table, {"type": "hold_for_review", "seats": [1, 2], "reason": "collusion concern"})
        assert status == 200, body
        while table.core.state.in_hand:
            hand = table.core.state.hand
            assert (await post(s, table, {"type": "fold", "seat": hand.actor}))[0] == 200
        assert (await post(s, table, {"type": "start_hand"}))[0] == 200  # the next hand: the dispute window closed
        url = f"{table.url}/secure/cards/review?table={table.table}"
        for role in ("td", "dealer", "graphics"):
            async with s.get(url, headers={"Authorization": f"Bearer {TOKENS[role]}"}) as r:
                assert r.status == 403
        async with s.get(url, headers={"Authorization": f"Bearer {TOKENS['secure']}"}) as r:
            assert r.status == 200
            (held,) = (await r.json())["held"]
    assert held["hand"] == 1 and held["reason"] == "collusion concern"
    assert {x["seat"]: x["hole_cards"] for x in held["seats"]} == {1: ["Ah", "Ad"], 2: ["7c", "2d"]}
    audit = [f for _, f in await table.runtime.redis.xrange(keys.audit())]
    assert any(b"reviewed held hands" in f[b"a"] for f in audit)


async def test_the_go_live_gate_holds_at_every_seating_a_late_entry_is_not_dealt_in_until_cleared(tmp_path):
    server, runner = await start_show(tmp_path, tv_rules=True)
    try:
        async with aiohttp.ClientSession() as s:
            for seat in server.core.state.seats:
                for command in ({"type": "surrender_devices", "player": seat.player, "items": ["phone"], "bag": f"B{seat.seat}"},
                                {"type": "inspect_logos", "player": seat.player, "logos": []}):
                    assert (await post(s, server, command, role="rep"))[0] == 200
            status, body = await post(s, server, {"type": "seat_player", "seat": 7, "player": "p-late", "name": "Lu Late",
                                                  "country": "FR", "stack": 20000}, role="td")
            assert status == 200, body
            status, body = await post(s, server, {"type": "start_hand", "button": 1})
            assert status == 422 and ("Lu Late" in body["message"] or "seat 7" in body["message"]), body
            assert "device" in body["message"].lower(), body
            for command in ({"type": "surrender_devices", "player": "p-late", "items": ["phone"], "bag": "B7"},
                            {"type": "inspect_logos", "player": "p-late", "logos": []}):
                assert (await post(s, server, command, role="rep"))[0] == 200
            status, body = await post(s, server, {"type": "start_hand", "button": 1})
            assert status == 200, body
        assert 7 in server.core.state.hand.seats
    finally:
        await runner.cleanup()
        await server.runtime.stop()
