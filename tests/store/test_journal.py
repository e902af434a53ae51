"""The journal and the releaser against a real Redis (embedded; also external when
TVTABLE_REDIS_URL is set)."""

import asyncio
import contextlib
import gc
import json
import os
import stat
import uuid

import pytest
import redis.asyncio as aioredis

from broadcast.store import keys
from broadcast.store.chain import load_or_create_key
from broadcast.store.embedded import EmbeddedRedis
from broadcast.store.journal import LATE_MS, Journal, JournalConflict, StampTooOld, read_all, redis_time_ms
from broadcast.store.releaser import Releaser
from broadcast.store.verify import verify_table
from tests.conftest import redis_targets


@pytest.fixture(params=redis_targets(), ids=lambda u: "external" if u else "embedded")
async def redis(request, tmp_path):
    server = None
    url = request.param
    if url is None:
        server = EmbeddedRedis(tmp_path / "var")
        url = await asyncio.to_thread(server.start)
    client = aioredis.from_url(url)
    yield client
    await client.aclose()
    if server:
        await asyncio.to_thread(server.stop)


def table_id():
    return "t" + uuid.uuid4().hex[:8]


async def test_compare_and_append_refuses_a_second_writer(redis, tmp_path):
    table, key = table_id(), load_or_create_key(tmp_path)
    first, second = Journal(redis, table, key), Journal(redis, table, key)
    await first.append([{"type": "LevelChanged", "level": 1}], ts=await redis_time_ms(redis), delay_ms=0, command_id=None)
    with pytest.raises(JournalConflict):
        await second.append([{"type": "LevelChanged", "level": 2}], ts=await redis_time_ms(redis), delay_ms=0, command_id=None)
    assert [r.seq for r in await read_all(redis, table)] == [1]


async def test_a_command_id_is_applied_at_most_once(redis, tmp_path):
    table, key = table_id(), load_or_create_key(tmp_path)
    journal = Journal(redis, table, key)
    done = await journal.append([{"type": "LevelChanged", "level": 1}], ts=await redis_time_ms(redis), delay_ms=0, command_id="c-1")
    again = await journal.append([{"type": "LevelChanged", "level": 1}], ts=await redis_time_ms(redis), delay_ms=0, command_id="c-1")
    assert [r.seq for r in done] == [1] and again == []
    assert await journal.previous_result("c-1") == {"seqs": [1]}


async def test_the_signing_key_is_private(tmp_path):
    load_or_create_key(tmp_path)
    assert stat.S_IMODE(os.stat(tmp_path / "journal.key").st_mode) == 0o600


async def test_audit_verify_detects_a_rewritten_event(redis, tmp_path):
    table, key = table_id(), load_or_create_key(tmp_path)
    journal = Journal(redis, table, key)
    for level in (1, 2, 3):
        await journal.append([{"type": "LevelChanged", "level": level}], ts=await redis_time_ms(redis), delay_ms=0, command_id=None)
    assert (await verify_table(redis, table, key)).ok
    # Someone with Redis access rebuilds the stream with event 2 changed, keeping its hash.
    forged = keys.journal(table) + ":forged"
    for entry_id, fields in await redis.xrange(keys.journal(table)):
        env = json.loads(fields[b"e"])
        if env["seq"] == 2:
            env["event"]["level"] = 9
        await redis.xadd(forged, {"e": json.dumps(env), "h": fields[b"h"]}, id=entry_id)
    await redis.rename(forged, keys.journal(table))
    result = await verify_table(redis, table, key)
    assert not result.ok and result.problems == ["event 2 does not match its hash: the journal was altered there"]


async def test_audit_verify_detects_a_head_signed_without_the_key(redis, tmp_path):
    table, key = table_id(), load_or_create_key(tmp_path)
    journal = Journal(redis, table, key)
    await journal.append([{"type": "LevelChanged", "level": 1}], ts=await redis_time_ms(redis), delay_ms=0, command_id=None)
    await redis.hset(keys.head(table), "sig", "0" * 64)
    result = await verify_table(redis, table, key)
    assert not result.ok and "signature" in result.problems[0]


