"""Frame sources: where a camera's frames come from.

* :class:`CaptureSource`: OpenCV ``VideoCapture`` on a device index, a video file or an
  RTSP/HTTP URL.
* :class:`FolderSource`: a folder of images, in name order.
* :class:`PushSource`: JPEG frames a capture PC pushed to ``POST
  /api/v1/cardcam/{camera}/frames`` or the WebSocket ``/ws/v1/cardcam/{camera}``; the
  web server puts them on a short Redis stream and this source reads it.

Every source hands over only its **latest** frame: when the reader is slower than the
camera, older frames are dropped and counted (``stats["dropped"]``), so a read is never
made from a stale picture.  A source never raises to its reader: a dead camera is
reported through ``on_status(status, reason)`` (``"live"``, ``"down"``, ``"ended"``) and
reopened with a growing backoff (0.5 s doubling to ``max_backoff``).

Blocking work (``VideoCapture.read``, ``imread``) runs on one thread per source; nothing
here blocks the event loop.  Reasons and log lines describe the camera, never the
cards in its frames.
"""
from __future__ import annotations

import asyncio
import logging
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np

log = logging.getLogger("tvtable.cardcam.sources")

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp")
StatusCallback = Callable[[str, str], None]


@dataclass
class Frame:
    """One frame: a decoded BGR image, or the JPEG bytes as pushed (decoded by the reader's pool)."""

    ts: float                       # capture time, seconds since the epoch
    image: np.ndarray | None = None
    jpeg: bytes | None = None
    seq: int = 0


class Source:
    """Base: the latest-frame slot, counters and status reporting."""

    kind = "source"

    def __init__(self, camera: str, *, on_status: StatusCallback | None = None,
                 min_backoff: float = 0.5, max_backoff: float = 10.0) -> None:
        self.camera = camera
        self.on_status = on_status
        self.min_backoff = min_backoff
        self.max_backoff = max_backoff
        self.status = "starting"
        self.reason = ""
        self.stats = {"frames": 0, "dropped": 0, "reconnects": 0, "errors": 0}
        self._slot: Frame | None = None
        self._event: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._seq = 0
        self._closed = False

    # -- for the reader ------------------------------------------------------------------
    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._event = asyncio.Event()

    async def next_frame(self) -> Frame | None:
        """The newest frame not yet taken; waits for one. None once the source has ended."""
        assert self._event is not None, "start() the source first"
        while True:
            if self._slot is not None:
                frame, self._slot = self._slot, None
                self._event.clear()
                return frame
            if self._closed or self.status == "ended":
                return None
            await self._event.wait()
            self._event.clear()

    def newest(self, frame: Frame) -> Frame:
        """``frame``, taken earlier, or a newer one that came while it waited to be read
        (``frame`` is then dropped and counted)."""
        if self._slot is None:
            return frame
        newer, self._slot = self._slot, None
        if self._event is not None:
            self._event.clear()
        self.stats["dropped"] += 1
        return newer

    async def close(self) -> None:
        self._closed = True
        if self._event is not None:
            self._event.set()

    # -- for the producer (event loop thread) --------------------------------------------
    def _offer(self, frame: Frame) -> None:
        self._seq += 1
        frame.seq = self._seq
        self.stats["frames"] += 1
        if self._slot is not None:
            self.stats["dropped"] += 1  # the reader was busy: only the newest frame counts
        self._slot = frame
        if self._event is not None:
            self._event.set()

    def _set_status(self, status: str, reason: str = "") -> None:
        if status == self.status and reason == self.reason:
            return
        was = self.status
        self.status, self.reason = status, reason
        if status == "down":
            log.warning("camera %s is down: %s", self.camera, reason)
        elif status == "live" and was == "down":
            log.info("camera %s is back", self.camera)
        if self.on_status is not None:
            try:
                self.on_status(status, reason)
            except Exception:  # noqa: BLE001 - a reporting problem must not stop the camera
                log.exception("camera %s: status report failed", self.camera)
        if self._event is not None:
            self._event.set()

    def backoff(self, attempt: int) -> float:
        return min(self.max_backoff, self.min_backoff * (2 ** max(0, attempt - 1)))


