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


def start(args: list[str], log: Path) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TVTABLE_")}
    return subprocess.Popen([TVTABLE, *args], stdout=open(log, "wb"), stderr=subprocess.STDOUT, env=env,
                            start_new_session=True)


# -- a load-generator process --------------------------------------------------------------
async def viewers(urls: list[str], count: int, seconds: float, delay_ms: int) -> dict:
    """``count`` sockets over ``urls``; lateness of each seq's first arrival per socket."""
    late: list[float] = []
    connected = 0
    stop_at = time.monotonic() + seconds

    async def one(i: int, session: aiohttp.ClientSession) -> None:
        nonlocal connected
        seen: set[int] = set()
        try:
            async with session.ws_connect(urls[i % len(urls)], heartbeat=None, max_msg_size=0) as ws:
                connected += 1
                first = True
                while time.monotonic() < stop_at:
                    try:
                        msg = await ws.receive(timeout=max(0.1, stop_at - time.monotonic()))
                    except asyncio.TimeoutError:
                        break
                    if msg.type != aiohttp.WSMsgType.TEXT:
                        break
                    now = time.time() * 1000
                    view = json.loads(msg.data)
                    if first:  # the snapshot on connect is old news, not a delivery
                        first = False
                        seen.add(view.get("seq"))
                        continue
                    if view.get("seq") in seen:
                        continue  # a hole-card reveal repeats a seq: due when the hand ended, not at ts + D
                    seen.add(view["seq"])
                    late.append(now - (view["ts"] + delay_ms))
        except (aiohttp.ClientError, OSError):
            pass

    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=connector) as session:
        tasks = []
        for i in range(count):
            tasks.append(asyncio.get_running_loop().create_task(one(i, session)))
            if i % 50 == 49:
                await asyncio.sleep(0.05)  # connect in waves, as viewers do
        await asyncio.gather(*tasks)
    return {"connected": connected, "late_ms": late}


def worker_main(argv: list[str]) -> None:
    urls, count, seconds, delay_ms = json.loads(argv[0]), int(argv[1]), float(argv[2]), int(argv[3])
    print(json.dumps(asyncio.run(viewers(urls, count, seconds, delay_ms))))


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
                          "--data-dir", str(here / f"overlay{k}")], here / f"overlay{k}.log")
            procs.append(proc)
            await wait_healthy(f"http://127.0.0.1:{port}", proc, here / f"overlay{k}.log")
            overlays.append((port, proc))
        urls = [f"ws://127.0.0.1:{port}/ws/v1/public?table={TABLE}" for port, _ in overlays]
        rss_before = {port: rss_kb(proc.pid) for port, proc in overlays}

        per = [args.clients // args.procs + (1 if i < args.clients % args.procs else 0) for i in range(args.procs)]
        gens = [subprocess.Popen([sys.executable, __file__, "--worker", json.dumps(urls), str(n), str(args.seconds),
                                  str(int(args.delay * 1000))], stdout=subprocess.PIPE) for n in per if n]
        slow = slow_clients("127.0.0.1", overlays[0][0], args.slow)
        await asyncio.sleep(min(10.0, args.seconds / 3))  # the viewers connect
        rss_after = {port: rss_kb(proc.pid) for port, proc in overlays}

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
        results = [json.loads((await asyncio.to_thread(g.communicate))[0]) for g in gens]
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
    dump(asyncio.run(run(p.parse_args())))


if __name__ == "__main__":
    main()
