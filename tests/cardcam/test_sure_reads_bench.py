"""``benchmarks/cardcam_sure_reads.py`` lists every sure read with what the checks measure:
the tool the checks are tuned with.  A small run here; what it found is in
docs/BENCHMARKS.md ("the pair gate")."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.cardcam.conftest import needs_decks

ROOT = Path(__file__).resolve().parents[2]


@needs_decks
def test_the_sure_reads_benchmark_records_each_sure_read_and_what_refused_it(model, tmp_path):
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "cardcam_sure_reads.py"), "--decks",
                           "anglo,plastic", "--frames", "4", "--jobs", "1", "--out", str(tmp_path / "reads.jsonl")],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout)
    rows = [json.loads(line) for line in (tmp_path / "reads.jsonl").read_text().splitlines()]
    assert out["sure_reads"] == len(rows) > 4
    assert {r["deck"] for r in rows} <= {"anglo", "plastic"}
    refused = [r for r in rows if r["veto"]]
    assert out["passed"] == len(rows) - len(refused)
    assert sum(v["right"] + v["wrong"] for v in out["refused"].values()) == len(refused)
    assert out["right"] == sum(1 for r in rows if r["right"] and not r["veto"])
    # every passed read is sure by the model's own threshold, and right ones spread as listed
    assert all(r["p"] >= model.threshold - 1e-4 for r in rows)
    if out["right"]:
        p = out["right_spread"]["p"]
        assert p["min"] <= p["p50"] <= p["max"] <= 1.0
    assert "[2/2] plastic" in done.stderr  # progress, deck by deck
