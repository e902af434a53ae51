"""``tvtable audit verify``: re-walk each journal's hash chain and check the signed head."""

from __future__ import annotations

import hmac
from dataclasses import dataclass, field

import redis.asyncio as aioredis

from . import keys
from .chain import GENESIS, link, sign_head
from .journal import read_all


@dataclass
class TableAudit:
    table: str
    events: int = 0
    head_seq: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


async def verify_table(redis: aioredis.Redis, table: str, key: bytes | None) -> TableAudit:
    """Check one journal: dense sequence, every link, head hash and head signature."""
    result = TableAudit(table)
    records = await read_all(redis, table)
    result.events = len(records)
    prev = GENESIS
    for expected, rec in enumerate(records, start=1):
        if rec.seq != expected:
            result.problems.append(f"sequence jumps from {expected - 1} to {rec.seq}")
            break
        digest = link(prev, rec.envelope())
        if digest != rec.hash:
            result.problems.append(f"event {rec.seq} does not match its hash: the journal was altered there")
            break
        prev = digest
    head = await redis.hgetall(keys.head(table))
    head_seq = int(head.get(b"seq", 0))
    head_hash = head.get(b"hash", b"").decode()
    result.head_seq = head_seq
    if records and not result.problems:
        if head_seq != records[-1].seq or head_hash != records[-1].hash:
            result.problems.append(f"the head (seq {head_seq}) does not match the last event (seq {records[-1].seq})")
    if key is None:
        result.problems.append("no signing key in the data dir: the head signature cannot be checked")
    elif records or head:
        expected_sig = sign_head(key, table, head_seq, head_hash)
        if not hmac.compare_digest(expected_sig, head.get(b"sig", b"").decode()):
            result.problems.append("the head signature is wrong: the journal was rewritten without the key")
    return result


async def journal_tables(redis: aioredis.Redis) -> list[str]:
    """Every table that has a journal in this Redis."""
    return sorted(t.decode() for t in await redis.smembers(keys.tables()))
