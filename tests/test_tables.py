"""Several tables in one show: a TV table and an outer feature table, each with its own
journal, delay, feeds and pages, all selected with ``?table=ID``."""

from __future__ import annotations

import asyncio
import json
import time
import uuid

import aiohttp
import pytest

from broadcast.settings import load_show, parse_show
from broadcast.show import ShowRuntime
from broadcast.store import keys
from broadcast.store.journal import read_all
from broadcast.views.projections import public_view
from tests.conftest import TOKENS
from tests.serving import serve, shut, two_tables_toml

DEALER = {"Authorization": f"Bearer {TOKENS['dealer']}"}


def test_the_example_show_has_a_tv_table_and_an_outer_table_with_their_own_delays():
    show = load_show("config/example.toml")
    assert [(t.id, t.delay, t.tv_rules) for t in show.tables] == [("tv", 45.0, True), ("outer", 20.0, False)]
    assert show.watch_delay > 0


@pytest.fixture
async def two_tables(tmp_path):
    tv, outer = "tv" + uuid.uuid4().hex[:6], "outer" + uuid.uuid4().hex[:6]
    runtime = ShowRuntime(parse_show(two_tables_toml(tv, outer, tv_delay=0.5, outer_delay=2.0)), tmp_path / "var",
                          environ={})
    url, runner = await serve(runtime)
    try:
        yield url, runtime, tv, outer
    finally:
        await shut(runtime, runner)


async def next_hand_message(ws, hand: int, timeout: float = 10) -> tuple[float, dict]:
    deadline = time.monotonic() + timeout
    while True:
        msg = json.loads((await ws.receive(timeout=max(0.1, deadline - time.monotonic()))).data)
        if msg.get("hand") == hand:
            return time.time() * 1000, msg


async def test_two_tables_keep_their_own_journals_delays_and_feeds(two_tables):
    url, runtime, tv, outer = two_tables
    ws_base = url.replace("http", "ws")
    async with aiohttp.ClientSession() as s:
        async with s.get(f"{url}/api/v1/tables") as r:
            listed = {t["id"]: t["delay"] for t in (await r.json())["tables"]}
        assert listed == {tv: 0.5, outer: 2.0}
        async with s.ws_connect(f"{ws_base}/ws/v1/public?table={tv}") as tv_ws, \
                s.ws_connect(f"{ws_base}/ws/v1/public?table={outer}") as outer_ws:
            # Hand 1 at the TV table only; then hand 1 at the outer table.
            async with s.post(f"{url}/api/v1/tables/{tv}/commands", json={"type": "start_hand", "button": 1}, headers=DEALER) as r:
                assert r.status == 200
            async with s.post(f"{url}/api/v1/tables/{outer}/commands", json={"type": "start_hand", "button": 3},
                              headers=DEALER) as r:
                assert r.status == 200
            tv_at, tv_msg = await next_hand_message(tv_ws, 1)
            outer_at, outer_msg = await next_hand_message(outer_ws, 1)
    # Each feed carries its own table, released after its own delay.
    assert tv_msg["table"] == tv and outer_msg["table"] == outer
    assert tv_msg["button"] == 1 and outer_msg["button"] == 3
    assert {s_["player"] for s_ in outer_msg["seats"]} == {f"{p}-{outer}" for p in ("p-ann", "p-bo", "p-cy", "p-di")}
    assert tv_at >= tv_msg["ts"] + 500 and outer_at >= outer_msg["ts"] + 2000
    assert outer_at > tv_at  # the outer table's longer delay
    # Two journals, each stamped with its own delay, each with its own chain from seq 1.
    tv_journal, outer_journal = await read_all(runtime.redis, tv), await read_all(runtime.redis, outer)
    assert [r.seq for r in tv_journal] == [1, 2] and [r.seq for r in outer_journal] == [1, 2]
    assert {r.delay_ms for r in tv_journal} == {500} and {r.delay_ms for r in outer_journal} == {2000}
    assert tv_journal[0].event["table"] == tv and outer_journal[0].event["table"] == outer
    assert tv_journal[1].hash != outer_journal[1].hash
    for table in (tv, outer):  # and each table's streams hold only its own messages
        for stream in (keys.public(table), keys.commentary(table)):
            assert {json.loads(f[b"m"])["table"] for _, f in await runtime.redis.xrange(stream)} == {table}


async def test_every_page_selects_its_table(two_tables):
    url, runtime, tv, outer = two_tables
    await asyncio.sleep(2.2)  # both tables' openings have aired
    async with aiohttp.ClientSession(cookies={"tvtable_session": TOKENS["dealer"]}) as s:
        for path in ("/overlay/table", "/watch", "/console"):
            for table, name in ((tv, "TV Table"), (outer, "Outer Table")):
                async with s.get(f"{url}{path}?table={table}") as r:
                    body = await r.text()
                assert r.status == 200, (path, table, body[:200])
                assert f'data-table="{table}"' in body, (path, table)
                assert name in body
            async with s.get(f"{url}{path}?table=nope") as r:
                assert r.status == 404 and "no table 'nope'" in await r.text()
        async with s.get(f"{url}/watch?table={outer}") as r:
            body = await r.text()
        assert f'href="/watch?table={tv}"' in body and 'aria-current="page"' in body  # the table picker


