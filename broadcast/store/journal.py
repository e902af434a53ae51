"""The journal: one Redis Stream per table, appended only by the core.

An append is compare-and-append: one Lua script checks the expected previous sequence
and hash, refuses a command id it has already applied, then adds the events and moves
the signed head, all at once. An event counts as acknowledged only once this script
has returned: with AOF and ``appendfsync always`` Redis then holds it on disk.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import redis.asyncio as aioredis

from . import keys
from .chain import GENESIS, link, sign_head

APPEND = """
local head = redis.call('HMGET', KEYS[2], 'seq', 'hash')
local seq = tonumber(head[1] or '0')
local hash = head[2] or ARGV[2]
if seq ~= tonumber(ARGV[1]) or (head[2] and head[2] ~= ARGV[2]) then
  return {'conflict', tostring(seq), hash}
end
if ARGV[3] ~= '' then
  local done = redis.call('HGET', KEYS[3], ARGV[3])
  if done then return {'duplicate', done} end
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if now > tonumber(ARGV[6]) then return {'late', tostring(now)} end
local n = seq
local last = ARGV[2]
for i = 7, #ARGV, 2 do
  n = n + 1
  redis.call('XADD', KEYS[1], tostring(n) .. '-1', 'e', ARGV[i], 'h', ARGV[i + 1])
  last = ARGV[i + 1]
end
redis.call('HSET', KEYS[2], 'seq', tostring(n), 'hash', last, 'sig', ARGV[4])
if ARGV[3] ~= '' then redis.call('HSET', KEYS[3], ARGV[3], ARGV[5]) end
return {'ok', tostring(n), last}
"""


# An append stamped longer ago than this is refused, and the core stamps and rules again.
# So a record is in the journal at most LATE_MS after its ts, whatever stalled the core in
# between: an undo stamped before its target's release time is then appended before the
# releaser's script runs, and that script, seeing the head moved, releases nothing stale.
LATE_MS = 250


class JournalConflict(Exception):
    """Another writer moved the head: this process is not the table's only core."""


class StampTooOld(Exception):
    """The append reached Redis more than ``LATE_MS`` after its ts: nothing was written."""


@dataclass(frozen=True)
class Record:
    """One journal entry: its envelope (seq, ts, delay, command_id, event) and hash."""

    seq: int
    ts: int
    delay_ms: int
    event: dict[str, Any]
    hash: str
    command_id: str | None = None

    def envelope(self) -> dict[str, Any]:
        return {"seq": self.seq, "ts": self.ts, "delay_ms": self.delay_ms, "command_id": self.command_id, "event": self.event}


def record_from_fields(fields: dict) -> Record:
    """Parse a stream entry's fields (bytes or str) into a Record."""
    raw = fields.get(b"e") or fields.get("e")
    digest = fields.get(b"h") or fields.get("h")
    env = json.loads(raw)
    return Record(
        seq=env["seq"], ts=env["ts"], delay_ms=env["delay_ms"], event=env["event"],
        hash=digest.decode() if isinstance(digest, bytes) else digest, command_id=env.get("command_id"),
    )


class Journal:
    """The append side of one table's journal (the core owns it)."""

    def __init__(self, redis: aioredis.Redis, table: str, key: bytes) -> None:
        self.redis = redis
        self.table = table
        self.key = key
        self.seq = 0
        self.hash = GENESIS
        self._append = redis.register_script(APPEND)

    async def load(self) -> list[Record]:
        """Read the whole journal and position the head after it."""
        records = await read_all(self.redis, self.table)
        if records:
            self.seq, self.hash = records[-1].seq, records[-1].hash
        return records

    async def previous_result(self, command_id: str) -> dict | None:
        """What a command id already did, if it was applied before (a retry)."""
        done = await self.redis.hget(keys.commands(self.table), command_id)
        return json.loads(done) if done else None

    async def append(self, events: list[dict], *, ts: int, delay_ms: int, command_id: str | None) -> list[Record]:
        """Compare-and-append; returns the records once Redis holds them."""
        records, prev = [], self.hash
        for i, event in enumerate(events):
            rec = Record(seq=self.seq + 1 + i, ts=ts, delay_ms=delay_ms, event=event, hash="", command_id=command_id)
            digest = link(prev, rec.envelope())
            records.append(Record(**{**rec.__dict__, "hash": digest}))
            prev = digest
        argv: list[Any] = [self.seq, self.hash, command_id or "", sign_head(self.key, self.table, self.seq + len(records), prev)]
        argv.append(json.dumps({"seqs": [r.seq for r in records]}))
        argv.append(ts + LATE_MS)
        for rec in records:
            argv += [json.dumps(rec.envelope(), separators=(",", ":")), rec.hash]
        reply = await self._append(keys=[keys.journal(self.table), keys.head(self.table), keys.commands(self.table)], args=argv)
        status = _s(reply[0])
        if status == "duplicate":
            return []
        if status == "late":
            raise StampTooOld(f"stamped at {ts}, reached the journal at {_s(reply[1])}")
        if status != "ok":
            raise JournalConflict(f"journal head of table {self.table} moved to seq {_s(reply[1])}: another core is writing")
        self.seq, self.hash = records[-1].seq, records[-1].hash
        return records


def _s(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


async def read_all(redis: aioredis.Redis, table: str, after: int = 0) -> list[Record]:
    """Every journal record after ``after``, in order, read in pages."""
    out: list[Record] = []
    start = f"({after}-1" if after else "-"
    while True:
        page = await redis.xrange(keys.journal(table), min=start, max="+", count=1000)
        if not page:
            return out
        out.extend(record_from_fields(fields) for _, fields in page)
        last_id = page[-1][0]
        start = "(" + (last_id.decode() if isinstance(last_id, bytes) else last_id)


async def redis_time_ms(redis: aioredis.Redis) -> int:
    """The Redis server's clock in ms: the only clock that stamps events and releases."""
    sec, usec = await redis.time()
    return int(sec) * 1000 + int(usec) // 1000
