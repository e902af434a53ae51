"""Least privilege: each process kind's Redis user may touch only its own keys.

A real redis-server runs with the ACL file ``tvtable acl`` writes, over TLS. The core
writes a hand's journal, its delayed streams and the camera's secret keys; then each
other user tries to read them.
"""

from __future__ import annotations

import json
import subprocess

import pytest
import redis

from broadcast.settings import parse_show
from broadcast.store import keys
from broadcast.store.acl import acl_file, redacted, service_url
from tests.conftest import show_toml
from tests.serving import two_tables_toml
from tests.showproc import TVTABLE
from tests.store.acl_server import AclRedis, tls_show_toml

TABLES = ("tv", "outer")


def two_table_show():
    return parse_show(two_tables_toml(*TABLES))


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    acl = AclRedis(tmp_path_factory.mktemp("acl"), two_table_show()).start()
    core = acl.client("tvt-core", acl.passwords["core"])
    for table in TABLES:  # what a running show holds
        core.xadd(keys.journal(table), {"e": '{"seq":1}', "h": "00"}, id="1-1")
        core.hset(keys.head(table), mapping={"seq": 1, "hash": "00", "sig": "x"})
        core.hset(keys.commands(table), "c1", '{"seqs":[1]}')
        core.xadd(keys.public(table), {"seq": 1, "m": '{"seq":1}'})
        core.xadd(keys.commentary(table), {"seq": 1, "m": '{"seq":1}'})
        core.xadd(keys.control(table), {"m": '{"hide":"all"}'})
        core.xadd(keys.inbox(table), {"c": json.dumps({"type": "hole_cards", "seat": 1, "cards": ["As", "Kd"]})})
        core.hset(keys.seats_key(table), "1", '{"cards":["As","Kd"]}')
        core.hset(keys.crops_key(table), "1", b"\xff\xd8jpeg")
        core.hset(keys.release_state(table), "cursor", 1)
    core.xadd(keys.audit(), {"a": "{}"})
    core.close()
    yield acl
    acl.stop()


def denied(call, *args):
    with pytest.raises(redis.exceptions.NoPermissionError):
        call(*args)


def test_the_acl_file_names_each_tables_keys_and_switches_the_default_user_off():
    text = acl_file(two_table_show(), {"core": "a" * 20, "overlay": "b" * 20, "cardcam": "c" * 20})
    lines = {line.split()[1]: line for line in text.splitlines() if line.startswith("user ")}
    assert lines["default"].startswith("user default off")
    for table in TABLES:
        assert f"%R~{keys.public(table)}" in lines["tvt-overlay"]
        assert f"%R~{keys.control(table)}" in lines["tvt-overlay"]
        assert f"%W~{keys.inbox(table)}" in lines["tvt-cardcam"]
    assert "journal" not in lines["tvt-overlay"] and "journal" not in lines["tvt-cardcam"]
    assert f"%R~{keys.board_need(TABLES[0])}" in lines["tvt-cardcam"]
    assert "a" * 20 not in text  # only the password's SHA-256 is in the file


def test_an_overlay_user_cannot_read_a_journal(server):
    with server.client("tvt-overlay", server.passwords["overlay"]) as overlay:
        for table in TABLES:
            denied(overlay.xrange, keys.journal(table))
            denied(overlay.xread, {keys.journal(table): "0-0"})
            denied(overlay.hgetall, keys.head(table))
            denied(overlay.hgetall, keys.commands(table))
            denied(overlay.xrange, keys.inbox(table))  # camera reads, with their cards
            denied(overlay.hgetall, keys.seats_key(table))
            denied(overlay.hget, keys.crops_key(table), "1")
            denied(overlay.hgetall, keys.release_state(table))
            # What it is for: the delayed streams and the control channel, read only.
            assert overlay.xrevrange(keys.public(table), count=1)[0][1][b"seq"] == b"1"
            assert overlay.xrange(keys.commentary(table))
            assert overlay.xread({keys.control(table): "0-0"})
            denied(overlay.xadd, keys.public(table), {"seq": 2, "m": "{}"})
            denied(overlay.xadd, keys.control(table), {"m": "{}"})
        denied(overlay.xrange, keys.audit())
        denied(overlay.keys, "*")
        denied(overlay.execute_command, "EVAL", "return redis.call('XRANGE', KEYS[1], '-', '+')", 1, keys.journal("tv"))
        # The writes the pages need hold no card: the commentators' private notes, and the
        # on-air pages that say hello on the control feed.
        overlay.hset(f"{keys.PREFIX}:notes:Dev", "p-ann", '{"text":"tight"}')
        overlay.hset(keys.control("tv") + ":pages", "page-1", '{"page":"overlay/table"}')
        assert overlay.hlen(keys.control("tv") + ":pages") == 1


