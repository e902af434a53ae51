"""Fan-out load: many WebSocket viewers on the public feed of overlay-only servers.

A real show runs as separate processes, as on several machines: ``tvtable serve
--services core`` (embedded Redis) and N ``tvtable serve --services overlay`` reading
the same Redis. A dealer plays at about ``--rate`` commands a second. Load-generator
processes (``--procs``) hold ``--clients`` sockets spread over the overlay servers and
note, for each seq's first arrival, its lateness after release:

    lateness = arrival - (ts + D)

``ts + D`` is the earliest a message may air (release_n = max(release_{n-1}, ts_n + D_n)
can only be later), so the figure is an upper bound on the real lateness, and it
includes the releaser's own share.

Also reported: each overlay server's memory per client (RSS growth while the clients
connect, divided by their number) and, with ``--slow N``, N clients that never read:
the overlay drops them (its log says "too slow") while the others keep their pace.

Usage: ``.venv/bin/python benchmarks/fanout_load.py [--clients 2000] [--overlays 1]
[--seconds 30] [--rate 2] [--procs 2] [--slow 1]``. Prints JSON. Run it on a quiet
machine: the load generator shares the CPU with the servers it measures.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from _show import TABLE, TOKENS, TVTABLE, Dealer, auth, dump, free_port, machine, show_toml, summary  # noqa: E402


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


async def wait_healthy(url: str, proc: subprocess.Popen, log: Path, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    async with aiohttp.ClientSession() as s:
        while True:
            if proc.poll() is not None:
                raise SystemExit(f"{proc.args[:4]} exited:\n{log.read_text()[-2000:]}")
            try:
                async with s.get(url + "/healthz") as r:
                    if r.status == 200:
                        return
            except aiohttp.ClientError:
                pass
            if time.monotonic() > deadline:
                raise SystemExit(f"{url} did not come up")
            await asyncio.sleep(0.1)


UVLOOP_TVTABLE = [sys.executable, "-c", "import asyncio, sys, uvloop; asyncio.set_event_loop_policy(uvloop.EventLoopPolicy()); "
                  "from broadcast.cli import main; sys.argv[0] = 'tvtable'; sys.exit(main())"]


def cpu_s(pid: int) -> float:
    """User + system CPU seconds a process has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def start(args: list[str], log: Path, *, uvloop: bool = False) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TVTABLE_")}
    return subprocess.Popen([*(UVLOOP_TVTABLE if uvloop else [TVTABLE]), *args], stdout=open(log, "wb"), stderr=subprocess.STDOUT, env=env,
                            start_new_session=True)