class ThreadedSource(Source):
    """A source whose blocking reads run on its own daemon thread."""

    def __init__(self, camera: str, **kw: Any) -> None:
        super().__init__(camera, **kw)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    async def start(self) -> None:
        await super().start()
        self._thread = threading.Thread(target=self._guarded, name=f"cardcam-{self.camera}", daemon=True)
        self._thread.start()

    async def close(self) -> None:
        self._stop.set()
        await super().close()
        if self._thread is not None:
            await asyncio.to_thread(self._thread.join, 5.0)

    # thread side -------------------------------------------------------------------------
    def _emit(self, frame: Frame) -> None:
        loop = self._loop
        if loop is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(self._offer, frame)
            except RuntimeError:  # the loop is shutting down
                self._stop.set()

    def _status(self, status: str, reason: str = "") -> None:
        loop = self._loop
        if loop is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(self._set_status, status, reason)
            except RuntimeError:
                self._stop.set()

    def _guarded(self) -> None:
        try:
            self._run()
        except Exception as exc:  # noqa: BLE001 - a source thread must never die silently
            log.exception("camera %s: source thread failed", self.camera)
            self._status("down", f"source failed: {type(exc).__name__}")

    def _run(self) -> None:
        raise NotImplementedError

    def _wait(self, seconds: float) -> bool:
        """Sleep unless stopped; True when the source was stopped."""
        return self._stop.wait(seconds)


def _open_capture(source: str | int):
    import cv2

    if isinstance(source, str) and source.startswith("device:"):
        source = int(source[7:])
    cap = cv2.VideoCapture(source)
    return cap


class CaptureSource(ThreadedSource):
    """OpenCV ``VideoCapture``: a device index, a video file, or an RTSP/HTTP URL.

    A live source (device or URL) is read as fast as it delivers, so its buffer never
    lags; only ``fps`` frames a second are decoded and handed over.  A file is paced at
    ``fps`` and, with ``loop``, starts again at its end; otherwise the source ends.
    """

    kind = "capture"

    def __init__(self, camera: str, source: str | int, *, fps: float = 10.0, loop: bool = False,
                 opener: Callable[[str | int], Any] = _open_capture, **kw: Any) -> None:
        super().__init__(camera, **kw)
        self.source = source
        self.fps = fps
        self.loop = loop
        self.opener = opener
        self.is_file = isinstance(source, str) and not source.startswith("device:") and "://" not in source

    def describe(self) -> str:
        if isinstance(self.source, int) or str(self.source).startswith("device:"):
            return f"device {str(self.source).removeprefix('device:')}"
        if self.is_file:
            return f"file {os.path.basename(str(self.source))}"
        # a URL may carry a password: name only its scheme and host
        from urllib.parse import urlsplit

        parts = urlsplit(str(self.source))
        return f"{parts.scheme} stream on {parts.hostname or 'unknown host'}"

    def _run(self) -> None:
        attempt = 0
        period = 1.0 / self.fps
        while not self._stop.is_set():
            cap = None
            try:
                cap = self.opener(self.source)
                if cap is None or not cap.isOpened():
                    raise OSError(f"cannot open {self.describe()}")
                next_at = time.monotonic()
                got_any = False
                while not self._stop.is_set():
                    if self.is_file:
                        now = time.monotonic()
                        if now < next_at and self._wait(next_at - now):
                            return
                        next_at = max(next_at + period, time.monotonic() - period)
                        ok, image = cap.read()
                        if not ok:
                            if not got_any:
                                raise OSError(f"no frame could be read from {self.describe()}")
                            if not self.loop:
                                self._status("ended", f"{self.describe()} ended")
                                return
                            cap.set(1, 0)  # CAP_PROP_POS_FRAMES: replay from the start
                            got_any = False
                            continue
                    else:
                        if not cap.grab():  # blocks at the camera's rate; keeps its buffer fresh
                            raise OSError(f"{self.describe()} stopped sending frames")
                        now = time.monotonic()
                        if now < next_at:
                            continue  # not decoded: only fps frames a second are read
                        next_at = max(next_at + period, now)
                        ok, image = cap.retrieve()
                        if not ok:
                            raise OSError(f"{self.describe()} sent a frame that cannot be decoded")
                    if image is None or getattr(image, "size", 0) == 0:
                        self.stats["errors"] += 1
                        continue
                    got_any = True
                    attempt = 0
                    if self.status != "live":
                        self._status("live")
                    self._emit(Frame(ts=time.time(), image=image))
            except Exception as exc:  # noqa: BLE001 - a dead camera is reported, never raised
                attempt += 1
                self.stats["reconnects"] += 1
                wait = self.backoff(attempt)
                reason = str(exc) if isinstance(exc, OSError) else f"{self.describe()}: {type(exc).__name__}"
                self._status("down", f"{reason}; retrying in {wait:g} s")
                if self._wait(wait):
                    return
            finally:
                if cap is not None:
                    try:
                        cap.release()
                    except Exception:  # noqa: BLE001
                        pass


