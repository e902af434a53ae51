"""The releaser: moves a table's delay line onto the public and commentary streams.

One releaser per table holds a lock with a TTL. Its cursor moves in the same Lua
script that publishes, and that script checks the lock holder, the cursor, the Redis
``TIME`` against the release time and the journal head, so a stalled old releaser can
neither release twice nor early, and a correction that just arrived is never skipped.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
import uuid

import redis.asyncio as aioredis

from ..compliance.config import ComplianceConfig
from ..delay import DelayLine
from . import keys
from .journal import read_all, record_from_fields, redis_time_ms

log = logging.getLogger("tvtable.releaser")

RELEASE = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return {'fenced'} end
local cursor = tonumber(redis.call('HGET', KEYS[2], 'cursor') or '0')
if cursor ~= tonumber(ARGV[2]) then return {'moved', tostring(cursor)} end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if now < tonumber(ARGV[4]) then return {'early', tostring(now)} end
local head = tonumber(redis.call('HGET', KEYS[5], 'seq') or '0')
if head ~= tonumber(ARGV[5]) then return {'stale', tostring(head)} end
for i = 7, #ARGV, 3 do
  redis.call('XADD', KEYS[3], '*', 'seq', ARGV[i], 'm', ARGV[i + 1])
  redis.call('XADD', KEYS[4], '*', 'seq', ARGV[i], 'm', ARGV[i + 2])
end
redis.call('HSET', KEYS[2], 'cursor', ARGV[3], 'revealed', ARGV[6], 'at', ARGV[4], 'released_at', tostring(now))
return {'ok', tostring(now)}
"""

