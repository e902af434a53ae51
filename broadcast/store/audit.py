"""The audit trail: who did what with privileged access, kept in Redis and the log."""

from __future__ import annotations

import json
import logging
import time

import redis.asyncio as aioredis

from . import keys

log = logging.getLogger("tvtable.audit")


async def audit(redis: aioredis.Redis, *, person: str, role: str, action: str, table: str = "", detail: str = "") -> None:
    """Record one privileged act. ``detail`` must never hold a hole card or a token."""
    entry = {"person": person, "role": role, "action": action, "table": table, "detail": detail, "at": int(time.time() * 1000)}
    await redis.xadd(keys.audit(), {"a": json.dumps(entry)})
    log.info("AUDIT %s (%s) %s %s %s", person, role, action, table, detail)
