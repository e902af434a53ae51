"""The show's Redis for an offline command (audit, export, penalties): the external one
given by ``--redis`` (or ``TVTABLE_REDIS_URL``), else the embedded one in the data dir."""

from __future__ import annotations

import asyncio
import os
import sys
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, AsyncIterator

import redis.asyncio as aioredis


@asynccontextmanager
async def show_redis(args: Any, *, command: str = "tvtable", create: bool = False) -> AsyncIterator[aioredis.Redis | None]:
    """Yield a client, or None once the reason is printed (the command then exits 2).

    An embedded Redis that was already running belongs to the live show and is left up;
    one started here is stopped again. ``create`` lets a new data dir get its Redis (an
    import before the day's first table opens)."""
    from .store.embedded import EmbeddedRedis, EmbeddedRedisError

    url = getattr(args, "redis", None) or os.environ.get("TVTABLE_REDIS_URL")
    embedded = None
    if url is None:
        data_dir = Path(args.data_dir)
        if not create and not (data_dir / "redis").exists():
            print(f"{command}: no show data under {data_dir} (use --data-dir or --redis)", file=sys.stderr)
            yield None
            return
        embedded = EmbeddedRedis(data_dir)
        try:
            url = await asyncio.to_thread(embedded.start)
        except EmbeddedRedisError as exc:
            print(f"{command}: cannot open the show's Redis: {exc}", file=sys.stderr)
            yield None
            return
    client = aioredis.from_url(url)
    try:
        yield client
    finally:
        await client.aclose()
        if embedded is not None and not embedded.adopted:
            await asyncio.to_thread(embedded.stop)
