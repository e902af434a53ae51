"""The vision job: one camera frame decoded, cut to its seats' regions and read.

It runs in a pool of spawned processes (:func:`process_pool`), one per core, so the
vision work stays off the worker's event loop.  In and out it is plain, picklable data:
:func:`analyse` takes a job (the JPEG or image, the regions, the tracks of the camera's
last frame) and returns each region's read, its card-room crop and its track.  A frame
none of whose regions shows card-face paper is answered from a quarter-size decode.
"""
from __future__ import annotations

import asyncio
import os
import time
from concurrent.futures import Executor, ProcessPoolExecutor
from pathlib import Path
from typing import Any

from .tracker import UNKNOWN

#: the width of a seat's crop for the secure card room, in pixels
CROP_WIDTH = 360

_MODELS: dict[str | None, Any] = {}
_PROFILES: dict[str, Any] = {}


def _model(path: str | None):
    if path not in _MODELS:
        from .model import get_model

        _MODELS[path] = get_model(Path(path) if path else None)
    return _MODELS[path]


def _profile(path: str | None):
    if not path:
        return None
    if path not in _PROFILES:
        from .calibrate import load_profile

        _PROFILES[path] = load_profile(path)
    return _PROFILES[path]


def warm(model_path: str | None = None, profile: str | None = None) -> None:
    """Load the model (and profile) once per pool process, before the first frame."""
    import cv2  # imported here so the first frame does not pay for it

    cv2.setNumThreads(1)  # one vision process is one core's work; the pool has one per core

    _model(model_path)
    _profile(profile)


def _vision_process(parent_pid: int, model_path: str | None, profile: str | None) -> None:
    """A pool process's start: leave when the worker that made it is gone, then warm up.

    A worker killed outright (SIGKILL, OOM killer, a crash) cannot shut its pool down, and
    its vision processes would go on eating the capture PC's cores. A daemon thread
    watching the parent pid holds whichever thread made the pool (a parent-death signal
    follows the creating thread, not the process)."""
    import threading

    def watch() -> None:
        while os.getppid() == parent_pid:
            time.sleep(0.5)
        os._exit(0)

    if os.getppid() != parent_pid:
        os._exit(0)
    threading.Thread(target=watch, name="cardcam-parent-watch", daemon=True).start()
    warm(model_path, profile)


def crop_region(image, box):
    """The part of ``image`` inside ``box`` (x, y, w, h fractions), or all of it."""
    if box is None:
        return image
    h, w = image.shape[:2]
    x0, y0 = int(round(box[0] * w)), int(round(box[1] * h))
    x1, y1 = int(round((box[0] + box[2]) * w)), int(round((box[1] + box[3]) * h))
    return image[max(0, y0):min(h, y1), max(0, x0):min(w, x1)]


def analyse(job: dict) -> dict:
    """Decode, crop and read one frame. Picklable in and out (it runs in a process pool).

    ``job``: ``image`` (BGR array) or ``jpeg`` (bytes), ``regions`` [(seat, box, n_cards)],
    ``crops`` (bool: also return a small JPEG per region), ``model``, ``profile``, and
    ``tracks`` {seat: track} from the camera's last frame. The result's ``tracks`` go with
    the camera's next frame: a hand held still is then re-read where it was, in a few ms.
    """
    import cv2
    import numpy as np

    from .recognize import Track, recognize

    t0 = time.perf_counter()
    image = job.get("image")
    if image is None:
        data = np.frombuffer(job.get("jpeg") or b"", np.uint8)
        if data.size and not job.get("tracks") and not job.get("crops"):
            felt = _felt_only(data, job["regions"], t0)
            if felt is not None:
                return felt
        image = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
        if image is None:
            return {"ok": False, "error": "not a decodable JPEG"}
    model = _model(job.get("model"))
    profile = _profile(job.get("profile"))
    reads: list[tuple[Any, dict | None]] = []
    crops: dict[Any, bytes] = {}
    tracks_in = job.get("tracks") or {}
    tracks: dict[Any, list] = {}
    for seat, box, n_cards in job["regions"]:
        part = crop_region(image, box)
        if part.size == 0 or min(part.shape[:2]) < 16:
            reads.append((seat, None))
            continue
        track = Track.from_json(tracks_in[seat]) if seat in tracks_in else None
        r = recognize(part, n_cards, model=model, profile=profile, track=track)
        if r.track is not None:
            tracks[seat] = r.track.to_json()
        reads.append((seat, _raw(r)))
        if job.get("crops"):
            ph, pw = part.shape[:2]
            scale = min(1.0, CROP_WIDTH / pw)
            small = cv2.resize(part, (max(1, int(pw * scale)), max(1, int(ph * scale))),
                               interpolation=cv2.INTER_AREA) if scale < 1 else part
            ok, enc = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, 72])
            if ok:
                crops[seat] = enc.tobytes()
    return {"ok": True, "reads": reads, "crops": crops, "tracks": tracks,
            "ms": round((time.perf_counter() - t0) * 1000, 1), "size": [int(image.shape[1]), int(image.shape[0])]}