async def test_a_new_table_opens_with_the_show_files_payouts_and_only_once(tmp_path):
    """Payouts come from the config (``[field]``) or from the TD's field data: a new table's
    journal opens with them, and they air with the delay like any field data."""
    from tests.conftest import show_toml

    text = show_toml("tv", delay=0.3) + "\n".join([
        "[field]", "entries = 96", "prize_pool = 10000",
        "[[field.payouts]]", "first = 1", "amount = 6000",
        "[[field.payouts]]", "first = 2", "last = 4", "amount = 1000", ""])
    runtime = ShowRuntime(parse_show(text), tmp_path / "var", environ={})
    url, runner = await serve(runtime)
    try:
        core = runtime.cores["tv"]
        assert (core.compliance.field.payout(1), core.compliance.field.payout(3), core.compliance.field.payout(5)) == \
            (6000, 1000, None)
        records = await read_all(runtime.redis, "tv")
        assert [r.event["type"] for r in records] == ["TableOpened", "FieldDataSet"]
        assert records[1].event["by"] == "the show file" and records[1].event["prize_pool"] == 10000
        deadline = time.monotonic() + 20
        while True:  # on air with the delay: the payout ladder graphic's data
            newest = await runtime.redis.xrevrange(keys.public("tv"), count=1)
            tour = json.loads(newest[0][1][b"m"])["tournament"] if newest else {}
            if tour.get("payouts"):
                break
            assert time.monotonic() < deadline, "the show file's payouts never aired"
            await asyncio.sleep(0.1)
        assert tour["payouts"] == [{"first": 1, "last": 1, "amount": 6000}, {"first": 2, "last": 4, "amount": 1000}]
        assert tour["prize_pool"] == 10000 and tour["entries"] == 96
    finally:
        await shut(runtime, runner)
    again = ShowRuntime(parse_show(text), tmp_path / "var", environ={})  # a restart replays, enters nothing
    await again.start()
    try:
        assert [r.event["type"] for r in await read_all(again.redis, "tv")] == ["TableOpened", "FieldDataSet"]
    finally:
        await again.stop()


async def test_penalties_move_with_the_players_id_to_another_table(two_tables):
    """Rule book, PENALTIES: penalties belong to the player. A player moved to another table
    (or back on the next day, on the same Redis) brings the hands still to sit out and the
    record the ladder goes on from."""
    _, runtime, tv, outer = two_tables
    a, b = runtime.cores[tv], runtime.cores[outer]
    td = {"person": "floor", "role": "td"}
    await a.submit({"type": "penalty", "player": "p-di", "kind": "missed_hands", "count": 2,
                    "reason": "soft play", "rule": "Penalties"}, **td)
    await a.submit({"type": "remove_player", "player": "p-di", "reason": f"moved to {outer}"}, **td)
    await b.submit({"type": "seat_player", "seat": 6, "player": "p-di", "name": "Di Ek", "country": "SE",
                    "stack": 40000, "reason": "table_move"}, **td)
    carried = [r.event for r in await read_all(b.redis, outer) if r.event["type"] == "PenaltiesCarried"]
    assert len(carried) == 1 and carried[0]["from_table"] == tv and carried[0]["hands_left"] == 2
    assert [p.kind for p in b.state.ledger.history("p-di")] == ["missed_hands"]
    # Dealt in and posts, and the hand is killed: twice at the new table, then a live hand.
    killed = []
    for _ in range(3):
        await b.submit({"type": "start_hand", **({"button": 1} if b.state.button is None else {})})
        killed.append(6 in b.state.killed)
        while b.state.in_hand:  # everyone folds to the big blind
            await b.submit({"type": "fold", "seat": b.state.hand.actor})
    assert killed == [True, True, False]
    record = json.loads(await b.redis.hget(keys.penalty_register(), "p-di"))
    assert record["table"] == outer and record["hands_left"] == 0 and len(record["penalties"]) == 1


async def test_a_clients_own_penalty_record_is_never_taken(two_tables):
    _, runtime, tv, outer = two_tables
    b = runtime.cores[outer]
    forged = {"table": tv, "hands_left": 9, "penalties": []}
    await b.submit({"type": "seat_player", "seat": 7, "player": "p-new", "name": "New Player", "country": "GB",
                    "stack": 40000, "reason": "late_entry", "carried": forged}, person="floor", role="td")
    assert b.state.ledger.hands_left("p-new") == 0
    assert not [r for r in await read_all(b.redis, outer) if r.event["type"] == "PenaltiesCarried"]


FIELD = {"type": "field_data", "entries": 40, "players_left": 8, "prize_pool": 5000,
         "payouts": [{"first": 1, "last": 1, "amount": 2000}, {"first": 2, "last": 2, "amount": 1200},
                     {"first": 3, "last": 6, "amount": 300}, {"first": 7, "last": 7, "amount": 250}]}


