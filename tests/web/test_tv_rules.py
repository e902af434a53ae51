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


CARD_WORD = r"(?<![A-Za-z0-9])[2-9TJQKA][cdhs](?![A-Za-z0-9])"
DEALT = {1: ["Qc", "Qd"], 2: ["As", "Kd"], 3: ["7h", "7s"], 4: ["Jc", "Tc"]}
GLYPH = {"s": "\u2660", "h": "\u2665", "d": "\u2666", "c": "\u2663"}


def card_forms(card: str) -> list[str]:
    rank = "10" if card[0] == "T" else card[0]
    return [card, f"{rank}{GLYPH[card[1]]}", f"{card[0]}{GLYPH[card[1]]}"]


async def test_no_compliance_message_page_or_log_line_carries_a_hole_card(tv, caplog):
    """Real hole cards (the secure room's entry and the camera's reads through the inbox), then the rep
    and TD work the table: the compliance feed, /rep, /td, the audit CSV and every log line stay card-free."""
    import asyncio
    import json
    import logging
    import re

    from broadcast.store import keys

    caplog.set_level(logging.DEBUG)
    async with aiohttp.ClientSession() as s:
        rep_auth = {"Authorization": f"Bearer {TOKENS['rep']}"}
        async with s.ws_connect(tv.ws_url("compliance"), headers=rep_auth) as ws:
            await clear_all(s, tv)
            await post(s, tv, {"type": "start_hand", "button": 1})
            for seat in (1, 2):  # the secure card room enters these ...
                assert (await post(s, tv, {"type": "hole_cards", "seat": seat, "cards": DEALT[seat]}, "secure"))[0] == 200
            for n, seat in enumerate((3, 4)):  # ... and the camera reads these, through the inbox
                entry = {"type": "hole_cards", "seat": seat, "cards": DEALT[seat], "id": f"cam-{n}"}
                await tv.runtime.redis.xadd(keys.inbox(tv.table), {"c": json.dumps(entry), "person": "cam-1"})
            for seat in (1, 2, 3, 4):
                shown = {"type": "cards_shown", "seat": seat, "source": "camera", "id": f"shown-{seat}"}
                await tv.runtime.redis.xadd(keys.inbox(tv.table), {"c": json.dumps(shown), "person": "cam-1"})
            check = {"type": "camera_check", "seats": [2], "id": "check-1"}
            await tv.runtime.redis.xadd(keys.inbox(tv.table), {"c": json.dumps(check), "person": "cam-1"})
            for _ in range(50):
                hand = tv.core.state.hand
                if all(c != "??" for cards in hand.hole for c in cards) and tv.core.compliance.camera.checks:
                    break
                await asyncio.sleep(0.1)
            hand = tv.core.state.hand
            assert [list(hand.hole[hand.index(seat)]) for seat in DEALT] == list(DEALT.values())  # really dealt
            assert (await post(s, tv, {"type": "acknowledge_alert", "alert": "camera:1"}, "rep"))[0] == 200
            assert (await post(s, tv, {"type": "device_found", "player": "p-bo", "item": "phone"}, "rep"))[0] == 200
            assert (await post(s, tv, {"type": "call_clock", "seat": tv.core.state.hand.actor}, "td"))[0] == 200
            messages = []
            while True:
                try:
                    messages.append((await ws.receive(timeout=1)).data)
                except asyncio.TimeoutError:
                    break
        pages = []
        for path in ("/rep", "/td"):
            async with s.get(f"{tv.url}{path}?table={tv.table}", headers={"Authorization": f"Bearer {TOKENS['td']}"}) as r:
                assert r.status == 200
                pages.append(await r.text())
        async with s.get(f"{tv.url}/api/v1/tables/{tv.table}/compliance/audit.csv", headers=rep_auth) as r:
            audit = await r.text()
        async with s.get(f"{tv.url}/api/v1/tables/{tv.table}/state?view=compliance", headers=rep_auth) as r:
            state = await r.text()

    assert len(messages) >= 8 and any('"seat 2: camera check"' in m for m in messages)
    for text in messages + [audit, state]:  # machine-readable: not even a card-shaped word ...
        text = text.replace("Td Person", "TD person")  # ... but the test show's TD is called "Td Person"
        found = [text[max(0, m.start() - 60):m.end() + 20] for m in re.finditer(CARD_WORD, text)]
        assert not found, found
    logs = "\n".join(r.getMessage() for r in caplog.records)
    assert "hole_cards by cam-1" in logs and "AUDIT Secure Person" in logs  # the log recorded the card work
    for text in pages + [logs]:
        for card in sum(DEALT.values(), []):
            for form in card_forms(card):
                assert not re.search(rf"(?<![A-Za-z0-9]){re.escape(form)}(?![A-Za-z0-9])", text), (form, text[:200])


