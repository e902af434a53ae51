"""A show on several machines: a core process, overlay servers and a capture PC, each
under its own Redis user over TLS; and a releaser that fails over when its holder dies."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import time

import aiohttp
import pytest
import redis.asyncio as aioredis
from broadcast.settings import ConfigError, parse_show
from broadcast.show import OverlayTable, ShowRuntime, parse_services
from broadcast.store import keys
from broadcast.store.acl import service_url
from broadcast.store.embedded import EmbeddedRedis
from broadcast.store.releaser import LOCK_TTL_MS
from tests.conftest import TOKENS, free_port, show_toml
from tests.showproc import TVTABLE, check_stream, hole_cards, read_show
from tests.serving import serve, shut
from tests.store.acl_server import AclRedis, tls_show_toml

DEALER = {"Authorization": f"Bearer {TOKENS['dealer']}"}


async def fold_to_the_end(session: aiohttp.ClientSession, base: str, table: str) -> None:
    """Everyone folds to the last player: the hand ends live."""
    for _ in range(10):
        async with session.get(f"{base}/api/v1/tables/{table}/state?view=live", headers=DEALER) as r:
            live = await r.json()
        if not live.get("legal"):
            return
        async with session.post(f"{base}/api/v1/tables/{table}/commands", headers=DEALER,
                                json={"type": "fold", "seat": live["legal"]["seat"]}) as r:
            assert r.status == 200, await r.text()
    raise AssertionError("the hand did not end")


def test_services_are_named_in_the_poker_rooms_order():
    assert parse_services("overlay, core") == {"core", "overlay"}
    with pytest.raises(ValueError, match="'dealer' is not one"):
        parse_services("core,dealer")
    with pytest.raises(ValueError):
        parse_services("")


async def test_core_overlay_and_cardcam_each_run_under_their_own_redis_user_over_tls(tmp_path):
    acl = AclRedis(tmp_path, parse_show(show_toml("tv"))).start()
    show = parse_show(tls_show_toml(show_toml("tv", delay=1), acl.certs, acl.url))
    core = ShowRuntime(show, tmp_path / "core", environ=acl.environ, services={"core"})
    overlay = ShowRuntime(show, tmp_path / "overlay", environ=acl.environ, services={"overlay"})
    core_url, core_runner = await serve(core)
    overlay_url, overlay_runner = await serve(overlay)
    second = ShowRuntime(show, tmp_path / "overlay2", environ=acl.environ, services={"overlay"})  # scaled out
    second_url, second_runner = await serve(second)
    camera = aioredis.from_url(service_url(acl.url, "cardcam", show, acl.environ))
    try:
        assert isinstance(overlay.cores["tv"], OverlayTable) and not overlay.releasers  # no journal opened here
        async with aiohttp.ClientSession() as s:
            async with s.ws_connect(overlay_url.replace("http", "ws") + "/ws/v1/public?table=tv") as ws, \
                    s.ws_connect(second_url.replace("http", "ws") + "/ws/v1/public?table=tv") as ws2:
                async with s.post(f"{core_url}/api/v1/tables/tv/commands", json={"type": "start_hand", "button": 1},
                                  headers=DEALER) as r:
                    assert r.status == 200
                # The capture PC adds its read to the inbox; the core rules on it.
                await camera.xadd(keys.inbox("tv"), {"c": json.dumps({"type": "hole_cards", "seat": 2, "cards": ["As", "Kd"],
                                                                      "id": "cam-1"}), "person": "Capture PC 1"})
                for _ in range(100):
                    if [s_["hole_cards"] for s_ in core.cores["tv"].view("secure")["seats"] if s_["seat"] == 2] == [["As", "Kd"]]:
                        break
                    await asyncio.sleep(0.05)
                else:
                    raise AssertionError("the core did not apply the camera's read from the inbox")
                seq = core.cores["tv"].state.seq
                while True:  # the camera's read airs after the delay, its cards hidden: the hand is live
                    msg = json.loads((await ws.receive(timeout=10)).data)
                    assert not hole_cards(msg), f"a hole card on air before the hand ended: {msg}"
                    if msg["seq"] >= seq:
                        break
                await fold_to_the_end(s, core_url, "tv")
                while "As" not in hole_cards(msg):  # ended live: revealed once its turn to air comes
                    msg = json.loads((await ws.receive(timeout=10)).data)
                # The second overlay server carried every message too (XREAD, not a consumer group).
                other = json.loads((await ws2.receive(timeout=10)).data)
                while other != msg:
                    other = json.loads((await ws2.receive(timeout=10)).data)
            # The overlay server has no live view to give, and says so.
            async with s.get(f"{overlay_url}/api/v1/tables/tv/state?view=live", headers=DEALER) as r:
                assert r.status == 422 and "core" in (await r.json())["message"]
            async with s.get(f"{overlay_url}/overlay/table?table=tv") as r:
                assert r.status == 200
            async with s.get(f"{overlay_url}/watch?table=tv") as r:  # the companion page's line runs as tvt-overlay
                assert r.status == 200 and "Ann Lee" in await r.text()
            async with s.ws_connect(overlay_url.replace("http", "ws") + "/watch/ws?table=tv") as ws:
                assert json.loads((await ws.receive(timeout=5)).data)["table"] == "tv"
            # The commentary desk, with its private notes, works from an overlay server too.
            commentator = {"Authorization": f"Bearer {TOKENS['commentator']}"}
            for path in ("/commentary?table=tv", "/api/v1/tables/tv/stats", "/api/v1/tables/tv/hands"):
                async with s.get(overlay_url + path, headers=commentator) as r:
                    assert r.status == 200, (path, await r.text())
            async with s.put(f"{overlay_url}/api/v1/notes/p-ann", json={"text": "tight early"}, headers=commentator) as r:
                assert r.status == 200
            async with s.get(f"{overlay_url}/api/v1/notes", headers=commentator) as r:
                assert (await r.json())["notes"]["p-ann"]["text"] == "tight early"
            async with s.get(f"{overlay_url}/healthz") as r:
                assert (await r.json())["redis"] is True
    finally:
        await camera.aclose()
        await shut(second, second_runner)
        await shut(overlay, overlay_runner)
        await shut(core, core_runner)
        acl.stop()


async def test_tvtable_serve_runs_an_overlay_server_on_its_own(tmp_path):
    """The CLI path: ``serve --services overlay`` beside an in-process core, on one Redis."""
    acl = AclRedis(tmp_path, parse_show(show_toml("tv"))).start()
    config = tmp_path / "show.toml"
    config.write_text(tls_show_toml(show_toml("tv", delay=0.5), acl.certs, acl.url))
    show = parse_show(config.read_text())
    core = ShowRuntime(show, tmp_path / "core", environ=acl.environ, services={"core"})
    core_url, core_runner = await serve(core)
    port = free_port()
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("TVTABLE_")},
           "TVTABLE_REDIS_PASSWORD_OVERLAY": acl.passwords["overlay"]}  # only its own password
    log = open(tmp_path / "overlay.log", "wb")
    proc = subprocess.Popen([TVTABLE, "serve", "--config", str(config), "--services", "overlay", "--port", str(port),
                             "--data-dir", str(tmp_path / "overlay")], stdout=log, stderr=subprocess.STDOUT, env=env,
                            start_new_session=True)
    try:
        async with aiohttp.ClientSession() as s:
            deadline = time.monotonic() + 60
            while True:
                assert proc.poll() is None, (tmp_path / "overlay.log").read_text()
                try:
                    async with s.get(f"http://127.0.0.1:{port}/healthz") as r:
                        if r.status == 200:
                            break
                except aiohttp.ClientError:
                    pass
                assert time.monotonic() < deadline, (tmp_path / "overlay.log").read_text()
                await asyncio.sleep(0.1)
            async with s.ws_connect(f"ws://127.0.0.1:{port}/ws/v1/public?table=tv") as ws:
                async with s.post(f"{core_url}/api/v1/tables/tv/commands", json={"type": "start_hand", "button": 2},
                                  headers=DEALER) as r:
                    assert r.status == 200
                while True:
                    msg = json.loads((await ws.receive(timeout=10)).data)
                    if msg.get("hand") == 1:
                        break
        proc.send_signal(signal.SIGTERM)  # docker stop
        assert await asyncio.to_thread(proc.wait, 20) == 0
        text = (tmp_path / "overlay.log").read_text()
        assert "as the overlay user" in text and acl.passwords["overlay"] not in text
    finally:
        if proc.poll() is None:
            proc.kill()
        await shut(core, core_runner)
        acl.stop()


async def test_a_releaser_fails_over_when_its_holder_dies_without_releasing_early_or_twice(tmp_path):
    server = EmbeddedRedis(tmp_path / "data")
    url = await asyncio.to_thread(server.start)
    show = parse_show(show_toml("tv", delay=0.4))
    core = ShowRuntime(show, tmp_path / "data", redis_url=url, environ={}, services={"core"})
    await core.start()
    standby_redis = aioredis.from_url(url)
    while not await standby_redis.get(keys.release_lock("tv")):  # the core's own releaser holds the table first
        await asyncio.sleep(0.02)
    standby_core = ShowRuntime(show, tmp_path / "data", redis_url=url, environ={}, services={"core"}, standby=True)
    await standby_core.start()  # another core process: releasers only, waiting
    standby = standby_core.releasers["tv"]
    try:
        assert not standby.holding and isinstance(standby_core.cores["tv"], OverlayTable)  # no second journal writer
        table = core.cores["tv"]
        await table.submit({"type": "start_hand", "button": 1})
        await asyncio.sleep(1.0)
        first = core.releasers["tv"]
        assert (await standby_redis.get(keys.release_lock("tv"))).decode() == first.holder
        assert int((await standby_redis.hget(keys.release_state("tv"), "cursor"))) == table.state.seq
        # The holder dies (its task stops dead; its lock is left to expire, as after SIGKILL).
        holder_task = next(t for t in core._tasks if t.get_name() == "releaser tv")
        while not holder_task.done():  # redis-py can swallow a cancellation that lands inside a call
            holder_task.cancel()
            await asyncio.wait([holder_task], timeout=0.5)
        died = time.monotonic()
        for _ in range(3):  # the show goes on meanwhile
            seat = table.state.hand.actor
            await table.submit({"type": "fold", "seat": seat})
        end_seq = table.state.seq
        while int(await standby_redis.hget(keys.release_state("tv"), "cursor") or 0) < end_seq:
            assert time.monotonic() - died < LOCK_TTL_MS / 1000 + 5, "the standby did not take over"
            await asyncio.sleep(0.05)
        assert (await standby_redis.get(keys.release_lock("tv"))).decode() == standby.holder
        data = await read_show(url, "tv")
        problems = []
        for name, entries in (("public", data.public), ("commentary", data.commentary)):
            problems += check_stream(name, entries, data)
        assert problems == []
        assert sorted({e.seq for e in data.public}) == list(range(1, end_seq + 1))  # nothing missed
    finally:
        await standby_core.stop()
        await standby_redis.aclose()
        await core.stop()
        await asyncio.to_thread(server.stop)


async def test_a_capture_pc_reads_cards_into_the_core_under_the_cardcam_user(tmp_path):
    """``serve --services cardcam``: the camera worker reads a folder camera and posts to the
    inbox as tvt-cardcam, which may add to the inbox and nothing more."""
    from tests.cardcam.test_worker import card_words, hole, write_folder

    acl = AclRedis(tmp_path, parse_show(show_toml("tv"))).start()
    folder = write_folder(tmp_path / "s4", ("Th", "6d"))
    text = tls_show_toml(show_toml("tv", delay=1), acl.certs, acl.url) + "\n".join([
        "[cardcam]", "k = 3", "n = 5", "[[cameras]]", 'id = "s4"', f'source = "folder:{folder}"', "seat = 4", "fps = 15",
        "loop = true", ""])
    show = parse_show(text)
    core = ShowRuntime(show, tmp_path / "core", environ=acl.environ, services={"core"})
    only_cardcam = {k: v for k, v in acl.environ.items() if k.endswith("CARDCAM")}  # a capture PC holds only its own
    capture = ShowRuntime(show, tmp_path / "capture", environ=only_cardcam, services={"cardcam"},
                          cardcam_options={"threads": True})
    core_url, core_runner = await serve(core)
    try:
        async with aiohttp.ClientSession() as s:
            async with s.post(f"{core_url}/api/v1/tables/tv/commands", json={"type": "start_hand", "button": 1},
                              headers=DEALER) as r:
                assert r.status == 200
        await capture.start()
        assert capture.kind == "cardcam" and not capture.cores and not capture.releasers
        deadline = time.monotonic() + 40
        while "??" in hole(core.cores["tv"], 4):
            assert time.monotonic() < deadline, "the camera's read never reached the core"
            await asyncio.sleep(0.2)
        assert set(hole(core.cores["tv"], 4)) == {"Th", "6d"}
        health = await core.redis.hgetall(keys.health_key())  # the worker wrote its own keys, too
        assert b"s4" in health and not card_words("Th", "6d").search(health[b"s4"].decode())
    finally:
        await capture.stop()
        await shut(core, core_runner)
        acl.stop()


async def test_a_redis_user_without_its_password_is_refused_at_start_naming_the_variable(tmp_path):
    show = parse_show(show_toml("tv").replace("[show]\n", '[show]\nredis_url = "redis://127.0.0.1:1/0"\n', 1)
                      + '[redis]\noverlay_user = "tvt-overlay"\n')
    runtime = ShowRuntime(show, tmp_path / "var", environ={}, services={"overlay"})
    with pytest.raises(ConfigError) as refused:
        await runtime.start()
    assert refused.value.key == "redis.overlay_user" and "TVTABLE_REDIS_PASSWORD_OVERLAY" in refused.value.reason
    await runtime.stop()
