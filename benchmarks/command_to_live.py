"""Command -> durable -> live view latency (goal: p99 <= 10 ms).

A real ``tvtable serve`` (embedded Redis, AOF with ``appendfsync always``) runs in its
own process. This script is the dealer console: it keeps the ``live`` WebSocket open
and sends N commands, one after the other, over ``POST /api/v1/tables/{t}/commands``
(a played-out mix: start hand, hole cards, board, check/call/fold/raise, undo), each
with a client id. For every command it records:

* ``ack_ms``: POST sent -> 200 received. The answer comes only after the journal's
  compare-and-append returned, i.e. Redis holds the event (durable);
* ``live_ms``: POST sent -> the live view with that command's seq arrives on the socket.

The show's delay defaults to 1 s so that the releaser (same process, same event loop)
does its work during the run, as it does in a show.

Usage: ``.venv/bin/python benchmarks/command_to_live.py [-n 2000] [--warmup 50] [--delay 1] [--gap-ms 0]``.
Prints JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _show import TABLE, TOKENS, Dealer, Show, auth, dump, machine, summary  # noqa: E402

GOAL_P99_MS = 10.0


async def run(n: int, warmup: int, seed: int, delay: float = 1.0, raw: str | None = None, gap_ms: float = 0.0) -> dict:
    headers = {"Authorization": f"Bearer {TOKENS['dealer']}"}
    samples = []
    async with Show(delay=delay) as show, aiohttp.ClientSession() as session:
        arrivals: dict[int, float] = {}
        latest: dict = {}
        got = asyncio.Event()
        ws = await session.ws_connect(show.ws("live"), headers=headers)

        async def read() -> None:
            async for msg in ws:
                view = json.loads(msg.data)
                arrivals.setdefault(view["seq"], time.perf_counter())
                latest.clear()
                latest.update(view)
                got.set()

        reader = asyncio.create_task(read())
        await asyncio.wait_for(got.wait(), 10)
        dealer = Dealer(seed)
        ack, live, refused, kinds = [], [], 0, {}
        url = f"{show.url}/api/v1/tables/{TABLE}/commands"
        started = time.perf_counter()
        for i in range(n + warmup):
            if gap_ms:
                await asyncio.sleep(gap_ms / 1000)
            command = {**dealer.next(dict(latest)), "id": f"bench-{i}"}
            t0 = time.perf_counter()
            async with session.post(url, json=command, headers=auth(command)) as r:
                body = await r.json()
                t1 = time.perf_counter()
            if r.status != 200:
                refused += 1
                continue
            seq = body["seqs"][-1]
            while seq not in arrivals:
                got.clear()
                await asyncio.wait_for(got.wait(), 5)
            while latest.get("seq", 0) < seq:  # the view the next command is chosen from
                got.clear()
                await asyncio.wait_for(got.wait(), 5)
            if i >= warmup:
                ack.append((t1 - t0) * 1000)
                live.append((arrivals[seq] - t0) * 1000)
                kinds[command["type"]] = kinds.get(command["type"], 0) + 1
                samples.append({"at_s": round(t0 - started, 4), "type": command["type"], "events": len(body["seqs"]),
                                "ack_ms": round(ack[-1], 3), "live_ms": round(live[-1], 3)})
        reader.cancel()
        await ws.close()
    if raw:
        Path(raw).write_text(json.dumps(samples))
    by_type: dict[str, list[float]] = {}
    for sample in samples:
        by_type.setdefault(sample["type"], []).append(sample["live_ms"])
    # A command that ends a hand also settles it (showdown, pots): the slow path.
    ending = [x["live_ms"] for x in samples if x["events"] > 1]
    other = [x["live_ms"] for x in samples if x["events"] == 1]
    return {
        "benchmark": "command_to_live",
        "what": "POST /commands -> 200 (durable: Redis holds it, AOF fsync always) and -> live WebSocket view with that seq",
        "commands": len(ack), "warmup": warmup, "refused": refused, "mix": kinds,
        "delay_s": delay, "gap_ms": gap_ms, "ack_ms": summary(ack), "live_ms": summary(live),
        "live_ms_hand_ending": summary(ending) if ending else None,
        "live_ms_other": summary(other) if other else None,
        "live_ms_by_type": {k: {"n": len(v), "p50": summary(v)["p50"], "p99": summary(v)["p99"]} for k, v in sorted(by_type.items())},
        "goal": {"live_p99_ms": GOAL_P99_MS, "met": summary(live)["p99"] <= GOAL_P99_MS},
        "machine": machine(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=2000, help="measured commands (default 2000)")
    parser.add_argument("--warmup", type=int, default=50, help="unmeasured commands first (default 50)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--delay", type=float, default=1.0,
                        help="the show's delay (default 1 s, so the releaser works during the run, as in a show; "
                             "with 10 s it releases nothing while 2000 back-to-back commands run)")
    parser.add_argument("--gap-ms", type=float, default=0.0, help="pause between commands (default 0: back to back)")
    parser.add_argument("--raw", default=None, help="also write every sample to this JSON file")
    args = parser.parse_args()
    dump(asyncio.run(run(args.n, args.warmup, args.seed, args.delay, args.raw, args.gap_ms)))


if __name__ == "__main__":
    main()
