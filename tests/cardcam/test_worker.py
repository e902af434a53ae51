"""The cardcam worker against a real show (embedded Redis, the core following its inbox):
frame sources (folder, video file through OpenCV, pushed JPEGs), K-of-N reads posted to
the inbox, the card room's data, duplicate alerts, dead cameras, bad frames, the process
pool and ``cardcam run``.  Frames are synthetic (``cardcam.synth``) with ground truth."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from broadcast.settings import ConfigError, parse_show
from broadcast.store import keys
from cardcam import cameras as names
from cardcam.cameras import read_cardcam
from cardcam.sources import CaptureSource, FolderSource
from cardcam.vision import process_pool
from cardcam.worker import Worker
from tests.cardcam.conftest import have_decks
from tests.conftest import show_toml, start_show

pytestmark = pytest.mark.skipif(not have_decks(), reason="needs gnome-cards-data and librsvg2-bin")

ROOT = Path(__file__).resolve().parents[2]
DECK = "anglo"  # a training deck the reader reads well at level "easy"


def hand_images(cards: tuple[str, ...], seeds=range(6)) -> list[np.ndarray]:
    """Hole-cam frames of one hand (seeded, so every run is the same)."""
    from cardcam import synth

    return [synth.hand_frame(np.random.default_rng(seed), DECK, len(cards), "easy", cards=cards, thumb=False,
                             upside_down=False, glare=False).image for seed in seeds]


def hand_jpegs(cards: tuple[str, ...], seeds=range(6), quality: int = 88) -> list[bytes]:
    import cv2

    return [cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])[1].tobytes()
            for img in hand_images(cards, seeds)]


def write_folder(folder: Path, cards: tuple[str, ...], seeds=range(6)) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for i, data in enumerate(hand_jpegs(cards, seeds)):
        (folder / f"{i:03d}.jpg").write_bytes(data)
    return folder


def card_words(*cards: str) -> re.Pattern:
    """Matches any of these cards written as a word (As, "As", A♠ …) in a text."""
    glyph = {"s": "\u2660", "h": "\u2665", "d": "\u2666", "c": "\u2663"}
    forms = [c for c in cards] + [c[0] + glyph[c[1]] for c in cards]
    return re.compile(r"(?<![A-Za-z0-9])(" + "|".join(map(re.escape, forms)) + r")(?![A-Za-z0-9])")


async def until(check, timeout: float = 15.0, every: float = 0.1):
    end = time.monotonic() + timeout
    while True:
        value = await check()
        if value:
            return value
        if time.monotonic() > end:
            raise AssertionError(f"timed out after {timeout} s")
        await asyncio.sleep(every)


def hole(core, seat: int) -> tuple[str, ...]:
    hand = core.state.hand
    return tuple(hand.hole[hand.index(seat)])


async def inbox(redis, table: str) -> list[tuple[dict, str]]:
    return [(json.loads(f[b"c"]), f[b"person"].decode()) for _, f in await redis.xrange(keys.inbox(table))]


class Running:
    """A worker running as a task, stopped (and checked not to have crashed) on exit."""

    def __init__(self, worker: Worker) -> None:
        self.worker = worker
        self.task: asyncio.Task | None = None

    async def __aenter__(self) -> Worker:
        self.task = asyncio.get_running_loop().create_task(self.worker.run())
        return self.worker

    async def __aexit__(self, *exc) -> None:
        assert self.task is not None
        if self.task.done() and not self.task.cancelled():
            self.task.result()  # a crash fails the test here
        while not self.task.done():
            self.task.cancel()
            await asyncio.wait([self.task], timeout=1)


@pytest.fixture
async def show(tmp_path):
    server, runner = await start_show(tmp_path)
    await server.core.submit({"type": "start_hand", "button": 1})
    try:
        yield server
    finally:
        await runner.cleanup()
        await server.runtime.stop()


def settings_for(server, *cams: dict, **cardcam):
    data = {"cameras": list(cams)}
    if cardcam:
        data["cardcam"] = cardcam
    return read_cardcam(data, server.runtime.show.tables)


async def test_a_folder_camera_reads_a_hand_into_the_core_through_the_process_pool(show, tmp_path, caplog):
    caplog.set_level(logging.DEBUG)
    truth = ("Th", "6d")
    folder = await asyncio.to_thread(write_folder, tmp_path / "seat1", truth)  # off the show's loop
    settings = settings_for(show, {"id": "seat1-cam", "source": f"folder:{folder}", "seat": 1, "fps": 20, "loop": True},
                            crop_every=0.2)
    redis = show.runtime.redis
    worker = Worker(redis, show.runtime.show, settings, pool=process_pool(1))  # real spawned vision process
    worker._own_pool = True
    async with Running(worker):
        await until(lambda: _async("??" not in hole(show.core, 1)), timeout=25)
        await until(lambda: redis.hexists(names.crops_key(show.table), "1"))
        assert await redis.hget(names.lights_key(show.table), "1") == b"all"
    assert set(hole(show.core, 1)) == set(truth)

    posted = await inbox(redis, show.table)
    kinds = [(c["type"], c["seat"]) for c, _ in posted]
    assert kinds[:2] == [("cards_shown", 1), ("hole_cards", 1)]
    ids = [c["id"] for c, _ in posted]
    assert len(set(ids)) == len(ids) and all(i.startswith("cardcam-") for i in ids)
    assert all(person == "cardcam main (camera)" for _, person in posted)
    seen = next(c for c, _ in posted if c["type"] == "hole_cards")
    assert seen["source"] == "camera" and set(seen["cards"]) <= set(truth) | {"??"}

    # The card room's data (secret keys) and the light (no card) for live screens.
    read = json.loads(await redis.hget(names.seats_key(show.table), "1"))
    assert read["light"] == "all" and set(read["cards"]) == set(truth) and read["camera"] == "seat1-cam"
    assert (await redis.hget(names.crops_key(show.table), "1"))[:2] == b"\xff\xd8"
    # The worker has stopped: the camera board says so, and no light stays on without a picture.
    assert await redis.hget(names.lights_key(show.table), "1") == b"none"
    health = json.loads(await redis.hget(names.health_key(), "seat1-cam"))
    assert health["status"] == "stopped" and health["seats"] == ["seat 1"]

    # Nothing outside the secret keys names a card: not the log, not health or lights.
    leak = card_words(*truth)
    assert not [r.getMessage() for r in caplog.records if leak.search(r.getMessage())]
    assert not leak.search(json.dumps(health))


async def test_a_hand_held_still_is_followed_from_frame_to_frame_by_the_worker(show, tmp_path, caplog):
    """The worker gives each frame the track of the camera's last read, so a hand held
    still is re-read where it was; the track's cards stay out of logs, health and lights."""
    import cv2

    from cardcam import synth

    caplog.set_level(logging.DEBUG)
    truth = ("9c", "Jd")
    clip = synth.hand_clip(np.random.default_rng(12), DECK, 2, "easy", frames=12, cards=truth)
    folder = tmp_path / "seat1"
    folder.mkdir()
    for i, f in enumerate(clip):
        cv2.imwrite(str(folder / f"{i:03d}.jpg"), f.image)
    settings = settings_for(show, {"id": "seat1-cam", "source": f"folder:{folder}", "seat": 1, "fps": 25, "loop": True})
    redis = show.runtime.redis
    worker = Worker(redis, show.runtime.show, settings, pool=ThreadPoolExecutor(1))
    async with Running(worker):
        await until(lambda: _async("??" not in hole(show.core, 1)), timeout=25)
        await until(lambda: _async(worker.stats["seat1-cam"]["followed"] >= 3), timeout=25)
    assert set(hole(show.core, 1)) == set(truth)
    stats = worker.stats["seat1-cam"]
    assert 3 <= stats["followed"] <= stats["processed"]
    health = json.loads(await redis.hget(names.health_key(), "seat1-cam"))
    leak = card_words(*truth)
    assert not leak.search(json.dumps(health))
    assert not [r.getMessage() for r in caplog.records if leak.search(r.getMessage())]


