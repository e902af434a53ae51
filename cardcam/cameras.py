"""Which camera sees which seat: the ``[[cameras]]`` part of a show file, and the Redis
names the camera data lives under.

A show file maps cameras to seats, either one camera per seat or one camera with a
region per seat, plus an optional board camera::

    [cardcam]                       # optional; every key has a default
    k = 3                           # a card is confirmed when K of the last N frames agree
    n = 5
    crop_every = 0.5                # seconds between frame crops sent to the card room
    profile = "decks/house.npz"     # deck profile from `tvtable cardcam calibrate`
    max_fps = 30                    # pushed frames per second per camera; more are dropped

    [[cameras]]
    id = "rail-3"                   # letters, digits, - or _ (the push URL uses it)
    table = "tv"                    # optional when the show has one table
    source = "push"                 # "push" (HTTP/WebSocket from a capture PC),
                                    # "device:0" or 0 (a capture device), "folder:/path"
                                    # (a folder of images), or a video file or an
                                    # rtsp:// / http:// URL for OpenCV
    seat = 3                        # one camera, one seat ...
    group = "rail"                  # optional: one worker process per group ("main")
    fps = 10                        # optional: frames read per second at most (10)
    loop = false                    # optional: replay a file or folder at its end

    [[cameras]]
    id = "overhead"
    source = "rtsp://10.0.0.9/stream1"
      [[cameras.regions]]           # ... or one camera, a region per seat
      seat = 1
      box = [0.0, 0.0, 0.5, 1.0]    # x, y, width, height as fractions of the frame
      [[cameras.regions]]
      seat = 2
      box = [0.5, 0.0, 0.5, 1.0]

    [[cameras]]
    id = "board"
    source = "device:1"
    board = true                    # the board camera (five cards)

``broadcast.settings`` refuses keys it does not know, so until it learns ``cameras``
and ``cardcam`` (see ``read_cardcam``), :func:`load` reads the show without them.

Every value here is checked; a mistake raises ``broadcast.settings.ConfigError``
naming the key, e.g. ``cameras[1].regions[0].box``.
"""
from __future__ import annotations

import hashlib
import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from broadcast.settings import ConfigError, Show

BOARD = "board"
BOARD_CARDS = 5
HOLE_CARDS = {"nlhe": 2, "plo": 4}
CAMERA_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")
CAMERA_KEYS = ("id", "table", "source", "seat", "board", "regions", "group", "fps", "loop")
REGION_KEYS = ("seat", "box")
CARDCAM_KEYS = ("k", "n", "crop_every", "profile", "max_fps")


@dataclass(frozen=True)
class Region:
    """A part of a camera's frame that shows one seat (or the board)."""

    seat: int | str                                   # a seat number, or "board"
    box: tuple[float, float, float, float] | None = None  # x, y, w, h fractions; None = whole frame

    @property
    def label(self) -> str:
        return BOARD if self.seat == BOARD else f"seat {self.seat}"


@dataclass(frozen=True)
class Camera:
    id: str
    table: str
    source: str | int          # "push", a device index, "folder:PATH", a file or URL
    regions: tuple[Region, ...]
    group: str = "main"
    fps: float = 10.0
    loop: bool = False

    @property
    def kind(self) -> str:
        """``push``, ``device``, ``folder`` or ``capture`` (file or URL)."""
        if self.source == "push":
            return "push"
        if isinstance(self.source, int) or str(self.source).startswith("device:"):
            return "device"
        if str(self.source).startswith("folder:"):
            return "folder"
        return "capture"

    @property
    def seats(self) -> tuple[int | str, ...]:
        return tuple(r.seat for r in self.regions)


@dataclass(frozen=True)
class CardcamSettings:
    k: int = 3
    n: int = 5
    crop_every: float = 0.5
    profile: str | None = None
    max_fps: float = 30.0
    cameras: tuple[Camera, ...] = field(default=())

    def groups(self) -> dict[str, tuple[Camera, ...]]:
        out: dict[str, list[Camera]] = {}
        for cam in self.cameras:
            out.setdefault(cam.group, []).append(cam)
        return {g: tuple(c) for g, c in out.items()}

    def camera(self, camera_id: str) -> Camera | None:
        return next((c for c in self.cameras if c.id == camera_id), None)


