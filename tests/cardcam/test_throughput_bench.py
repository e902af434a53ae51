"""``benchmarks/cardcam_throughput.py`` runs the real worker on cameras that hand over frames
at 25 fps, and reports what it read, what it dropped and when each hand was confirmed.
A small run here (two seats, one deal): the figures themselves are in docs/BENCHMARKS.md."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from tests.cardcam.conftest import needs_decks

ROOT = Path(__file__).resolve().parents[2]


@needs_decks
def test_the_throughput_benchmark_reads_every_seat_at_25_fps_and_posts_no_wrong_card(model, tmp_path):
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "cardcam_throughput.py"), "--seats", "2",
                           "--hands", "1", "--hold", "1.2", "--gap", "1", "--stagger", "0.2", "--level", "easy"],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout)
    frames = out["frames"]
    # every frame of both clips (2.4 s of them at 25 fps) was handed over, and each was read or dropped
    assert frames["offered"] == 2 * round((0.2 + 1.2 + 1 + 1) * 25)
    assert frames["read"] + frames["dropped"] == frames["offered"]
    assert 0 < frames["showing_read"] <= frames["showing_offered"]
    hands = out["hands"]
    assert hands["shown"] == 2 and len(hands["per_hand"]) == 2
    assert hands["wrong_cards"] == 0
    # two easy hands on two cores: both are seen as shown, and "shown" takes at least K=3 frames
    assert hands["cards_shown_ms"]["n"] == 2
    assert all(h["shown_ms"] >= 2 * 40 for h in hands["per_hand"])
    assert out["vision_ms"]["felt"]["n"] > 0 and out["seats"] == 2


@needs_decks
def test_each_deal_of_the_throughput_benchmark_comes_from_one_deck(monkeypatch):
    # as at a table: no card at two seats in one deal (a duplicate raises a camera check)
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    import cardcam_throughput as bench

    args = argparse.Namespace(seats=10, hands=2, hold=0.08, stagger=0.0, gap=0.04, fps=25.0,
                              level="easy", seed=4000)
    _, hands = bench.shoot(args)
    assert len(hands) == 20
    for deal in range(2):  # hands are listed seat by seat, each seat's deals in turn
        cards = [c for h in hands[deal::2] for c in h["cards"]]
        assert len(cards) == 20 and len(set(cards)) == 20, cards


def test_the_throughput_benchmark_refuses_more_seats_than_one_deck_deals():
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "cardcam_throughput.py"), "--seats", "27"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "--seats: from 1 to 26" in done.stderr