def test_a_cardcam_user_can_only_add_to_the_inbox(server):
    with server.client("tvt-cardcam", server.passwords["cardcam"]) as cardcam:
        for table in TABLES:
            cardcam.xadd(keys.inbox(table), {"c": json.dumps({"type": "cards_shown", "seat": 2})})
            denied(cardcam.xrange, keys.inbox(table))  # not even back: other cameras' cards are there
            denied(cardcam.xread, {keys.inbox(table): "0-0"})
            for readable in (keys.journal(table), keys.public(table), keys.commentary(table), keys.control(table)):
                denied(cardcam.xrange, readable)
            denied(cardcam.hgetall, keys.head(table))
            denied(cardcam.xadd, keys.journal(table), {"e": "{}", "h": "00"})
            cardcam.hset(keys.lights_key(table), "1", "all")  # its own keys: what it saw
            cardcam.get(keys.board_need(table))  # what a board camera needs: the board, no hole card
            denied(cardcam.set, keys.board_need(table), '{"hand":1,"board":[],"needs":3}')  # the core's to say
            denied(cardcam.get, keys.head(table))
        denied(cardcam.xrange, keys.audit())


def test_the_default_user_is_off_and_a_wrong_password_is_refused(server):
    with server.client(None, None) as anonymous:
        with pytest.raises((redis.exceptions.AuthenticationError, redis.exceptions.NoPermissionError,
                            redis.exceptions.ResponseError)):
            anonymous.xrange(keys.public("tv"))
    with server.client("tvt-overlay", "not-the-password") as wrong:
        with pytest.raises(redis.exceptions.AuthenticationError):
            wrong.ping()


def test_the_core_owns_the_journals_but_not_the_server(server):
    with server.client("tvt-core", server.passwords["core"]) as core:
        assert core.xrange(keys.journal("tv"))
        assert core.config_get("appendfsync") == {"appendfsync": "always"}  # the start-up check reads it
        denied(core.flushall)
        denied(core.execute_command, "ACL", "LIST")


def test_a_kinds_url_carries_its_user_password_and_tls_files(server):
    show = parse_show(tls_show_toml(show_toml("tv"), server.certs, server.url))
    url = service_url(server.url, "overlay", show, server.environ)
    assert url.startswith("rediss://tvt-overlay:") and f"ssl_ca_certs={server.certs['ca']}".replace("/", "%2F") in url
    assert server.passwords["overlay"] not in redacted(url)
    client = redis.Redis.from_url(url)
    assert client.xrange(keys.public("tv"))
    denied(client.xrange, keys.journal("tv"))
    client.close()


def test_tvtable_acl_writes_the_file_and_made_up_passwords(tmp_path):
    config = tmp_path / "show.toml"
    config.write_text(show_toml("tv"))
    out = tmp_path / "redis" / "users.acl"
    env = {"PATH": "/usr/bin:/bin", "TVTABLE_REDIS_PASSWORD_CORE": "core-password-from-the-env"}
    done = subprocess.run([TVTABLE, "acl", "--config", str(config), "--out", str(out), "--json"],
                          capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["users"] == {"core": "tvt-core", "overlay": "tvt-overlay", "cardcam": "tvt-cardcam"}
    made = dict(line.split("=", 1) for line in (tmp_path / "redis" / "users.env").read_text().split())
    assert set(made) == {"TVTABLE_REDIS_PASSWORD_OVERLAY", "TVTABLE_REDIS_PASSWORD_CARDCAM"}  # core's came from the env
    assert (tmp_path / "redis" / "users.env").stat().st_mode & 0o077 == 0
    assert "core-password-from-the-env" not in out.read_text() + done.stdout
    for secret in made.values():
        assert secret not in done.stdout
