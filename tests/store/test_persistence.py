"""The start-up check refuses a Redis that could lose acknowledged events."""

from __future__ import annotations

import pytest
import redis
import redis.asyncio

from broadcast.store.embedded import EmbeddedRedis
from broadcast.store.persistence import UnsafeRedis, check_persistence

FIX = "set appendonly yes and appendfsync always, or set show.allow_unsafe_redis = true"


@pytest.fixture
def embedded(tmp_path):
    with EmbeddedRedis(tmp_path / "data") as server:
        yield server


def admin(server: EmbeddedRedis) -> redis.Redis:
    return redis.Redis.from_url(server.url)


async def test_embedded_redis_is_safe(embedded):
    async with redis.asyncio.Redis.from_url(embedded.url) as client:
        assert await check_persistence(client, allow_unsafe=False) == []


async def test_machine_redis_without_aof_is_refused():
    client = redis.asyncio.Redis(host="127.0.0.1", port=6379, socket_connect_timeout=1)
    try:
        await client.ping()
    except (redis.ConnectionError, OSError):
        await client.aclose()
        pytest.skip("no Redis on 127.0.0.1:6379")
    try:
        if (await client.info("persistence")).get("aof_enabled") != 0:
            pytest.skip("this machine's Redis has AOF on")
        with pytest.raises(UnsafeRedis) as info:
            await check_persistence(client, allow_unsafe=False)
        assert str(info.value) == (
            "Redis at 127.0.0.1:6379 has appendonly no: an acknowledged event could be lost "
            f"on a crash; {FIX}"
        )
        warnings = await check_persistence(client, allow_unsafe=True)
        assert len(warnings) == 1 and "appendonly no" in warnings[0]
    finally:
        await client.aclose()


async def test_appendfsync_everysec_is_refused(embedded):
    admin(embedded).config_set("appendfsync", "everysec")
    async with redis.asyncio.Redis.from_url(embedded.url) as client:
        with pytest.raises(UnsafeRedis, match="has appendfsync everysec: events acknowledged in the last second"):
            await check_persistence(client, allow_unsafe=False)


async def test_appendonly_turned_off_is_refused(embedded):
    admin(embedded).config_set("appendonly", "no")
    async with redis.asyncio.Redis.from_url(embedded.url) as client:
        with pytest.raises(UnsafeRedis, match=f"unix://{embedded.socket_path} has appendonly no"):
            await check_persistence(client, allow_unsafe=False)


async def test_config_forbidden_by_acl_counts_as_unsafe(embedded):
    admin(embedded).acl_setuser("overlay", enabled=True, passwords=["+overlay-pass-123456"],
                                keys=["*"], commands=["+@all", "-config"])
    async with redis.asyncio.Redis.from_url(embedded.url, username="overlay",
                                            password="overlay-pass-123456") as client:
        with pytest.raises(UnsafeRedis) as info:
            await check_persistence(client, allow_unsafe=False)
        assert "does not let us read appendfsync" in str(info.value)
        assert str(info.value).endswith(FIX)
        warnings = await check_persistence(client, allow_unsafe=True)
        assert warnings and "allowed by show.allow_unsafe_redis" in warnings[0]


async def test_info_forbidden_by_acl_counts_as_unsafe(embedded):
    admin(embedded).acl_setuser("cardcam", enabled=True, passwords=["+cardcam-pass-123456"],
                                keys=["*"], commands=["+@all", "-info", "-config"])
    async with redis.asyncio.Redis.from_url(embedded.url, username="cardcam",
                                            password="cardcam-pass-123456") as client:
        with pytest.raises(UnsafeRedis, match="does not let us read INFO persistence"):
            await check_persistence(client, allow_unsafe=False)
