"""Rebuild a 12-hour day (about 400 hands) from its journal. Goal: <= 2 s.

Prints JSON: hands, events, seconds to replay, ms per hand.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from broadcast.engine.table import replay  # noqa: E402
from broadcast.views.projections import live_view  # noqa: E402
from tests.engine.test_properties import random_show  # noqa: E402


def main() -> None:
    # A 6-max TV table with deep stacks: all-ins are rare enough that the day lasts 400 hands.
    journal, state, _ = random_show(7, hands=400, stacks=(4_000_000,) * 6, allin_rate=0.0)
    hands = state.hand_no
    print(f"built a journal of {len(journal)} events, {hands} hands; replaying", file=sys.stderr)
    runs = []
    for _ in range(3):
        started = time.perf_counter()
        live_view(replay(journal), ts=0)  # the rebuilt table, as the console would first show it
        runs.append(time.perf_counter() - started)
    best = min(runs)
    print(json.dumps({"benchmark": "rebuild_day", "hands": hands, "events": len(journal), "seconds": round(best, 3),
                      "ms_per_hand": round(best * 1000 / hands, 2), "goal_seconds": 2.0, "runs": [round(r, 3) for r in runs]}))


if __name__ == "__main__":
    main()