# -- a load-generator process --------------------------------------------------------------
class Viewer(asyncio.Protocol):
    """A light WebSocket client: the handshake, then unmasked server frames parsed by hand.

    The generator must not be the bottleneck: aiohttp's client spends several times the
    server's effort per message, so thousands of them would measure the generator."""

    def __init__(self, host: str, port: int, path: str, late: list[float], delay_ms: int) -> None:
        self.request = (f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n").encode()
        self.late, self.delay_ms = late, delay_ms
        self.buf = bytearray()
        self.upgraded = False
        self.first = True
        self.seen: set[int] = set()
        self.transport: asyncio.Transport | None = None
        self.closed = asyncio.get_running_loop().create_future()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        self.transport.write(self.request)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.closed.done():
            self.closed.set_result(None)

    def data_received(self, data: bytes) -> None:
        now = time.time() * 1000
        buf = self.buf
        buf += data
        if not self.upgraded:
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                return
            if b" 101 " not in buf[:end]:
                self.transport.close()
                return
            self.upgraded = True
            del buf[:end + 4]
        while len(buf) >= 2:
            opcode, n, at = buf[0] & 0x0F, buf[1] & 0x7F, 2
            if n == 126:
                if len(buf) < 4:
                    return
                n, at = int.from_bytes(buf[2:4], "big"), 4
            elif n == 127:
                if len(buf) < 10:
                    return
                n, at = int.from_bytes(buf[2:10], "big"), 10
            if len(buf) < at + n:
                return
            payload = bytes(buf[at:at + n])
            del buf[:at + n]
            if opcode == 1:
                self.message(payload, now)
            elif opcode == 9:  # ping: a masked pong (mask 0 leaves the payload as it is)
                self.transport.write(bytes((0x8A, 0x80 | len(payload), 0, 0, 0, 0)) + payload)
            elif opcode == 8:
                self.transport.close()
                return

    def message(self, payload: bytes, now: float) -> None:
        view = json.loads(payload)
        seq = view.get("seq")
        if self.first:  # the snapshot on connect is old news, not a delivery
            self.first = False
            self.seen.add(seq)
            return
        if seq in self.seen:
            return  # a hole-card reveal repeats a seq: due when the hand ended, not at ts + D
        self.seen.add(seq)
        self.late.append(now - (view["ts"] + self.delay_ms))


async def viewers(urls: list[str], count: int, seconds: float, delay_ms: int) -> dict:
    """``count`` sockets over ``urls``; lateness of each seq's first arrival per socket."""
    from urllib.parse import urlsplit

    late: list[float] = []
    stop_at = time.monotonic() + seconds
    loop = asyncio.get_running_loop()
    open_: list[Viewer] = []
    for i in range(count):
        u = urlsplit(urls[i % len(urls)])
        try:
            _, viewer = await loop.create_connection(
                lambda: Viewer(u.hostname, u.port, f"{u.path}?{u.query}", late, delay_ms), u.hostname, u.port)
            open_.append(viewer)
        except OSError:
            pass
        if i % 50 == 49:
            await asyncio.sleep(0.02)  # connect in waves, as viewers do
    await asyncio.sleep(max(0.0, stop_at - time.monotonic()))
    connected = sum(v.upgraded for v in open_)
    for v in open_:
        v.transport.close()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return {"connected": connected, "late_ms": late, "cpu_s": round(usage.ru_utime + usage.ru_stime, 2)}


def worker_main(argv: list[str]) -> None:
    urls, count, seconds, delay_ms = json.loads(argv[0]), int(argv[1]), float(argv[2]), int(argv[3])
    result = json.dumps(fast_loop_run(viewers(urls, count, seconds, delay_ms)))
    Path(argv[4]).write_text(result)  # a file, not stdout: a large result was cut in the pipe


def fast_loop_run(coro):
    """``asyncio.run``, on uvloop when it is installed."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(coro)
    return uvloop.run(coro)


def slow_clients(host: str, port: int, count: int) -> list[socket.socket]:
    """Sockets that finish the WebSocket handshake and then never read a byte."""
    out = []
    for i in range(count):
        s = socket.create_connection((host, port))
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.sendall((f"GET /ws/v1/public?table={TABLE} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
                   "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                   "Sec-WebSocket-Version: 13\r\n\r\n").encode())
        out.append(s)
    return out


# -- the run -------------------------------------------------------------------------------
async def run(args: argparse.Namespace) -> dict:
    import tempfile

    here = Path(tempfile.mkdtemp(prefix="tvtfanout-"))
    core_port = free_port()
    config = here / "show.toml"
    config.write_text(show_toml(args.delay, core_port))
    procs: list[subprocess.Popen] = []
    try:
        core = start(["serve", "--config", str(config), "--services", "core", "--data-dir", str(here / "core")],
                     here / "core.log")
        procs.append(core)
        await wait_healthy(f"http://127.0.0.1:{core_port}", core, here / "core.log")
        redis_url = f"unix://{here / 'core' / 'run' / 'redis.sock'}"
        overlays = []
        for k in range(args.overlays):
            port = free_port()
            proc = start(["serve", "--config", str(config), "--services", "overlay", "--redis", redis_url, "--port", str(port),
                          "--data-dir", str(here / f"overlay{k}")], here / f"overlay{k}.log", uvloop=args.uvloop)
            procs.append(proc)
            await wait_healthy(f"http://127.0.0.1:{port}", proc, here / f"overlay{k}.log")
            overlays.append((port, proc))
        urls = [f"ws://127.0.0.1:{port}/ws/v1/public?table={TABLE}" for port, _ in overlays]
        rss_before = {port: rss_kb(proc.pid) for port, proc in overlays}

        per = [args.clients // args.procs + (1 if i < args.clients % args.procs else 0) for i in range(args.procs)]
        outs = [here / f"viewers{i}.json" for i in range(len(per))]
        gens = [subprocess.Popen([sys.executable, __file__, "--worker", json.dumps(urls), str(n), str(args.seconds),
                                  str(int(args.delay * 1000)), str(out)]) for n, out in zip(per, outs) if n]
        slow = slow_clients("127.0.0.1", overlays[0][0], args.slow)
        await asyncio.sleep(min(10.0, args.seconds / 3))  # the viewers connect
        rss_after = {port: rss_kb(proc.pid) for port, proc in overlays}
        load_before = os.getloadavg()[0]
        cpu_before = {port: cpu_s(proc.pid) for port, proc in overlays}
        window = time.monotonic()

        dealer, sent = Dealer(seed=11, undo_rate=0.0), 0
        base = f"http://127.0.0.1:{core_port}/api/v1/tables/{TABLE}"
        async with aiohttp.ClientSession() as s:
            end = time.monotonic() + args.seconds - min(10.0, args.seconds / 3) - args.delay - 2
            while time.monotonic() < end:
                async with s.get(f"{base}/state?view=live", headers={"Authorization": f"Bearer {TOKENS['dealer']}"}) as r:
                    view = await r.json()
                command = dealer.next(view)
                async with s.post(f"{base}/commands", json=command, headers=auth(command)) as r:
                    sent += r.status == 200
                await asyncio.sleep(1 / args.rate)
        busy = {port: round((cpu_s(proc.pid) - cpu_before[port]) / (time.monotonic() - window), 2) for port, proc in overlays}
        for g in gens:
            await asyncio.to_thread(g.wait)
        results = [json.loads(out.read_text()) for out, n in zip(outs, per) if n]
        for sock in slow:
            sock.close()
        late = [x for r in results for x in r["late_ms"]]
        connected = sum(r["connected"] for r in results)
        dropped = sum((here / f"overlay{k}.log").read_text(errors="replace").count("too slow") for k in range(args.overlays))
        return {
            "benchmark": "fanout_load", "machine": machine(),
            "clients": args.clients, "connected": connected, "overlays": args.overlays, "procs": args.procs,
            "commands_sent": sent, "rate_per_s": args.rate, "delay_s": args.delay,
            "lateness_after_release_ms": summary(late) if late else None,
            "goal": "p99 <= 100 ms at 2,000 clients on one overlay server",
            "rss_per_client_kb": {str(port): round((rss_after[port] - rss_before[port]) / max(1, connected / args.overlays), 1)
                                  for port in rss_before},
            "slow_clients": args.slow, "slow_clients_dropped": dropped,
            "overlay_cpu_share": busy,  # CPU seconds per second while the dealer played, per overlay server
            "generator_cpu_s": [r["cpu_s"] for r in results],
            "uvloop": args.uvloop, "load_average_1m": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        }
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGINT)
        for proc in procs:
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        return worker_main(sys.argv[2:])
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--clients", type=int, default=2000)
    p.add_argument("--overlays", type=int, default=1, help="overlay-only server processes (the clients are spread)")
    p.add_argument("--seconds", type=float, default=30)
    p.add_argument("--rate", type=float, default=2.0, help="dealer commands per second")
    p.add_argument("--procs", type=int, default=2, help="load-generator processes")
    p.add_argument("--slow", type=int, default=1, help="clients that never read")
    p.add_argument("--delay", type=float, default=1.0)
    p.add_argument("--uvloop", action="store_true", help="run the overlay servers on uvloop (it must be installed)")
    dump(asyncio.run(run(p.parse_args())))


if __name__ == "__main__":
    main()