def _raw(r) -> dict:
    """A :class:`cardcam.recognize.Read` as plain data, for the worker's process."""
    return {"shown": bool(r.shown), "faces": int(r.faces), "cards": list(r.cards),
            "confidence": [float(c) for c in r.confidence], "ms": round(r.ms, 1), "followed": bool(r.followed)}


def _felt_only(data, regions, t0: float) -> dict | None:
    """:func:`analyse`'s result for a JPEG none of whose regions shows card-face paper,
    decoded at a quarter of its size only (the paper gate's own thumbnail size): the felt
    between showings, most of a hole cam's frames, costs no full decode. None when a
    region may show a card (or the JPEG does not decode): read it in full."""
    import cv2

    from .maps import paper_map, shows_paper
    from .recognize import Read

    small = cv2.imdecode(data, cv2.IMREAD_REDUCED_COLOR_4)
    if small is None:
        return None
    parts = [(seat, crop_region(small, box), n_cards) for seat, box, n_cards in regions]
    if any(part.size and 4 * min(part.shape[:2]) >= 16 and shows_paper(paper_map(part)) for _, part, _ in parts):
        return None
    ms = (time.perf_counter() - t0) * 1000
    # as analyse: a region too small to read has no read
    reads = [(seat, _raw(Read(False, 0, (UNKNOWN,) * n_cards, (0.0,) * n_cards, ms=ms))
              if part.size and 4 * min(part.shape[:2]) >= 16 else None) for seat, part, n_cards in parts]
    return {"ok": True, "reads": reads, "crops": {}, "tracks": {}, "ms": round(ms, 1),
            "size": [4 * int(small.shape[1]), 4 * int(small.shape[0])]}


def process_pool(jobs: int | None = None, *, model_path: str | None = None,
                 profile: str | None = None) -> ProcessPoolExecutor:
    """A pool of vision processes (spawned: no inherited event loop or threads)."""
    import multiprocessing

    jobs = jobs or max(1, os.cpu_count() or 1)
    # Spawned processes read these when numpy loads. One BLAS thread each: with a thread
    # pool of its own per process, the classifier's small matrix products ran about 15x
    # slower on a busy 2-core machine (threads spinning against the other processes).
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, "1")
    return ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("spawn"),
                               initializer=_vision_process, initargs=(os.getpid(), model_path, profile))


async def shutdown_pool(pool: Executor, timeout: float = 3.0) -> None:
    """Stop a vision pool without waiting on a frame; pool processes that linger are ended."""
    processes = list(getattr(pool, "_processes", None) and pool._processes.values() or ())  # type: ignore[attr-defined]
    pool.shutdown(wait=False, cancel_futures=True)
    end = time.monotonic() + timeout
    while any(p.is_alive() for p in processes) and time.monotonic() < end:
        await asyncio.sleep(0.05)
    for p in processes:
        if p.is_alive():
            p.terminate()  # our own pool process, by its handle
            p.join(1)
