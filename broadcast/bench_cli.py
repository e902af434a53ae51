"""``tvtable bench``: run the headline benchmarks (``benchmarks/*.py``), each printing JSON.

The figures and the machine they were measured on are recorded in docs/BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def available() -> dict[str, Path]:
    """Benchmark name -> script (``rebuild_day`` for ``benchmarks/rebuild_day.py``)."""
    if not BENCHMARKS.is_dir():
        return {}
    return {p.stem: p for p in sorted(BENCHMARKS.glob("*.py")) if not p.stem.startswith("_")}


def _summary(script: Path) -> str:
    for line in script.read_text(encoding="utf-8").splitlines():
        text = line.strip().strip('"').strip()
        if text:
            return text
    return ""


def cmd_bench(args: argparse.Namespace) -> int:
    scripts = available()
    if not scripts:
        print(f"tvtable bench: no benchmarks found (looked in {BENCHMARKS}); run it from a checkout of the repository",
              file=sys.stderr)
        return 2
    if args.list or not args.names:
        for name, script in scripts.items():
            print(f"{name:22} {_summary(script)}")
        if not args.names:
            print("\nrun one with: tvtable bench NAME [-- ARGS]   (each prints JSON; figures go in docs/BENCHMARKS.md)")
        return 0
    unknown = [n for n in args.names if n not in scripts]
    if unknown:
        print(f"tvtable bench: no benchmark {', '.join(unknown)}; there are: {', '.join(scripts)}", file=sys.stderr)
        return 2
    results = {}
    for i, name in enumerate(args.names, start=1):
        print(f"[{i}/{len(args.names)}] {name} ...", file=sys.stderr)
        done = subprocess.run([sys.executable, str(scripts[name]), *args.extra], capture_output=True, text=True)
        if done.returncode != 0:
            print(f"tvtable bench: {name} failed (exit {done.returncode}):\n{done.stderr[-2000:]}", file=sys.stderr)
            return 1
        lines = [line for line in done.stdout.splitlines() if line.strip()]
        try:
            results[name] = json.loads(lines[-1]) if lines else None
        except json.JSONDecodeError:
            results[name] = done.stdout.strip()
    print(json.dumps(results if len(results) > 1 else results[args.names[0]], indent=2))
    return 0


def add_parser(sub) -> None:
    """Register ``tvtable bench``."""
    bench = sub.add_parser("bench", help="run the headline benchmarks (each prints JSON)",
                           description="Run benchmarks from benchmarks/: with no NAME, list them.")
    bench.add_argument("names", nargs="*", metavar="NAME", help="benchmarks to run, e.g. rebuild_day equity_speed")
    bench.add_argument("--list", action="store_true", help="list the benchmarks and what each measures")
    bench.add_argument("extra", nargs=argparse.REMAINDER, help="arguments after -- go to the benchmark script")
    bench.set_defaults(func=cmd_bench)