async def bust_the_button(core, td: dict) -> None:
    """One hand: the button (seat 1, 1,000 chips) is all in and loses to the small blind."""
    player = core.state.seat(1).player
    await core.submit({"type": "chip_count", "player": player, "stack": 1000, "reason": "test"}, **td)
    await core.submit({"type": "start_hand", "button": 1} if core.state.button is None else {"type": "start_hand"})
    for command in ({"type": "fold", "seat": 4}, {"type": "allin", "seat": 1}, {"type": "call", "seat": 2},
                    {"type": "fold", "seat": 3}):
        await core.submit(command)
    if core.compliance.level_clock.hand_for_hand:  # the called all-in waits for the TD
        await core.submit({"type": "release_all_in"}, **td)
    for command in ({"type": "hole_cards", "seat": 1, "cards": "2c2d"}, {"type": "hole_cards", "seat": 2, "cards": "AsAh"}):
        await core.submit(command)
    for cards in ("KsQd7h", "8c", "9d"):
        await core.submit({"type": "board", "cards": cards})
    assert not core.state.in_hand


async def settled(check, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "the field coordinator did not settle"
        await asyncio.sleep(0.02)


async def test_players_out_in_the_same_hand_for_hand_hand_at_different_tables_tie(two_tables):
    """Rule "Hand-for-Hand Play" 2: players eliminated during the same hand at different
    tables tie for that place finish (and split the prize money of the places they cover)."""
    _, runtime, tv, outer = two_tables
    a, b = runtime.cores[tv], runtime.cores[outer]
    td = {"person": "floor", "role": "td"}
    for core in (a, b):
        await core.submit(FIELD, **td)
        await core.submit({"type": "hand_for_hand", "on": True}, **td)
        await core.submit({"type": "hand_for_hand_release"}, **td)
    await bust_the_button(a, td)
    assert [e.place for e in a.state.eliminated] == [8]
    # The outer table hears of it: 7 left in the field, its next bust would finish 7th ...
    await settled(lambda: b.state.players_left == 7)
    await bust_the_button(b, td)
    # ... but it went out in the same hand-for-hand hand: the two tie for 7th.
    await settled(lambda: [(e.place, e.tied) for e in a.state.eliminated] == [(7, 2)]
                  and [(e.place, e.tied) for e in b.state.eliminated] == [(7, 2)])
    prizes = [e["prize"] for c in (a, b)
              for e in public_view(c.state, ts=0, rules=c.compliance)["tournament"]["eliminated"]]
    assert prizes == [125, 125]  # 7th's 250 and 8th's nothing, split
    await settled(lambda: a.state.players_left == b.state.players_left == 6)
    corrected = [r.event for r in await read_all(a.redis, tv) if r.event["type"] == "PlaceCorrected"]
    assert corrected and corrected[0]["before"] == 8 and "hand-for-hand" in corrected[0]["reason"]


async def test_outside_hand_for_hand_the_field_count_follows_every_table(two_tables):
    _, runtime, tv, outer = two_tables
    a, b = runtime.cores[tv], runtime.cores[outer]
    td = {"person": "floor", "role": "td"}
    for core in (a, b):
        await core.submit(FIELD, **td)
    await bust_the_button(b, td)
    await settled(lambda: a.state.players_left == 7 and a.compliance.field.players_left == 7)
    await bust_the_button(a, td)
    assert [e.place for e in b.state.eliminated] == [8] and [e.place for e in a.state.eliminated] == [7]
    await settled(lambda: b.state.players_left == 6)


async def test_a_hand_for_hand_round_a_restart_interrupted_still_ties(tmp_path):
    """The core restarts between a bust at one table and a bust at the other in the same
    hand-for-hand hand: the coordinator picks the round up from the journals, and the two
    still tie. A place already set is not sent again."""
    text = two_tables_toml("tv", "outer")
    td = {"person": "floor", "role": "td"}
    first = ShowRuntime(parse_show(text), tmp_path / "var", environ={})
    await first.start()
    try:
        for core in first.cores.values():
            await core.submit(FIELD, **td)
            await core.submit({"type": "hand_for_hand", "on": True}, **td)
            await core.submit({"type": "hand_for_hand_release"}, **td)
        await bust_the_button(first.cores["tv"], td)
        await settled(lambda: first.cores["outer"].state.players_left == 7)
    finally:
        await first.stop()
    again = ShowRuntime(parse_show(text), tmp_path / "var", environ={})
    await again.start()
    try:
        a, b = again.cores["tv"], again.cores["outer"]
        assert [e.place for e in a.state.eliminated] == [8]
        await bust_the_button(b, td)
        await settled(lambda: [(e.place, e.tied) for e in a.state.eliminated] == [(7, 2)]
                      and [(e.place, e.tied) for e in b.state.eliminated] == [(7, 2)])
        await asyncio.sleep(0.3)  # any second settlement would have been sent by now
        for table in ("tv", "outer"):
            corrected = [r.event for r in await read_all(again.redis, table) if r.event["type"] == "PlaceCorrected"]
            assert len(corrected) == 1, f"table {table}: {corrected}"
    finally:
        await again.stop()
