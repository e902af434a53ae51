"""Every sure read of the card reader with what its checks measure, to tune the checks; prints JSON.

A "sure read" is a candidate whose p(rank) x p(suit) passes the model's threshold, before
the checks of ``checks.veto`` (which may refuse it) and before the jitters.  For each one
it records whether the card is in the frame (``right``), the check that refused it (if
any) and the measures the checks look at: p, the index's size (``unit``, working px), the
rank glyph's parts, height for its width (``aspect``), height in rank-suit distances
(``size``), loose ink and ink cut away next to it, and the suit's size and shape.

The summary gives, for the reads no check refused, the wrong ones in full (the reads a new
rule would be for; the jitters of ``recognize`` refuse some of them later) and the spread
of each measure over the right ones (what a rule on it would cost).  ``--out FILE`` keeps every read as JSON lines.  Same frames (seeds) as
``cardcam_misses.py --decks standard``:

    .venv/bin/python benchmarks/cardcam_sure_reads.py --seed 9100 --level hard --frames 40

The bounds of the checks added on 2026-12-07, night (``checks.RANK_TALL``,
``checks.THIN_TEN``, ``checks.SMALL_SURE``, ``checks.LOOSE``) were read off this script's
output for seeds 9000, 9100 and 9300.
"""
from __future__ import annotations

import argparse
import json
import sys
from multiprocessing import Pool
from pathlib import Path

import cv2
import numpy as np

cv2.setNumThreads(1)
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cardcam import checks, classify, detect, maps, synth  # noqa: E402
from cardcam.model import get_model  # noqa: E402
from cardcam.recognize import _proba  # noqa: E402
from cardcam_misses import STANDARD, _owner  # noqa: E402  (this folder)

#: the measures summarised over the right reads
MEASURES = ("p", "unit", "parts", "aspect", "size", "loose", "cut_away", "s_size", "s_aspect")


def deck_reads(args: tuple[str, int, int, str]) -> list[dict]:
    """The sure reads of ``frames`` misses-benchmark frames of ``deck`` at ``seed``, ``level``."""
    deck, seed, frames, level = args
    model = get_model()
    rng = np.random.default_rng(seed)
    out = []
    for i in range(frames):
        f = synth.frame(rng, deck, n_cards=2 if i % 2 else 4, level=level, p_backs=0.1, p_empty=0.1)
        if f.kind != "hand":
            continue
        cands = detect.candidates(maps.analyse(f.image), screen=model.screen)
        if not cands:
            continue
        Pr, Ps = _proba(model, None, classify.features_batch(cands))
        for c, d in zip(cands, checks.decide(cands, Pr, Ps, model.threshold)):
            card = d.card if d.card != "??" else d.refused
            if not card:
                continue  # not sure: no check was asked
            owner = _owner(f.quads, np.array([(c.box[0] + c.box[2]) / 2, (c.box[1] + c.box[3]) / 2]))
            g = c.rank
            out.append(dict(deck=deck, seed=seed, frame=i, card=card, right=card in f.cards,
                            on=f.cards[owner] if owner is not None else None, veto=d.vetoed,
                            p=round(d.confidence if d.card != "??" else d.refused_p, 5),
                            unit=round(float(c.unit), 2),
                            parts=g.parts, aspect=round(float(g.aspect), 3), size=round(float(g.size), 3),
                            loose=round(float(g.loose), 3), cut_away=round(float(g.cut_away), 3),
                            s_size=round(float(c.suit.size), 3), s_aspect=round(float(c.suit.aspect), 3)))
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--frames", type=int, default=40, help="single frames per deck")
    p.add_argument("--level", default="moderate", choices=sorted(k for k in synth.LEVELS if not k.startswith("_")))
    p.add_argument("--seed", type=int, default=9000, help="first deck's seed (as cardcam_misses.py's)")
    p.add_argument("--decks", help="comma-separated decks (default: every standard deck)")
    p.add_argument("--jobs", type=int, default=2, help="processes (default 2)")
    p.add_argument("--out", help="write every sure read here, one JSON object a line")
    a = p.parse_args(argv)
    decks = a.decks.split(",") if a.decks else list(STANDARD)
    jobs = [(d, a.seed + STANDARD.index(d) if d in STANDARD else a.seed, a.frames, a.level) for d in decks]
    rows: list[dict] = []
    with Pool(max(1, a.jobs)) as pool:
        for k, got in enumerate(pool.imap(deck_reads, jobs), 1):
            rows += got
            print(f"[{k}/{len(jobs)}] {jobs[k - 1][0]}: {len(got)} sure reads", file=sys.stderr)
    if a.out:
        Path(a.out).write_text("".join(json.dumps(r) + "\n" for r in rows))
    kept = [r for r in rows if r["veto"] is None]
    right = [r for r in kept if r["right"]]
    vetoes: dict[str, dict[str, int]] = {}
    for r in rows:
        if r["veto"]:
            v = vetoes.setdefault(r["veto"], {"right": 0, "wrong": 0})
            v["right" if r["right"] else "wrong"] += 1
    spread = {m: dict(zip(("min", "p1", "p50", "p99", "max"),
                          (round(float(q), 4) for q in np.percentile([r[m] for r in right], [0, 1, 50, 99, 100]))))
              for m in MEASURES} if right else {}
    print(json.dumps(dict(benchmark="cardcam_sure_reads", level=a.level, seed=a.seed, frames=a.frames,
                          sure_reads=len(rows), refused=vetoes, passed=len(kept), right=len(right),
                          wrong=[r for r in kept if not r["right"]], right_spread=spread), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
