"""Start-up check: would this Redis keep every event it has acknowledged?

The journal promises that an acknowledged event (a dealer's action, a card read) is
never lost. That holds only if Redis writes each event to its append-only file and
fsyncs it before answering: ``appendonly yes`` and ``appendfsync always``. The
embedded Redis is set up that way; an external one may not be.

Error tree::

    UnsafeRedis    Redis could lose acknowledged events on a crash: .reason
"""

from __future__ import annotations

import redis.asyncio
from redis.exceptions import ResponseError

_FIX = "set appendonly yes and appendfsync always, or set show.allow_unsafe_redis = true"


class UnsafeRedis(Exception):
    """Redis could lose acknowledged events on a crash. The message says what is wrong
    and how to fix it; print it and refuse to run."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


async def check_persistence(client: redis.asyncio.Redis, *, allow_unsafe: bool) -> list[str]:
    """Check that ``client``'s server fsyncs every write to its append-only file.

    Returns ``[]`` when it does. When it does not (or we may not ask, as an ACL can
    forbid CONFIG), raises ``UnsafeRedis``, unless ``allow_unsafe`` is true, in which
    case it returns the warnings for the caller to log. Connection errors are raised
    as redis-py raises them.
    """
    where = describe(client)
    problems: list[str] = []

    try:
        info = await client.info("persistence")
    except ResponseError as e:
        info = None
        problems.append(f"Redis at {where} does not let us read INFO persistence ({e}): "
                        "we cannot tell whether acknowledged events would survive a crash")
    try:
        reply = await client.config_get("appendfsync")
        fsync = _text(next(iter(reply.values()), b"")) or None
        fsync_unknown = None
    except ResponseError as e:
        # Managed Redis and ACL'd users often may not run CONFIG. Not knowing is not safe.
        fsync, fsync_unknown = None, str(e)

    if info is not None:
        if str(info.get("aof_enabled", "0")) != "1":
            problems.append(f"Redis at {where} has appendonly no: an acknowledged event "
                            "could be lost on a crash")
        elif fsync_unknown is not None:
            problems.append(f"Redis at {where} does not let us read appendfsync ({fsync_unknown}): "
                            "we cannot tell whether acknowledged events would survive a crash")
        elif fsync != "always":
            problems.append(f"Redis at {where} has appendfsync {fsync}: events acknowledged in "
                            "the last second could be lost on a crash")
        if str(info.get("aof_last_write_status", "ok")) != "ok":
            problems.append(f"Redis at {where} failed its last append-only file write "
                            "(disk full or failing?): new events may not be kept")

    if not problems:
        return []
    if allow_unsafe:
        return [f"{p} (allowed by show.allow_unsafe_redis)" for p in problems]
    raise UnsafeRedis("; ".join(problems) + f"; {_FIX}")


def describe(client: redis.asyncio.Redis) -> str:
    """A short address for messages: ``host:port`` or the socket path (never a password)."""
    kwargs = client.connection_pool.connection_kwargs
    if kwargs.get("path"):
        return f"unix://{kwargs['path']}"
    return f"{kwargs.get('host', 'localhost')}:{kwargs.get('port', 6379)}"


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