async def _async(value):
    return value


async def test_a_video_file_through_videocapture_and_a_dead_camera_that_never_stops_the_worker(show, tmp_path):
    import cv2

    truth = ("As", "9c")
    video = tmp_path / "seat2.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 10, (960, 540))
    for image in await asyncio.to_thread(hand_images, truth):
        writer.write(image)
    writer.release()
    late = tmp_path / "later"  # a folder that appears only later (a camera that comes back)
    settings = settings_for(
        show,
        {"id": "video", "source": str(video), "seat": 2, "fps": 20, "loop": True},
        {"id": "dead", "source": str(tmp_path / "no-such-camera.mp4"), "seat": 3},
        {"id": "late", "source": f"folder:{late}", "seat": 4, "fps": 20, "loop": True},
    )
    cams = {c.id: c for c in settings.cameras}
    sources = {
        "video": CaptureSource("video", str(video), fps=20, loop=True),
        "dead": CaptureSource("dead", cams["dead"].source, min_backoff=0.05, max_backoff=0.2),
        "late": FolderSource("late", late, fps=20, loop=True, min_backoff=0.05, max_backoff=0.2),
    }
    redis = show.runtime.redis
    worker = Worker(redis, show.runtime.show, settings, pool=ThreadPoolExecutor(2), sources=sources)

    async def health(cam):
        raw = await redis.hget(names.health_key(), cam)
        return json.loads(raw) if raw else {}

    async with Running(worker):
        await until(lambda: _async("??" not in hole(show.core, 2)), timeout=20)
        down = await until(lambda: _status(health, "dead", "down"))
        assert "no-such-camera.mp4" in down["reason"] and "retrying" in down["reason"]
        await until(lambda: _async(sources["dead"].stats["reconnects"] >= 3))
        assert (await health("late"))["status"] == "down"
        await asyncio.to_thread(write_folder, late, ("Jd", "8s"), range(2))
        await until(lambda: _status(health, "late", "live"))
    assert set(hole(show.core, 2)) == set(truth)
    assert await redis.hget(names.lights_key(show.table), "3") == b"none"