async def test_a_clock_called_before_a_restart_still_runs_out(tv):
    """The timer is rebuilt from the journal: a core restarted mid-clock kills the hand on time."""
    import asyncio

    from broadcast.service import TableCore
    from broadcast.store.chain import load_or_create_key

    async with aiohttp.ClientSession() as s:
        actor = await deal_with_clock(s, tv)
    old = tv.core
    old._clock_timer.cancel()  # the old process is gone; a new one opens the same journal
    core = TableCore(old.redis, old.config, old.levels, load_or_create_key(tv.data_dir), delay_s=old.delay_ms / 1000,
                     compliance_config=old.rules)
    await core.open()
    assert core.compliance.called_clock is not None and core._clock_timer is not None
    for _ in range(60):
        await asyncio.sleep(0.1)
        if not core.state.hand.in_hand(actor):
            break
    assert not core.state.hand.in_hand(actor)
    kinds = [r.event["type"] for r in await core.journal.load()]
    assert kinds[kinds.index("ClockExpired") + 1] == "HandKilled"


async def called_all_in(s, server):
    """Hand-for-hand on and a hand released; the first to act moves all in, the next calls, the rest fold."""
    await clear_all(s, server)
    assert (await post(s, server, {"type": "hand_for_hand", "on": True}, "td"))[0] == 200
    assert (await post(s, server, {"type": "hand_for_hand_release"}, "td"))[0] == 200
    assert (await post(s, server, {"type": "start_hand", "button": 1}))[0] == 200
    for seat in server.core.state.hand.seats:
        assert (await post(s, server, {"type": "cards_shown", "seat": seat, "source": "rep"}, "rep"))[0] == 200
    action = "allin"
    while (actor := server.core.state.hand.actor) is not None:
        status, body = await post(s, server, {"type": action, "seat": actor})
        assert status == 200, body
        action = "call" if action == "allin" else "fold"


async def test_hand_for_hand_a_called_all_in_waits_for_the_td_to_release_it(tv):
    """ "During hand-for-hand play, when a Dealer has a called all-in at their table, they are instructed to freeze
    all action remaining at that table, including asking the players to not reveal their hands ... Floor Personnel
    will attend the All-In table and instruct them to complete the hand." """
    frozen = "hand-for-hand: a called all-in waits for the TD to release it"
    async with aiohttp.ClientSession() as s:
        await called_all_in(s, tv)
        waiting = tv.core.awaiting_cards()
        assert len(waiting) == 2, "the all-in and the caller turn their hands up next"
        live = await view(s, tv, "live", "dealer")
        assert live["frozen"] is True
        rep = await view(s, tv, "compliance", "td")
        assert rep["hand_for_hand"]["all_in_frozen"] is True
        for command in ({"type": "hole_cards", "seat": waiting[0], "cards": ["As", "Kd"]},
                        {"type": "muck", "seat": waiting[1]}, {"type": "winner", "seat": waiting[0]},
                        {"type": "board", "cards": ["2c", "7d", "9h"]},
                        {"type": "four_card_flop", "cards": ["2c", "7d", "9h", "Js"]}):
            status, body = await post(s, tv, command)
            assert status == 422 and body["field"] == "type" and body["message"] == frozen, (command, body)
        assert tv.core.awaiting_cards() == waiting and tv.core.state.hand.board == ()
        assert (await post(s, tv, {"type": "release_all_in"}, "dealer"))[0] == 403, "the dealer may not release it"
        status, body = await post(s, tv, {"type": "release_all_in"}, "td")
        assert status == 200, body
        assert (await view(s, tv, "live", "dealer"))["frozen"] is False
        for seat, cards in zip(waiting, (["As", "Kd"], ["Qc", "Qd"])):
            status, body = await post(s, tv, {"type": "hole_cards", "seat": seat, "cards": cards})
            assert status == 200, body
        for cards in (["2c", "7d", "9h"], ["Js"], ["3s"]):  # released for the rest of the hand
            status, body = await post(s, tv, {"type": "board", "cards": cards})
            assert status == 200, body
        assert tv.core.state.hand.ended
        rep = await view(s, tv, "compliance", "td")
        assert any(a["what"] == f"hand-for-hand: called all-in of hand {tv.core.state.hand_no} released"
                   and a["by"] == "Td Person" and a["role"] == "td" for a in rep["audit"])
        kinds = [r.event["type"] for r in await tv.core.journal.load()]
        assert kinds.count("AllInReleased") == 1 and kinds.index("AllInReleased") < kinds.index("BoardDealt")