class FolderSource(ThreadedSource):
    """A folder of images, read in name order at ``fps``; with ``loop`` it starts again."""

    kind = "folder"

    def __init__(self, camera: str, folder: str | os.PathLike[str], *, fps: float = 10.0,
                 loop: bool = False, **kw: Any) -> None:
        super().__init__(camera, **kw)
        self.folder = Path(folder)
        self.fps = fps
        self.loop = loop

    def _files(self) -> list[Path]:
        return sorted(p for p in self.folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES and p.is_file())

    def _run(self) -> None:
        import cv2

        attempt = 0
        period = 1.0 / self.fps
        while not self._stop.is_set():
            try:
                if not self.folder.is_dir():
                    raise OSError(f"no folder {self.folder.name!r}")
                files = self._files()
                if not files:
                    raise OSError(f"no images in folder {self.folder.name!r}")
                attempt = 0
                next_at = time.monotonic()
                for path in files:
                    now = time.monotonic()
                    if now < next_at and self._wait(next_at - now):
                        return
                    next_at = max(next_at + period, time.monotonic() - period)
                    data = np.fromfile(path, np.uint8) if path.exists() else np.empty(0, np.uint8)
                    image = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
                    if image is None:
                        self.stats["errors"] += 1  # unreadable file: skipped and counted
                        continue
                    if self.status != "live":
                        self._status("live")
                    self._emit(Frame(ts=time.time(), image=image))
                if not self.loop:
                    self._status("ended", f"folder {self.folder.name!r} has been read")
                    return
            except Exception as exc:  # noqa: BLE001
                attempt += 1
                self.stats["reconnects"] += 1
                wait = self.backoff(attempt)
                reason = str(exc) if isinstance(exc, OSError) else type(exc).__name__
                self._status("down", f"{reason}; retrying in {wait:g} s")
                if self._wait(wait):
                    return


class PushSource(Source):
    """Frames a capture PC pushed through the web server (a short Redis stream per camera).

    While it runs it keeps ``alive_key(camera)`` set, so the web server accepts frames
    for this camera; it is ``down`` when no frame came for ``timeout`` seconds.
    """

    kind = "push"

    def __init__(self, camera: str, redis: Any, *, timeout: float = 5.0, alive_ttl: float = 10.0,
                 **kw: Any) -> None:
        super().__init__(camera, **kw)
        self.redis = redis
        self.timeout = timeout
        self.alive_ttl = alive_ttl
        self._task: asyncio.Task | None = None

    async def start(self) -> None:
        await super().start()
        self._task = asyncio.get_running_loop().create_task(self._run(), name=f"push source {self.camera}")

    async def close(self) -> None:
        await super().close()
        task = self._task
        while task is not None and not task.done():  # XREAD can swallow one cancel
            task.cancel()
            await asyncio.wait([task], timeout=0.5)

    async def _run(self) -> None:
        from .cameras import alive_key, frames_key

        stream = frames_key(self.camera)
        last = "$"
        attempt = 0
        last_frame = time.monotonic()
        next_alive = 0.0
        self._set_status("waiting", "no frame pushed yet")
        while not self._closed:
            try:
                now = time.monotonic()
                if now >= next_alive:
                    await self.redis.set(alive_key(self.camera), "1", px=int(self.alive_ttl * 1000))
                    next_alive = now + self.alive_ttl / 3
                reply = await self.redis.xread({stream: last}, block=500, count=50)
                attempt = 0
                entries = [e for _, es in (reply or []) for e in es]
                if entries:
                    last = entries[-1][0]
                    self.stats["dropped"] += len(entries) - 1  # older frames were overtaken
                    entry_id, fields = entries[-1]
                    jpeg = fields.get(b"jpeg")
                    ts_ms = fields.get(b"ts")
                    if jpeg:
                        ts = int(ts_ms) / 1000 if ts_ms else int(entry_id.split(b"-")[0]) / 1000
                        last_frame = time.monotonic()
                        if self.status != "live":
                            self._set_status("live")
                        self._offer(Frame(ts=ts, jpeg=bytes(jpeg)))
                elif self.status == "live" and time.monotonic() - last_frame > self.timeout:
                    self._set_status("down", f"no frame pushed for {self.timeout:g} s")
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - Redis away: back off and retry
                attempt += 1
                self.stats["reconnects"] += 1
                wait = self.backoff(attempt)
                self._set_status("down", f"cannot read pushed frames ({type(exc).__name__}); retrying in {wait:g} s")
                await asyncio.sleep(wait)
        try:
            await self.redis.delete(alive_key(self.camera))
        except Exception:  # noqa: BLE001
            pass


def make_source(camera: Any, redis: Any = None, **kw: Any) -> Source:
    """The source for a :class:`cardcam.cameras.Camera`."""
    kind = camera.kind
    if kind == "push":
        if redis is None:
            raise ValueError("a push camera needs Redis")
        return PushSource(camera.id, redis, **kw)
    if kind == "folder":
        return FolderSource(camera.id, str(camera.source)[len("folder:"):], fps=camera.fps, loop=camera.loop, **kw)
    return CaptureSource(camera.id, camera.source, fps=camera.fps, loop=camera.loop, **kw)