async def _status(health, cam, status):
    h = await health(cam)
    return h if h.get("status") == status else None


async def test_the_same_card_at_two_seats_is_a_camera_check_whose_card_only_the_secure_keys_hold(show, tmp_path, caplog):
    caplog.set_level(logging.DEBUG)
    f1 = await asyncio.to_thread(write_folder, tmp_path / "s1", ("As", "Kd"))
    f2 = await asyncio.to_thread(write_folder, tmp_path / "s2", ("As", "9c"))
    settings = settings_for(show, {"id": "c1", "source": f"folder:{f1}", "seat": 1, "fps": 20, "loop": True},
                            {"id": "c2", "source": f"folder:{f2}", "seat": 2, "fps": 20, "loop": True})
    redis = show.runtime.redis
    async with Running(Worker(redis, show.runtime.show, settings, pool=ThreadPoolExecutor(2))):
        alerts = await until(lambda: _dup(redis, show.table), timeout=25)
    dup = alerts[0]
    assert dup["card"] == "As" and sorted(dup["seats"]) == [1, 2] and len(dup["id"]) == 16

    posted = await inbox(redis, show.table)
    checks = [c for c, _ in posted if c["type"] == "camera_check"]
    assert checks and sorted(checks[0]["seats"]) == [1, 2] and checks[0]["board"] is False
    assert "As" not in json.dumps(checks)
    # The core took the first read; the second seat's clashing read was refused, not guessed.
    assert "As" not in hole(show.core, 1) or "As" not in hole(show.core, 2)
    leak = card_words("As", "Kd", "9c")
    assert not [r.getMessage() for r in caplog.records if leak.search(r.getMessage())]
    lights = await redis.hgetall(names.lights_key(show.table))
    assert not leak.search(json.dumps({k.decode(): v.decode() for k, v in lights.items()}))


async def _dup(redis, table):
    raw = await redis.hget(names.alerts_key(table), "main")
    alerts = [a for a in json.loads(raw or "[]") if a["kind"] == "duplicate"]
    return alerts or None


async def test_pushed_frames_bad_ones_are_counted_and_the_reads_still_arrive(show):
    redis = show.runtime.redis
    settings = settings_for(show, {"id": "pushed", "source": "push", "seat": 3})
    truth = ("Ah", "2c")
    good = await asyncio.to_thread(hand_jpegs, truth)
    bad = [good[0][:200] + b"\x00" * 5000 + b"\xff\xd9", b"\xff\xd8garbage\xff\xd9"]
    worker = Worker(redis, show.runtime.show, settings, pool=ThreadPoolExecutor(1))
    async with Running(worker):
        await until(lambda: redis.exists(names.alive_key("pushed")))  # the ingest may now accept frames

        async def push_until_read():
            for data in bad + good:
                await redis.xadd(names.frames_key("pushed"), {"jpeg": data, "ts": int(time.time() * 1000)})
                await asyncio.sleep(0.15)
            return "??" not in hole(show.core, 3)

        await until(push_until_read, timeout=30, every=0)
    assert set(hole(show.core, 3)) == set(truth)
    assert worker.stats["pushed"]["undecodable"] >= 1
    assert worker.sources["pushed"].status == "live"