async def test_a_stale_releaser_cannot_release(redis, tmp_path):
    table, key = table_id(), load_or_create_key(tmp_path)
    journal = Journal(redis, table, key)
    await journal.append([{"type": "LevelChanged", "level": 1}], ts=await redis_time_ms(redis), delay_ms=0, command_id=None)
    old = Releaser(redis, table, holder="old")
    new = Releaser(redis, table, holder="new")
    # "new" holds the lock; "old" still believes it may release.
    await redis.set(keys.release_lock(table), "new", px=5000)
    old.holding = True
    for rec in await read_all(redis, table):
        old.line.feed(rec)
    await old._publish_due()
    assert await redis.xlen(keys.public(table)) == 0  # fenced: nothing published
    task = asyncio.create_task(new.run())
    try:
        for _ in range(100):
            if await redis.xlen(keys.public(table)):
                break
            await asyncio.sleep(0.02)
    finally:
        task.cancel()
    assert await redis.xlen(keys.public(table)) == 1
    assert int(await redis.hget(keys.release_state(table), "cursor")) == 1


async def test_the_release_script_refuses_to_release_early(redis, tmp_path):
    table, key = table_id(), load_or_create_key(tmp_path)
    journal = Journal(redis, table, key)
    sec, _ = await redis.time()
    future = int(sec) * 1000 + 60_000
    await journal.append([{"type": "LevelChanged", "level": 1}], ts=future, delay_ms=0, command_id=None)
    releaser = Releaser(redis, table, holder="me")
    await redis.set(keys.release_lock(table), "me", px=5000)
    releaser.holding = True
    for rec in await read_all(redis, table):
        releaser.line.feed(rec)
    releaser.offset_ms = 120_000  # a clock running two minutes fast believes it is due
    await releaser._publish_due()
    assert await redis.xlen(keys.public(table)) == 0  # Redis TIME says no


async def test_an_append_stamped_longer_ago_than_late_ms_is_refused_whole(redis, tmp_path):
    """A record lands in the journal at most LATE_MS after its ts, so an undo stamped before
    its target's release time is in the journal before that release can run."""
    table, key = table_id(), load_or_create_key(tmp_path)
    journal = Journal(redis, table, key)
    stamped = await redis_time_ms(redis) - LATE_MS - 200  # as if the core stalled after stamping
    with pytest.raises(StampTooOld):
        await journal.append([{"type": "LevelChanged", "level": 1}], ts=stamped, delay_ms=0, command_id="c-late")
    assert await read_all(redis, table) == [] and journal.seq == 0
    assert await journal.previous_result("c-late") is None  # nothing done: the same id may come again
    fresh = await journal.append([{"type": "LevelChanged", "level": 1}], ts=await redis_time_ms(redis),
                                 delay_ms=0, command_id="c-late")
    assert [r.seq for r in fresh] == [1]



async def test_a_journal_follower_that_stops_with_an_error_leaves_nothing_for_the_garbage_collector(redis, caplog):
    """A follower can die on a lost connection while the releaser waits on its timer (then
    the releaser is stopped: a teardown, a Redis restart). Its error is taken and logged by
    type, never left for the garbage collector to print as a traceback."""
    releaser = Releaser(redis, table_id(), holder="me")
    loop = asyncio.get_running_loop()
    reported: list[str] = []
    loop.set_exception_handler(lambda _loop, context: reported.append(context.get("message", "")))

    async def lost() -> None:
        raise ConnectionError("Connection closed by server.")

    try:
        follower = loop.create_task(lost(), name="journal follower")
        follower.add_done_callback(releaser._follower_done)
        await asyncio.sleep(0.05)
        assert follower.done()
        del follower
        gc.collect()
        await asyncio.sleep(0.01)
    finally:
        loop.set_exception_handler(None)
    assert not [m for m in reported if "never retrieved" in m], reported
    assert "journal follower stopped (ConnectionError)" in caplog.text
    assert "Connection closed" not in caplog.text  # the type, never the text


async def test_a_follower_ending_with_its_stopped_releaser_is_not_a_warning(redis, caplog):
    """At shutdown the show stops the releaser, then closes the connection its follower may
    still be reading on: the follower's ConnectionError then is the shutdown, not a fault,
    and the operator's log does not warn about it. A follower that dies while the releaser
    runs is still a warning (the test above)."""
    releaser = Releaser(redis, table_id(), holder="me")
    running = asyncio.get_running_loop().create_task(releaser.run())
    for _ in range(100):
        if releaser.holding:
            break
        await asyncio.sleep(0.02)
    assert releaser.holding
    running.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await running

    async def lost() -> None:
        raise ConnectionError("Connection closed by server.")

    follower = asyncio.get_running_loop().create_task(lost())
    follower.add_done_callback(releaser._follower_done)
    await asyncio.sleep(0.05)
    assert follower.done()
    assert "journal follower stopped" not in caplog.text