LOCK_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) and 1 or 0
"""

LOCK_TTL_MS = 3000
LATENESS_BUCKETS_MS = (5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000)


class Releaser:
    """Runs one table's delay line against Redis. ``run()`` until cancelled."""

    def __init__(self, redis: aioredis.Redis, table: str, *, holder: str | None = None, config: ComplianceConfig | None = None) -> None:
        self.redis = redis
        self.config = config  # the show's compliance settings: the delay line judges sponsor badges with them
        self.table = table
        self.holder = holder or f"{uuid.uuid4().hex}"
        self.line = DelayLine(self.config)
        self.offset_ms = 0  # Redis time minus local time, refreshed often
        self._release = redis.register_script(RELEASE)
        self._lock = redis.register_script(LOCK_RENEW)
        self.holding = False
        self._last_lock = 0.0
        self._wake = asyncio.Event()
        # Set while run() is being stopped: a follower cancelled with it can still end on the
        # connection the show closes next (redis-py may swallow one cancellation in XREAD), and
        # that is the shutdown, not a fault for the operator's log.
        self._stopping = False
        self.released = asyncio.Event()  # set after each publish (tests and benchmarks wait on it)
        # Release lateness (Redis time of the publish minus the first record's due time), for /metrics.
        self.lateness_buckets = [0] * len(LATENESS_BUCKETS_MS)  # releases at most that late (cumulative)
        self.lateness_count = 0
        self.lateness_sum_ms = 0

    def now(self) -> int:
        """Our estimate of Redis time; the release script re-checks with the real one."""
        return int(time.time() * 1000) + self.offset_ms

    async def _sync_clock(self) -> None:
        before = time.time()
        server = await redis_time_ms(self.redis)
        after = time.time()
        self.offset_ms = server - int((before + after) * 500)

    async def _start(self) -> None:
        for rec in await read_all(self.redis, self.table):
            self.line.feed(rec)
        state = await self.redis.hgetall(keys.release_state(self.table))
        cursor = int(state.get(b"cursor", 0))
        revealed = int(state.get(b"revealed", 0))
        self.line.restore(cursor, revealed)
        log.info("table %s: releaser %s starts at seq %d of %d", self.table, self.holder[:8], cursor, len(self.line.records))

    async def run(self) -> None:
        """Hold the lock, follow the journal, publish what is due. Never publishes early.

        Two loops: a follower reads the journal (XREAD) and wakes the publisher, which
        sleeps on a local timer until the next record is due. Redis only honours a short
        XREAD timeout every 1/hz s (100 ms by default), so it must not be the alarm clock.
        """
        # A restart (after a Redis outage) re-reads the journal and the cursor from Redis:
        # the last release's answer may have been lost with the connection.
        self.holding, self._last_lock = False, 0.0
        self._stopping = False
        await self._sync_clock()
        follower: asyncio.Task | None = None
        last_sync = 0.0
        try:
            while True:
                mono = time.monotonic()
                if mono - self._last_lock > LOCK_TTL_MS / 3000:
                    got = await self._lock(keys=[keys.release_lock(self.table)], args=[self.holder, LOCK_TTL_MS])
                    self._last_lock = mono
                    if not got:
                        if self.holding:
                            log.warning("table %s: releaser %s lost its lock", self.table, self.holder[:8])
                        self.holding = False
                        if follower is not None:
                            follower.cancel()
                            follower = None
                        await asyncio.sleep(0.5)
                        continue
                    if not self.holding or follower is None or follower.done():
                        if follower is not None:
                            follower.cancel()
                        self.line = DelayLine(self.config)
                        await self._start()
                        follower = asyncio.get_running_loop().create_task(self._follow(), name=f"journal follower {self.table}")
                        follower.add_done_callback(self._follower_done)
                    self.holding = True
                if mono - last_sync > 1.0:
                    await self._sync_clock()
                    last_sync = mono
                try:
                    # asyncio.timeout, not wait_for: Python 3.11's wait_for can swallow a
                    # cancellation that lands as the wake-up comes, and a releaser that
                    # cannot be stopped keeps its lock from the standby.
                    async with asyncio.timeout(self._wait_ms() / 1000):
                        await self._wake.wait()
                except TimeoutError:
                    pass
                self._wake.clear()
                if self.holding:
                    await self._publish_due()
        finally:
            self._stopping = True
            if follower is not None:
                follower.cancel()

    def _follower_done(self, task: asyncio.Task) -> None:
        """The follower stopped: the loop above starts a new one at its next lock check. Its
        error is taken here (a type, never a text), not left for the garbage collector to
        print as a traceback."""
        if task.cancelled() or task.exception() is None:
            return
        if self._stopping:
            log.debug("table %s: journal follower ended with the releaser (%s)", self.table,
                      type(task.exception()).__name__)
        else:
            log.warning("table %s: journal follower stopped (%s); starting again", self.table,
                        type(task.exception()).__name__)

    def _wait_ms(self) -> int:
        due = self.line.next_due()
        if due is None:
            return 200
        return max(0, min(200, due - self.now()))

    async def _follow(self) -> None:
        """Feed every new journal record to the delay line as soon as Redis has it."""
        while True:
            last = self.line.records[-1].seq if self.line.records else 0
            reply = await self.redis.xread({keys.journal(self.table): f"{last}-1"}, block=1000, count=1000)
            for _, entries in reply or []:
                for _, fields in entries:
                    self.line.feed(record_from_fields(fields))
            if reply:
                self._wake.set()

    async def _publish_due(self) -> None:
        release = self.line.due(self.now())
        if release is None:
            return
        head = self.line.records[-1].seq if self.line.records else 0
        argv: list = [self.holder, self.line.cursor, release.cursor, release.release_at, head, release.revealed]
        for seq, public, commentary in release.messages:
            argv += [seq, json.dumps(public, separators=(",", ":")), json.dumps(commentary, separators=(",", ":"))]
        keys_ = [
            keys.release_lock(self.table), keys.release_state(self.table), keys.public(self.table),
            keys.commentary(self.table), keys.head(self.table),
        ]
        first_due = self.line.release_at[self.line.cursor] if release.release_at else None
        reply = await self._release(keys=keys_, args=argv)
        status = reply[0].decode() if isinstance(reply[0], bytes) else reply[0]
        if status == "ok":
            if first_due is not None:
                self._count_lateness(int(reply[1]) - first_due)
            self.line.commit(release)
            self.released.set()
            self.released.clear()
        elif status == "early":
            await self._sync_clock()  # our clock estimate ran ahead of Redis: re-measure
        elif status == "stale":
            pass  # a new journal entry (maybe a correction) arrived: read it first
        else:
            log.warning("table %s: release refused (%s); re-reading from Redis", self.table, status)
            self.holding = False
            self._last_lock = 0.0  # re-check the lock and restart from Redis's cursor

    def _count_lateness(self, late_ms: int) -> None:
        self.lateness_count += 1
        self.lateness_sum_ms += late_ms
        for i, bound in enumerate(LATENESS_BUCKETS_MS):
            if late_ms <= bound:
                self.lateness_buckets[i] += 1