def test_camera_config_is_checked_key_by_key():
    show = parse_show(show_toml("tv"))
    ok = read_cardcam({"cardcam": {"k": 2, "n": 4}, "cameras": [
        {"id": "rail", "source": "device:0", "group": "rail", "regions": [
            {"seat": 1, "box": [0.0, 0.0, 0.5, 1.0]}, {"seat": 2, "box": [0.5, 0.0, 0.5, 1.0]}]},
        {"id": "board", "source": "rtsp://10.0.0.9/s", "board": True},
        {"id": "s3", "source": "push", "seat": 3}]}, show.tables)
    assert (ok.k, ok.n) == (2, 4)
    assert [c.kind for c in ok.cameras] == ["device", "capture", "push"]
    assert ok.cameras[0].seats == (1, 2) and ok.cameras[1].seats == ("board",)
    assert set(ok.groups()) == {"rail", "main"}

    def refused(data) -> ConfigError:
        with pytest.raises(ConfigError) as info:
            read_cardcam(data, show.tables)
        return info.value

    assert refused({"cameras": [{"id": "a", "source": "push", "seat": 9}]}).key == "cameras[0].seat"
    assert refused({"cameras": [{"id": "a", "source": "push", "seat": 1, "zoom": 2}]}).key == "cameras[0].zoom"
    assert refused({"cameras": [{"id": "a", "source": "push", "seat": 1},
                                {"id": "b", "source": "push", "seat": 1}]}).reason.startswith("seat 1 of table")
    assert refused({"cameras": [{"id": "a", "source": "push", "regions": [{"seat": 1, "box": [0.6, 0, 0.5, 1]}]}]}
                   ).key == "cameras[0].regions[0].box"
    assert refused({"cameras": [{"id": "a b", "source": "push", "seat": 1}]}).key == "cameras[0].id"
    assert refused({"cardcam": {"k": 6, "n": 5}}).key == "cardcam.k"
    assert refused({"cameras": [{"id": "a", "source": "push"}]}).key == "cameras[0]"


async def test_cardcam_run_reads_the_show_file_and_posts_from_its_own_process(show, tmp_path):
    folder = await asyncio.to_thread(write_folder, tmp_path / "s4", ("Th", "6d"))
    config = tmp_path / "show.toml"
    config.write_text(show_toml(show.table) + f"""
[cardcam]
k = 3
n = 5

[[cameras]]
id = "s4"
source = "folder:{folder}"
seat = 4
fps = 15
loop = true
""")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    check = subprocess.run([sys.executable, "-m", "cardcam", "run", "--config", str(config), "--check", "--json"],
                           capture_output=True, text=True, env=env, timeout=60)
    assert check.returncode == 0, check.stderr
    assert json.loads(check.stdout)["groups"] == {"main": [{"camera": "s4", "table": show.table, "kind": "folder",
                                                            "seats": ["seat 4"]}]}
    nothing = subprocess.run([sys.executable, "-m", "cardcam", "run", "--config", str(config),
                              "--data-dir", str(tmp_path / "nowhere")],
                             capture_output=True, text=True, env=env, timeout=60)
    assert nothing.returncode == 2 and "no show is running" in nothing.stderr

    url = show.runtime.embedded.url
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "cardcam", "run", "--config", str(config), "--redis", url, "--threads",
        "--seconds", "25", env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
    try:
        await until(lambda: _async("??" not in hole(show.core, 4)), timeout=25)
    finally:
        if proc.returncode is None:
            proc.terminate()
        out, _ = await proc.communicate()
    assert set(hole(show.core, 4)) == {"Th", "6d"}
    assert not card_words("Th", "6d").search(out.decode()), out.decode()


async def test_a_group_cancelled_stops_its_cameras_first_and_then_ends_cancelled(show, tmp_path):
    """The show stopping, or a signal to ``cardcam run``, cancels a group: its cameras stop
    cleanly (their health says so), and the caller then sees the cancel it made, so a
    supervisor knows the group was stopped and did not just finish."""
    from cardcam.worker import run_group

    folder = await asyncio.to_thread(write_folder, tmp_path / "seat2", ("9c", "9d"), range(2))
    settings = settings_for(show, {"id": "seat2-cam", "source": f"folder:{folder}", "seat": 2, "fps": 10, "loop": True})
    redis = show.runtime.redis
    group = asyncio.get_running_loop().create_task(
        run_group(show.runtime.show, settings, None, show.runtime.embedded.url, threads=True))

    async def live():
        raw = await redis.hget(names.health_key(), "seat2-cam")
        return raw is not None and json.loads(raw)["status"] == "live"

    await until(live, timeout=30)
    group.cancel()
    with pytest.raises(asyncio.CancelledError):
        await group
    assert group.cancelled()
    health = json.loads(await redis.hget(names.health_key(), "seat2-cam"))
    assert health["status"] == "stopped"
