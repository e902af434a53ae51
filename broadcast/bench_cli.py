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
        results[name] = _result(done.stdout)
    print(json.dumps(results if len(results) > 1 else results[args.names[0]], indent=2))
    return 0


def _result(stdout: str):
    """A benchmark's JSON: all of its output (most print one indented object), or else its
    last line (a script that prints progress first); the text itself when neither parses."""
    text = stdout.strip()
    lines = [line for line in text.splitlines() if line.strip()]
    for candidate in (text, lines[-1] if lines else ""):
        try:
            return json.loads(candidate) if candidate else None
        except json.JSONDecodeError:
            continue
    return text


def add_parser(sub) -> None:
    """Register ``tvtable bench``."""
    bench = sub.add_parser("bench", help="run the headline benchmarks (each prints JSON)",
                           description="Run benchmarks from benchmarks/: with no NAME, list them.")
    bench.add_argument("names", nargs="*", metavar="NAME", help="benchmarks to run, e.g. rebuild_day equity_speed")
    bench.add_argument("--list", action="store_true", help="list the benchmarks and what each measures")
    # what follows "--" goes to the benchmark scripts (split off by split_extra before parsing:
    # argparse would take "--seats 2" as more benchmark names)
    bench.set_defaults(func=cmd_bench, extra=[])
    bench.epilog = "Arguments after -- go to each benchmark script, e.g. tvtable bench cardcam_throughput -- --seats 4"


def split_extra(argv: list[str]) -> tuple[list[str], list[str]]:
    """``tvtable bench NAME -- ARGS``: (the arguments for tvtable, ARGS for the scripts)."""
    if argv[:1] == ["bench"] and "--" in argv:
        i = argv.index("--")
        return argv[:i], argv[i + 1:]
    return argv, []