async def test_without_hand_for_hand_a_called_all_in_runs_out_at_once(tv):
    async with aiohttp.ClientSession() as s:
        await called_all_in(s, tv)
        assert (await post(s, tv, {"type": "hand_for_hand", "on": False}, "td"))[0] == 200
        assert (await view(s, tv, "live", "dealer"))["frozen"] is False
        seat = tv.core.awaiting_cards()[0]
        status, body = await post(s, tv, {"type": "hole_cards", "seat": seat, "cards": ["As", "Kd"]})
        assert status == 200, body
        status, body = await post(s, tv, {"type": "release_all_in"}, "td")
        assert status == 422 and body["field"] == "type" and body["message"] == "hand-for-hand is off"


def test_the_show_files_clock_allowance_reaches_the_compliance_rules(tmp_path):
    from broadcast.settings import parse_show
    from broadcast.show import ShowRuntime
    from tests.conftest import show_toml

    show = parse_show(show_toml("tv") + "[compliance]\nclock_seconds = 40\nclock_countdown = 8\n"
                      "short_level_clock_seconds = 3\nshort_level_clock_countdown = 1\nshort_level_minutes = 30\n"
                      "clock_tie_ms = 250\n")
    rules = ShowRuntime(show, tmp_path / "var", environ={}).rules
    assert (rules.clock_standard, rules.clock_short_levels) == ((40, 8), (3, 1))
    assert (rules.short_level_minutes, rules.clock_tie_ms) == (30, 250)
    default = ShowRuntime(parse_show(show_toml("tv")), tmp_path / "var2", environ={}).rules
    assert (default.clock_standard, default.clock_short_levels, default.clock_tie_ms) == ((50, 10), (25, 5), 1000)


async def test_stopping_the_show_cancels_the_called_clock_and_refusal_countdowns(tv):
    import asyncio

    from broadcast.engine.events import ShowCountdownStarted

    async with aiohttp.ClientSession() as s:
        await deal_with_clock(s, tv, seconds=30, countdown=5)
    core = tv.core
    clock_timer = core._clock_timer
    core._count_down(ShowCountdownStarted(hand=core.state.hand_no, seat=1), core.ts + 60_000, core.state.seq)
    countdowns = set(core._countdowns)
    assert clock_timer is not None and not clock_timer.done() and countdowns
    await tv.runtime.stop()
    assert clock_timer.cancelled()
    assert all(t.done() for t in countdowns), "no refusal countdown outlives the show"
    assert core._clock_timer is None and not core._countdowns
    await asyncio.sleep(0.05)


async def test_hand_for_hand_and_the_called_clock_hold_at_a_table_without_the_tv_rules(tmp_path):
    """Hand-for-hand and "Calling for Clock" are the whole tournament's rules: an outer table (no cameras, no
    device or logo checks) deals one released hand at a time, freezes a called all-in, and a clock answered in
    time does not kill the hand."""
    import asyncio

    from tests.conftest import start_show

    server, runner = await start_show(tmp_path, tv_rules=False)
    try:
        async with aiohttp.ClientSession() as s:
            assert (await post(s, server, {"type": "hand_for_hand", "on": True}, "td"))[0] == 200
            status, body = await post(s, server, {"type": "start_hand", "button": 1})
            assert status == 422 and body["field"] == "type" and "release the next hand" in body["message"]
            assert (await post(s, server, {"type": "hand_for_hand_release"}, "td"))[0] == 200
            assert (await post(s, server, {"type": "start_hand", "button": 1}))[0] == 200
            actor = server.core.state.hand.actor
            status, body = await post(s, server, {"type": "call_clock", "seat": actor, "seconds": 1, "countdown": 0,
                                                  "reason": "deliberate stalling"}, "td")
            assert status == 200, body
            action = "allin"
            while (seat := server.core.state.hand.actor) is not None:
                assert (await post(s, server, {"type": action, "seat": seat}))[0] == 200
                action = "call" if action == "allin" else "fold"
            assert "ClockAnswered" in [r.event["type"] for r in await server.core.journal.load()]
            live = await view(s, server, "live", "dealer")
            assert live["frozen"] is True and "halt" not in live
            status, body = await post(s, server, {"type": "hole_cards", "seat": server.core.awaiting_cards()[0],
                                                  "cards": ["As", "Kd"]})
            assert status == 422 and body["message"] == "hand-for-hand: a called all-in waits for the TD to release it"
            await asyncio.sleep(2.2)  # past the clock and its tie margin: answered, so no expiry
            assert server.core.state.hand.in_hand(actor)
            assert (await post(s, server, {"type": "release_all_in"}, "td"))[0] == 200
            status, body = await post(s, server, {"type": "hole_cards", "seat": server.core.awaiting_cards()[0],
                                                  "cards": ["As", "Kd"]})
            assert status == 200, body
    finally:
        await runner.cleanup()
        await server.runtime.stop()
