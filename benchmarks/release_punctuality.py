"""Release punctuality: public-feed arrival minus its release time (goal: never early,
p99 late <= 20 ms; a video frame is 33 ms).

A real ``tvtable serve`` (embedded Redis) runs with delay D. This script deals a
played-out mix of commands at random gaps (a busier table than any real one) while it
follows the open ``public`` WebSocket like an overlay does, and notes when each seq
first arrives (local clock; the show runs on this machine, so it is Redis's clock).
Afterwards it reads the journal and the public stream from the show's Redis and
reports, per released seq:

* ``arrival_late_ms``: WebSocket arrival minus ``release_n = max(release_{n-1}, ts_n + D_n)``;
* ``publish_late_ms``: the public stream entry's id time (Redis ``TIME`` when the
  releaser's script ran) minus ``release_n``: the releaser's own share.

A negative value would be an early release. Hole-card reveals repeat a seq when a
hand ends live; they are due at that moment, not at ``ts + D``, so only each seq's
first release is measured.

Usage: ``.venv/bin/python benchmarks/release_punctuality.py [--events 1500] [--delay 2] [--gap-ms 25]``
(``--gap-ms 400 --events 250`` is closer to a real table's pace).
Prints JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import time
from pathlib import Path

import aiohttp
import redis.asyncio as aioredis

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from _show import TABLE, TOKENS, Dealer, Show, auth, dump, machine, summary  # noqa: E402

from broadcast.store import keys  # noqa: E402
from broadcast.store.journal import read_all  # noqa: E402

GOAL_P99_MS = 20.0


async def run(events: int, delay: float, gap_ms: float, seed: int, redis_hz: int | None = None) -> dict:
    headers = {"Authorization": f"Bearer {TOKENS['dealer']}"}
    rng = random.Random(seed)
    async with Show(delay=delay) as show, aiohttp.ClientSession() as session:
        arrivals: dict[int, float] = {}
        public = await session.ws_connect(show.ws("public"))
        live = await session.ws_connect(show.ws("live"), headers=headers)
        latest: dict = {}
        got = asyncio.Event()

        async def follow_public() -> None:
            async for msg in public:
                arrived = time.time() * 1000
                arrivals.setdefault(json.loads(msg.data)["seq"], arrived)

        async def follow_live() -> None:
            async for msg in live:
                latest.clear()
                latest.update(json.loads(msg.data))
                got.set()

        if redis_hz:  # a diagnosis, not the product: Redis honours XREAD BLOCK timeouts only every 1000/hz ms
            client = aioredis.from_url(f"unix://{show.dir / 'var' / 'run' / 'redis.sock'}")
            await client.config_set("hz", redis_hz)
            await client.aclose()
        tasks = [asyncio.create_task(follow_public()), asyncio.create_task(follow_live())]
        await asyncio.wait_for(got.wait(), 10)
        dealer = Dealer(seed)
        url = f"{show.url}/api/v1/tables/{TABLE}/commands"
        last_seq, sent = 0, 0
        while last_seq < events:
            await asyncio.sleep(rng.uniform(0, 2 * gap_ms) / 1000)
            while latest.get("seq", 0) < last_seq:
                got.clear()
                await asyncio.wait_for(got.wait(), 5)
            command = {**dealer.next(dict(latest)), "id": f"p-{sent}"}
            async with session.post(url, json=command, headers=auth(command)) as r:
                body = await r.json()
            sent += 1
            if r.status == 200 and body["seqs"]:
                last_seq = body["seqs"][-1]
        await asyncio.sleep(delay + 1.0)
        for t in tasks:
            t.cancel()
        await public.close()
        await live.close()

        client = aioredis.from_url(f"unix://{show.dir / 'var' / 'run' / 'redis.sock'}")
        journal = await read_all(client, TABLE)
        stream = await client.xrange(keys.public(TABLE))
        await client.aclose()

    due, last = {}, 0
    for rec in journal:
        last = max(last, rec.ts + rec.delay_ms)
        due[rec.seq] = last
    published: dict[int, int] = {}
    for entry_id, fields in stream:
        published.setdefault(int(fields[b"seq"]), int(entry_id.split(b"-")[0]))
    arrival_late = [arrivals[s] - due[s] for s in sorted(published) if s in arrivals and s > 1]
    publish_late = [float(published[s] - due[s]) for s in sorted(published) if s > 1]
    early = sum(v < 0 for v in arrival_late) + sum(v < 0 for v in publish_late)
    arrival = summary(arrival_late)
    return {
        "benchmark": "release_punctuality",
        "what": "public WebSocket arrival (and public stream publication) minus release_n = max(release_{n-1}, ts_n + D_n)",
        "delay_s": delay, "mean_gap_ms": gap_ms, "redis_hz": redis_hz or "default (10)", "journal_events": len(journal), "released_seqs": len(publish_late),
        "received_seqs": len(arrival_late), "early": early,
        "arrival_late_ms": arrival, "publish_late_ms": summary(publish_late),
        "goal": {"never_early": early == 0, "arrival_p99_ms": GOAL_P99_MS, "met": early == 0 and arrival["p99"] <= GOAL_P99_MS},
        "machine": machine(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=1500, help="journal events to release (default 1500)")
    parser.add_argument("--delay", type=float, default=2.0, help="the show's delay D in seconds (default 2)")
    parser.add_argument("--gap-ms", type=float, default=25.0, help="mean gap between commands (default 25 ms)")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--redis-hz", type=int, default=None,
                        help="diagnosis only: CONFIG SET hz on the show's Redis first (its blocking-timeout granularity)")
    args = parser.parse_args()
    dump(asyncio.run(run(args.events, args.delay, args.gap_ms, args.seed, args.redis_hz)))


if __name__ == "__main__":
    main()