# -- reading ------------------------------------------------------------------------------

def _known(data: Any, path: str, known: tuple[str, ...], what: str) -> Mapping:
    if not isinstance(data, Mapping):
        raise ConfigError(path, f"must be a {what} section")
    for name in data:
        if name not in known:
            raise ConfigError(f"{path}.{name}", "is not a setting we know (known keys here: "
                              + ", ".join(known) + ")")
    return data


def _number(value: Any, key: str, low: float, high: float, reason: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or not low <= value <= high:
        raise ConfigError(key, reason)
    return float(value)


def _whole(value: Any, key: str, low: int, high: int, reason: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ConfigError(key, reason)
    return value


def read_cardcam(data: Mapping[str, Any], tables: Any) -> CardcamSettings:
    """Check the ``[cardcam]`` section and the ``[[cameras]]`` list of a parsed show file.

    ``data`` is the whole TOML document (other keys are ignored here); ``tables`` the
    show's checked tables (``Show.tables``), for the seat numbers and the game.
    """
    section = _known(data.get("cardcam", {}), "cardcam", CARDCAM_KEYS, "[cardcam]")
    k = _whole(section.get("k", 3), "cardcam.k", 1, 50, "must be a whole number from 1 to 50")
    n = _whole(section.get("n", 5), "cardcam.n", 1, 50, "must be a whole number from 1 to 50")
    if k > n:
        raise ConfigError("cardcam.k", f"K ({k}) cannot be more than N ({n}): a card is confirmed "
                          "when K of the last N frames agree")
    crop_every = _number(section.get("crop_every", 0.5), "cardcam.crop_every", 0.05, 60,
                         "must be a number of seconds from 0.05 to 60")
    max_fps = _number(section.get("max_fps", 30), "cardcam.max_fps", 1, 120,
                      "must be a number of frames per second from 1 to 120")
    profile = section.get("profile")
    if profile is not None and (not isinstance(profile, str) or not profile.strip()):
        raise ConfigError("cardcam.profile", "must be the path of a deck profile, in quotes")
    cams_raw = data.get("cameras", [])
    if not isinstance(cams_raw, list):
        raise ConfigError("cameras", "must be a list of [[cameras]] sections")
    by_table = {t.id: t for t in tables}
    cameras: list[Camera] = []
    covered: dict[tuple[str, int | str], str] = {}
    for i, raw in enumerate(cams_raw):
        path = f"cameras[{i}]"
        cam = _known(raw, path, CAMERA_KEYS, "[[cameras]]")
        cid = cam.get("id")
        if not isinstance(cid, str) or not CAMERA_ID.fullmatch(cid):
            raise ConfigError(f"{path}.id", "a camera id must be letters, digits, - or _ (at most 64, "
                              "starting with a letter or digit), like \"rail-3\"")
        if any(c.id == cid for c in cameras):
            raise ConfigError(f"{path}.id", f"camera id {cid!r} is used twice; every camera needs its own id")
        if "table" in cam:
            tid = cam["table"]
            if tid not in by_table:
                raise ConfigError(f"{path}.table", f"no table {tid!r} in this show (tables: "
                                  + ", ".join(by_table) + ")")
        elif len(by_table) == 1:
            tid = next(iter(by_table))
        else:
            raise ConfigError(f"{path}.table", "is missing: this show has several tables (" + ", ".join(by_table) + ")")
        table = by_table[tid]
        seat_numbers = {s.seat for s in table.seats}
        source = cam.get("source")
        if isinstance(source, bool) or not isinstance(source, (str, int)) or source == "":
            raise ConfigError(f"{path}.source", "must be \"push\", \"device:0\", \"folder:/path\", a video "
                              "file or an rtsp:// or http:// URL")
        if isinstance(source, int) and source < 0:
            raise ConfigError(f"{path}.source", "a device number is 0 or more")
        if isinstance(source, str) and source.startswith("device:") and not source[7:].isdigit():
            raise ConfigError(f"{path}.source", "a device is written like \"device:0\"")
        group = cam.get("group", "main")
        if not isinstance(group, str) or not CAMERA_ID.fullmatch(group):
            raise ConfigError(f"{path}.group", "a group name must be letters, digits, - or _, like \"rail\"")
        fps = _number(cam.get("fps", 10), f"{path}.fps", 0.1, 60, "must be frames per second, from 0.1 to 60")
        loop = cam.get("loop", False)
        if not isinstance(loop, bool):
            raise ConfigError(f"{path}.loop", "must be true or false (no quotes)")
        ways = [w for w in ("seat", "board", "regions") if w in cam]
        if len(ways) != 1:
            raise ConfigError(path, "give exactly one of seat = N (one camera per seat), board = true "
                              "(the board camera) or [[cameras.regions]] (a region per seat)")
        regions: list[Region] = []
        if "seat" in cam:
            regions.append(Region(_seat(cam["seat"], f"{path}.seat", seat_numbers)))
        elif "board" in cam:
            if cam["board"] is not True:
                raise ConfigError(f"{path}.board", "write board = true for the board camera")
            regions.append(Region(BOARD))
        else:
            if not isinstance(cam["regions"], list) or not cam["regions"]:
                raise ConfigError(f"{path}.regions", "must be a list of [[cameras.regions]] sections")
            for j, rraw in enumerate(cam["regions"]):
                rpath = f"{path}.regions[{j}]"
                reg = _known(rraw, rpath, REGION_KEYS, "[[cameras.regions]]")
                if "seat" not in reg:
                    raise ConfigError(f"{rpath}.seat", "is missing (a seat number, or \"board\")")
                seat = BOARD if reg["seat"] == BOARD else _seat(reg["seat"], f"{rpath}.seat", seat_numbers)
                if "box" not in reg:
                    raise ConfigError(f"{rpath}.box", "is missing: [x, y, width, height] as fractions of the frame")
                regions.append(Region(seat, _box(reg["box"], f"{rpath}.box")))
        for j, region in enumerate(regions):
            where = (tid, region.seat)
            if where in covered:
                raise ConfigError(f"{path}" + (f".regions[{j}]" if "regions" in cam else ""),
                                  f"{region.label} of table {tid!r} is already seen by camera {covered[where]!r}")
            covered[where] = cid
        cameras.append(Camera(cid, tid, source, tuple(regions), group, fps, loop))
    return CardcamSettings(k=k, n=n, crop_every=crop_every, profile=profile, max_fps=max_fps,
                           cameras=tuple(cameras))


def _seat(value: Any, key: str, seats: set[int]) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(key, "must be a seat number (or \"board\" in a region)")
    if value not in seats:
        raise ConfigError(key, f"seat {value} has no player at this table (seats: "
                          + ", ".join(str(s) for s in sorted(seats)) + ")")
    return value


def _box(value: Any, key: str) -> tuple[float, float, float, float]:
    reason = "must be [x, y, width, height] as fractions of the frame, e.g. [0.0, 0.0, 0.5, 1.0]"
    if not isinstance(value, list) or len(value) != 4:
        raise ConfigError(key, reason)
    x, y, w, h = (_number(v, key, 0.0, 1.0, reason) for v in value)
    if w <= 0 or h <= 0 or x + w > 1.0 + 1e-9 or y + h > 1.0 + 1e-9:
        raise ConfigError(key, "the region must have a size and stay inside the frame (x + width <= 1, "
                          "y + height <= 1)")
    return (x, y, w, h)


def load(path: str | os.PathLike[str]) -> tuple[Show, CardcamSettings]:
    """Read a show file with its cameras (``broadcast.settings`` checks both)."""
    from broadcast import settings

    show = settings.load_show(path)
    return show, show.cardcam


def hole_cards(show: Show, table: str) -> int:
    return HOLE_CARDS.get(show.table(table).game, 2)


# -- Redis names --------------------------------------------------------------------------
# They live with every other key in broadcast/store/keys.py (the ACLs are written against
# that one list); re-exported here for the card reader's modules.
from broadcast.store.keys import (  # noqa: E402, F401 - re-exported
    alerts_key,
    alive_key,
    crops_key,
    events_key,
    frames_key,
    health_key,
    ingest_stats_key,
    lights_key,
    resolved_key,
    seats_key,
)


def alert_id(*parts: object) -> str:
    """An opaque id for an alert: safe in URLs, logs and the audit trail (it names no card)."""
    return hashlib.sha256("|".join(map(str, parts)).encode()).hexdigest()[:16]
