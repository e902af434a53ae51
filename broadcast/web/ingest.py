"""Frame ingest: capture PCs push JPEG frames for the cardcam worker (role ``camera``).

* ``POST /api/v1/cardcam/{camera}/frames`` with ``Content-Type: image/jpeg`` and the
  JPEG as the body: ``202 {"accepted": true, "camera", "frame"}``.
* WebSocket ``/ws/v1/cardcam/{camera}``: every binary message is one JPEG frame.  The
  server answers only when something is wrong (``{"error", "message"}``) or frames were
  dropped (``{"dropped": N, "message"}``, at most once a second); text messages are
  refused with an error, and a message over the size limit closes the socket (1009).

Frames go on a short Redis stream per camera (the newest few only), which the worker
that reads that camera follows (``cardcam.sources.PushSource``).  The camera role posts
and reads nothing back: no answer here carries anything from a frame.

Bad input is answered plainly and counted in ``tvt:cardcam:ingest:{camera}`` (counters
only): a wrong content type (415), an empty, truncated or corrupt JPEG (400), a frame
over :data:`MAX_FRAME_BYTES` (413), more than ``max_fps`` frames a second (429, or
dropped on the socket), and a camera no worker reads (503).
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass, field
from typing import Any

from aiohttp import WSMsgType, web

log = logging.getLogger("tvtable.ingest")

MAX_FRAME_BYTES = 4 * 1024 * 1024
MAX_SIDE = 8192
STREAM_LEN = 4           # frames kept per camera: the worker only ever wants the newest
DEFAULT_MAX_FPS = 30.0
BURST = 10               # frames a camera may send at once before the rate limit applies
ALIVE_CACHE_S = 1.0

STATE = web.AppKey("cardcam_ingest", Any)


class BadFrame(Exception):
    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


def jpeg_size(data: bytes) -> tuple[int, int]:
    """(width, height) of a complete baseline or progressive JPEG; raises ``BadFrame``.

    Checks the start and end markers and walks the segments to the frame header, so an
    empty, truncated or non-JPEG body is refused without decoding the picture."""
    if not data:
        raise BadFrame(400, "empty_frame", "the frame is empty: send one JPEG image as the body")
    if len(data) < 4 or data[:2] != b"\xff\xd8":
        raise BadFrame(400, "not_jpeg", "the frame is not a JPEG (it does not start with the JPEG marker)")
    if b"\xff\xd9" not in data[-64:]:
        raise BadFrame(400, "truncated_jpeg", "the JPEG is truncated: its end marker is missing")
    i = 2
    n = len(data)
    while i + 4 <= n:
        if data[i] != 0xFF:
            raise BadFrame(400, "corrupt_jpeg", "the JPEG is corrupt: a segment marker is missing")
        marker = data[i + 1]
        if marker == 0xFF:  # fill byte
            i += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            i += 2
            continue
        length = int.from_bytes(data[i + 2:i + 4], "big")
        if length < 2 or i + 2 + length > n:
            raise BadFrame(400, "corrupt_jpeg", "the JPEG is corrupt: a segment runs past the end")
        if marker in (0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF):
            if length < 7:
                raise BadFrame(400, "corrupt_jpeg", "the JPEG is corrupt: its frame header is too short")
            height = int.from_bytes(data[i + 5:i + 7], "big")
            width = int.from_bytes(data[i + 7:i + 9], "big")
            if width == 0 or height == 0:
                raise BadFrame(400, "zero_size", "the JPEG has no pixels (width or height is 0)")
            if width > MAX_SIDE or height > MAX_SIDE:
                raise BadFrame(413, "frame_too_large", f"the frame is {width}x{height}; at most {MAX_SIDE} pixels a side")
            return width, height
        if marker == 0xDA:  # start of scan before any frame header
            break
        i += 2 + length
    raise BadFrame(400, "corrupt_jpeg", "the JPEG is corrupt: it has no frame header")


@dataclass
class Bucket:
    """Token bucket per camera: ``rate`` frames a second, ``BURST`` at once."""

    rate: float
    tokens: float = BURST
    at: float = field(default_factory=time.monotonic)

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(float(BURST), self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False


class Ingest:
    def __init__(self, app: web.Application) -> None:
        self.app = app
        self.buckets: dict[str, Bucket] = {}
        self.alive: dict[str, tuple[float, bool]] = {}

    @property
    def runtime(self) -> Any:
        from .app import RUNTIME

        return self.app[RUNTIME]

    def max_fps(self) -> float:
        cardcam = getattr(self.runtime.show, "cardcam", None)  # once broadcast.settings reads [cardcam]
        return float(getattr(cardcam, "max_fps", DEFAULT_MAX_FPS) or DEFAULT_MAX_FPS)

    def bucket(self, camera: str) -> Bucket:
        b = self.buckets.get(camera)
        if b is None:
            b = self.buckets[camera] = Bucket(self.max_fps())
        return b

    async def count(self, camera: str, what: str, n: int = 1) -> None:
        from cardcam.cameras import ingest_stats_key

        try:
            await self.runtime.redis.hincrby(ingest_stats_key(camera), what, n)
        except Exception:  # noqa: BLE001 - a counter must never fail a request
            pass

    async def worker_reads(self, camera: str) -> bool:
        """True when a cardcam worker reads this camera (its key is refreshed while it runs)."""
        from cardcam.cameras import alive_key

        now = time.monotonic()
        cached = self.alive.get(camera)
        if cached and now - cached[0] < ALIVE_CACHE_S:
            return cached[1]
        alive = bool(await self.runtime.redis.exists(alive_key(camera)))
        self.alive[camera] = (now, alive)
        return alive

    async def accept(self, camera: str, data: bytes, ts_ms: int | None) -> str:
        """Check one frame and queue it for the worker; returns its stream id. Raises ``BadFrame``."""
        from cardcam.cameras import frames_key, ingest_stats_key

        try:
            width, height = jpeg_size(data)
        except BadFrame as bad:
            await self.count(camera, f"rejected_{bad.code}")
            raise
        if not self.bucket(camera).take():
            await self.count(camera, "dropped_rate")
            raise BadFrame(429, "too_many_frames",
                           f"camera {camera} sends more than {self.max_fps():g} frames a second: "
                           "the extra frames are dropped")
        if not await self.worker_reads(camera):
            await self.count(camera, "rejected_no_worker")
            raise BadFrame(503, "no_worker", f"no cardcam worker reads camera {camera!r}: add it to the "
                           "show's [[cameras]] with source = \"push\" and run `tvtable cardcam run`")
        fields: dict[str, Any] = {"jpeg": data, "w": width, "h": height}
        if ts_ms is not None:
            fields["ts"] = ts_ms
        pipe = self.runtime.redis.pipeline(transaction=False)
        pipe.xadd(frames_key(camera), fields, maxlen=STREAM_LEN, approximate=False)
        pipe.hincrby(ingest_stats_key(camera), "received", 1)
        pipe.hincrby(ingest_stats_key(camera), "bytes", len(data))
        stream_id, *_ = await pipe.execute()
        return stream_id.decode() if isinstance(stream_id, bytes) else str(stream_id)


def _camera(request: web.Request) -> str:
    from cardcam.cameras import CAMERA_ID

    camera = request.match_info["camera"]
    if not CAMERA_ID.fullmatch(camera):
        raise BadFrame(404, "no_camera", "a camera id is letters, digits, - or _ (at most 64)")
    return camera


def _capture_ms(value: str | None) -> int | None:
    """The optional ``X-Capture-Time`` header: ms since the epoch when the frame was taken."""
    if not value:
        return None
    if not value.isdigit() or len(value) > 16:
        raise BadFrame(400, "bad_capture_time", "X-Capture-Time must be milliseconds since the epoch (digits only)")
    return int(value)


def _bad(bad: BadFrame) -> web.Response:
    return web.json_response({"error": bad.code, "field": "frame", "message": bad.message}, status=bad.status)


async def post_frame(request: web.Request) -> web.Response:
    from .app import GATE

    request.app[GATE].check(request, "ingest")
    ingest: Ingest = request.app[STATE]
    try:
        camera = _camera(request)
        ctype = request.headers.get("Content-Type", "").split(";")[0].strip().lower()
        if ctype not in ("image/jpeg", "image/jpg"):
            await ingest.count(camera, "rejected_content_type")
            raise BadFrame(415, "wrong_content_type",
                           "send the frame as Content-Type: image/jpeg (one JPEG image as the body)")
        if request.content_length is not None and request.content_length > MAX_FRAME_BYTES:
            await ingest.count(camera, "rejected_too_large")
            raise BadFrame(413, "frame_too_large", f"a frame may be at most {MAX_FRAME_BYTES // (1024 * 1024)} MB")
        data = bytearray()
        while True:
            chunk = await request.content.read(65536)
            if not chunk:
                break
            data += chunk
            if len(data) > MAX_FRAME_BYTES:
                await ingest.count(camera, "rejected_too_large")
                raise BadFrame(413, "frame_too_large", f"a frame may be at most {MAX_FRAME_BYTES // (1024 * 1024)} MB")
        frame = await ingest.accept(camera, bytes(data), _capture_ms(request.headers.get("X-Capture-Time")))
    except BadFrame as bad:
        return _bad(bad)
    return web.json_response({"accepted": True, "camera": camera, "frame": frame}, status=202)


async def ws_frames(request: web.Request) -> web.StreamResponse:
    from .app import GATE

    caller = request.app[GATE].check(request, "ingest")
    ingest: Ingest = request.app[STATE]
    try:
        camera = _camera(request)
    except BadFrame as bad:
        return _bad(bad)
    ws = web.WebSocketResponse(heartbeat=20, max_msg_size=MAX_FRAME_BYTES)
    await ws.prepare(request)
    log.info("camera %s connected (%s)", camera, caller.name)
    dropped = 0
    told = 0.0
    try:
        async for msg in ws:
            if msg.type == WSMsgType.BINARY:
                try:
                    await ingest.accept(camera, msg.data, None)
                except BadFrame as bad:
                    if bad.status == 429:
                        dropped += 1
                        if time.monotonic() - told >= 1.0:
                            told = time.monotonic()
                            await ws.send_str(json.dumps({"dropped": dropped, "message": bad.message}))
                    else:
                        await ws.send_str(json.dumps({"error": bad.code, "message": bad.message}))
            elif msg.type == WSMsgType.TEXT:
                await ingest.count(camera, "rejected_text")
                await ws.send_str(json.dumps({"error": "not_a_frame",
                                              "message": "send each frame as one binary message holding a JPEG"}))
            elif msg.type == WSMsgType.ERROR:
                break
    finally:
        log.info("camera %s disconnected (%s)", camera, caller.name)
    return ws


def setup(app: web.Application) -> None:
    app[STATE] = Ingest(app)
    app.router.add_post("/api/v1/cardcam/{camera}/frames", post_frame)
    app.router.add_get("/ws/v1/cardcam/{camera}", ws_frames)
