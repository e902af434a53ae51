"""How long an exact equity takes, per street and number of hands; prints JSON.

    .venv/bin/python benchmarks/equity_speed.py            # full run, about a minute
    .venv/bin/python benchmarks/equity_speed.py --quick    # no plain loops, fewer deals

For each game, street and number of hands, several deals (fixed seed; suits change the
work) are each timed ``--repeat`` times; ``median_ms`` is the median over deals of each
deal's fastest run, ``worst_ms`` the slowest deal's fastest run. The plain loop is the
baseline: every board through phevaluator's C ``evaluate_7cards`` in a Python loop,
measured in the same run. One process, one core (numpy runs these on one thread).
"""

from __future__ import annotations

import argparse
import datetime
import itertools
import json
import os
import platform
import random
import statistics
import time

import numpy as np
from phevaluator import _pheval

from broadcast.equity import equity, prepare
from broadcast.equity.cards import read_deal

DECK = [r + s for r in "23456789TJQKA" for s in "cdhs"]
STREETS = {"preflop": 0, "flop": 3, "turn": 4, "river": 5}


def machine() -> dict:
    model = "unknown"
    try:
        with open("/proc/cpuinfo") as info:
            model = next((line.split(":", 1)[1].strip() for line in info if line.startswith("model name")), model)
    except OSError:
        pass
    try:
        load = os.getloadavg()[0]
    except OSError:
        load = None
    return {
        "cpu": model,
        "nproc": os.cpu_count(),
        "load_1min": load,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "date": datetime.date.today().isoformat(),
    }


def deals(game: str, hands: int, board: int, count: int, seed: int) -> list[tuple[list[str], list[str]]]:
    rng = random.Random(seed)
    per = 4 if game == "plo" else 2
    out = []
    for _ in range(count):
        cards = rng.sample(DECK, hands * per + board)
        out.append(([''.join(cards[i * per : (i + 1) * per]) for i in range(hands)], cards[hands * per :]))
    return out


def fastest(call, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - start)
    return best * 1000


def plain_loop_ms(hands: list[str]) -> float:
    """Every board through phevaluator's C evaluator, one Python loop; the baseline."""
    deal = read_deal(hands)
    holes = deal.holes
    evaluate = _pheval.evaluate_7cards
    start = time.perf_counter()
    wins = [0] * len(holes)
    for board in itertools.combinations(deal.rest, 5):
        ranks = [evaluate(*board, *hole) for hole in holes]
        best = min(ranks)
        if ranks.count(best) == 1:
            wins[ranks.index(best)] += 1
    return (time.perf_counter() - start) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="skip the plain loops, two deals per case")
    parser.add_argument("--repeat", type=int, default=3, help="runs per deal; the fastest counts (default 3)")
    parser.add_argument("--deals", type=int, default=5, help="deals per case (default 5)")
    args = parser.parse_args()
    per_case = 2 if args.quick else args.deals

    start = time.perf_counter()
    prepare()
    report: dict = {"machine": machine(), "prepare_ms": round((time.perf_counter() - start) * 1000, 1)}
    # The first preflop of a stub size also builds its board list (cached after).
    report["first_call_ms"] = {
        "nlhe preflop 2 hands": round(fastest(lambda: equity(["AsAh", "KsKd"]), 1), 1),
        "plo preflop 2 hands": round(fastest(lambda: equity(["AsAhKsQd", "9c8c7h6h"], game="plo"), 1), 1),
    }

    if not args.quick:
        report["plain_loop_ms"] = {
            "nlhe preflop 2 hands (AsAh KsKd)": round(plain_loop_ms(["AsAh", "KsKd"])),
            "nlhe preflop 3 hands (AhKh QsQc JdTd)": round(plain_loop_ms(["AhKh", "QsQc", "JdTd"])),
        }
        report["engine_ms_same_deals"] = {
            "nlhe preflop 2 hands (AsAh KsKd)": round(fastest(lambda: equity(["AsAh", "KsKd"]), args.repeat), 1),
            "nlhe preflop 3 hands (AhKh QsQc JdTd)": round(fastest(lambda: equity(["AhKh", "QsQc", "JdTd"]), args.repeat), 1),
        }

    results: dict = {}
    for game, most in (("nlhe", 10), ("plo", 10)):
        results[game] = {}
        for street, board in STREETS.items():
            results[game][street] = {}
            for hands in range(2, most + 1):
                times, boards, work = [], 0, 0
                for holes, cards in deals(game, hands, board, per_case, seed=hands * 10 + board):
                    result = equity(holes, cards, game=game, budget=10**9)
                    boards, work = result.boards, result.work
                    times.append(fastest(lambda: equity(holes, cards, game=game, budget=10**9), args.repeat))
                results[game][street][hands] = {
                    "median_ms": round(statistics.median(times), 2),
                    "worst_ms": round(max(times), 2),
                    "boards": boards,
                    "work": work,
                }
    report["results"] = results
    report["total_s"] = round(time.perf_counter() - start, 1)
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
