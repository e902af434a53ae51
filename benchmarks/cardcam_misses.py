"""Why the card reader misses the cards it misses, on synthetic hole-cam frames; prints JSON.

Each card of a hand frame that the reader does not identify is put down to the first stage
that lost it:

* ``no_candidate``: no rank-suit pair was found in either index corner of the card
  (glyph search or pairing);
* ``screened``: pairs were found there, but the screen dropped them all uncut
  (``cardcam.screen``);
* ``classified_other``: a candidate was found there, but the classifier's best guess is
  another card or "not an index" (split in ``classified_other``: ``not_an_index``,
  ``rank_right``, ``suit_right``, ``other_card``);
* ``unsure``: the best guess is right but under the threshold, or the runner-up is close;
* ``vetoed``: right and sure, but one of the checks refuses it: the ink colour, the spade
  or club shape, the pips, the rank's shape, how it was cut, a small index, a 5 not sure
  enough (split in ``vetoed`` by the check's name, ``checks.veto``);
* ``jitter``: right and sure, but a re-read at a small rotation or scale disagrees;
* ``dropped``: read, but lost when the frame's reads were fused (a conflict, or more cards
  than the game allows).

Wrong cards are listed too, with the card they were read on.  ``refusals`` is each
check's ledger: of the sure candidates it refused (``checks.veto``), how many named a card
of the frame (``right``: the check cost a read, unless another candidate read the card)
and how many another card (``wrong``: a wrong read it stopped before the jitters).  Same frames (seeds) as
``cardcam_accuracy.py``'s single frames.

    .venv/bin/python benchmarks/cardcam_misses.py [--frames 40] [--decks anglo,paris|standard]

``--decks standard`` reads every deck with a rank-over-suit corner index: the training
decks and the held-out ones (:data:`STANDARD`), a wider check for wrong reads than the
default four seen decks.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

cv2.setNumThreads(1)
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cardcam import checks, classify, detect, maps, synth  # noqa: E402
from cardcam.model import HOLDOUT_DECKS, TRAIN_DECKS, get_model  # noqa: E402
from cardcam.recognize import _proba, _stable, recognize  # noqa: E402
from cardcam_accuracy import SEEN  # noqa: E402  (this folder: the same decks, the same seeds)

#: every deck whose index is a rank over its suit in the corner: tango_nuevo prints its
#: rank and suit side by side along the card's top edge, which the reader does not pair
STANDARD = tuple(d for d in TRAIN_DECKS if d != "tango_nuevo") + tuple(HOLDOUT_DECKS)

#: how far from a card corner (in card widths) an index candidate may lie and still count
CORNER = 0.42


def _owner(quads, p) -> int | None:
    """The topmost card whose outline holds point ``p`` (later cards lie on top)."""
    for i in range(len(quads) - 1, -1, -1):
        if cv2.pointPolygonTest(quads[i].astype(np.float32), (float(p[0]), float(p[1])), False) >= 0:
            return i
    return None


def _near_corner(quad, p) -> bool:
    w = float(np.linalg.norm(quad[1] - quad[0]))
    return min(np.linalg.norm(quad[0] - p), np.linalg.norm(quad[2] - p)) < CORNER * w


def _guess_kind(card: str, guesses: list[tuple[str, str]]) -> str:
    """What the classifier made of a card none of whose corner candidates it read right:
    ``not_an_index`` (every one "X" in rank and suit: the index's own rank-suit pair was
    not formed, or not cut cleanly), ``rank_right`` (some candidate has the right rank,
    none the right suit: plastic clubs taken for spades), ``suit_right`` or ``other_card``."""
    if all(r == "X" and s == "X" for r, s in guesses):
        return "not_an_index"
    rank_right = any(r == card[0] for r, _ in guesses)
    suit_right = any(s == card[1] for _, s in guesses)
    if rank_right and not suit_right:
        return "rank_right"
    if suit_right and not rank_right:
        return "suit_right"
    return "other_card"


def misses(deck: str, n: int, level: str, model, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    causes: Counter = Counter()
    wrong: list[dict] = []
    cards = right = 0
    flags: Counter = Counter()
    other: Counter = Counter()
    vetoes: Counter = Counter()
    refusals: dict[str, Counter] = {}
    for i in range(n):
        n_cards = 2 if i % 2 else 4
        f = synth.frame(rng, deck, n_cards=n_cards, level=level, p_backs=0.1, p_empty=0.1)
        if f.kind != "hand":
            continue
        r = recognize(f.image, n_cards, model=model)
        a = maps.analyse(f.image)
        every = detect.candidates(a)
        # what the reader cuts: the pairs its screen keeps (the others are `screened`)
        kept = (model.screen.keep(np.array([c.layout for c in every], np.float32))
                if model.screen is not None and every else np.ones(len(every), bool))
        cands = [c for c, k in zip(every, kept) if k]
        at = np.cumsum(kept) - 1  # a kept pair's place in cands
        by_card: dict[int, list[int]] = {}
        screened: set[int] = set()
        for k, c in enumerate(every):
            p = np.array([(c.box[0] + c.box[2]) / 2, (c.box[1] + c.box[3]) / 2])
            o = _owner(f.quads, p)
            if o is not None and _near_corner(f.quads[o], p):
                if kept[k]:
                    by_card.setdefault(o, []).append(int(at[k]))
                else:
                    screened.add(o)
        if cands:
            Pr, Ps = _proba(model, None, classify.features_batch(cands))
            decided = checks.decide(cands, Pr, Ps, model.threshold)
            stable = _stable(a, decided, model, None, model.threshold)
            for d in decided:
                if d.vetoed:
                    refusals.setdefault(d.vetoed, Counter())["right" if d.refused in f.cards else "wrong"] += 1
        for ci, card in enumerate(f.cards):
            cards += 1
            if card in r.identified:
                right += 1
                continue
            ks = by_card.get(ci, [])
            tag = [t for t, on in (("thumb", f.thumb), ("glare", f.glare), ("upside_down", f.upside_down)) if on]
            for t in tag:
                flags[t] += 1
            if not ks:
                causes["screened" if ci in screened else "no_candidate"] += 1
                continue
            best = [k for k in ks if classify.RANK_CLASSES[int(np.argmax(Pr[k]))] + classify.SUIT_CLASSES[int(np.argmax(Ps[k]))] == card]
            if not best:
                causes["classified_other"] += 1
                other[_guess_kind(card, [(classify.RANK_CLASSES[int(np.argmax(Pr[k]))],
                                          classify.SUIT_CLASSES[int(np.argmax(Ps[k]))]) for k in ks])] += 1
                continue
            sure = [k for k in best if checks.sure(Pr[k], Ps[k], model.threshold)]
            if not sure:
                causes["unsure"] += 1
            elif not any(decided[k].card == card for k in sure):
                causes["vetoed"] += 1
                vetoes[next(decided[k].vetoed for k in sure if decided[k].vetoed)] += 1
            elif not any(stable[k].card == card for k in sure):
                causes["jitter"] += 1
            else:
                causes["dropped"] += 1
        for c in r.identified:
            if c not in f.cards:
                wrong.append(dict(read=c, truth=list(f.cards), frame=i))
    return dict(cards=cards, right=right, missed=cards - right, causes=dict(causes.most_common()),
                classified_other=dict(other.most_common()), vetoed=dict(vetoes.most_common()), missed_with=dict(flags), wrong=wrong,
                refusals={k: dict(v) for k, v in sorted(refusals.items())})


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--frames", type=int, default=40, help="single frames per deck")
    p.add_argument("--level", default="moderate", choices=sorted(k for k in synth.LEVELS if not k.startswith("_")))
    p.add_argument("--decks", help="comma-separated decks, or 'standard' for every deck with a "
                   "rank-over-suit corner index (default: 4 seen + the held-out ones)")
    p.add_argument("--seed", type=int, default=1000, help="first deck's seed (the accuracy benchmark's is 1000)")
    p.add_argument("--threshold", type=float, help="try another p(rank) x p(suit) threshold than the model's")
    p.add_argument("--model", help="a model file other than the default one (cardcam build-model --out)")
    p.add_argument("--no-screen", action="store_true", help="cut every pair (the model's screen off)")
    a = p.parse_args(argv)
    model = get_model(Path(a.model), build_if_missing=False) if a.model else get_model()
    if a.threshold is not None:
        model.threshold = a.threshold
    if a.no_screen:
        model.screen = None
    decks = (list(STANDARD) if a.decks == "standard" else a.decks.split(",") if a.decks
             else list(SEEN) + list(HOLDOUT_DECKS))
    out: dict = dict(benchmark="cardcam_misses", level=a.level, threshold=model.threshold,
                     screen=model.screen is not None, decks={})
    total: Counter = Counter()
    other: Counter = Counter()
    vetoed: Counter = Counter()
    refusals: dict[str, Counter] = {}
    for i, d in enumerate(decks):
        m = misses(d, a.frames, a.level, model, a.seed + i)
        out["decks"][d] = m
        total.update(m["causes"])
        other.update(m["classified_other"])
        vetoed.update(m["vetoed"])
        for k, v in m["refusals"].items():
            refusals.setdefault(k, Counter()).update(v)
        print(f"{d}: {m['right']}/{m['cards']} {m['causes']}", file=sys.stderr)
    out["causes"] = dict(total.most_common())
    out["classified_other"] = dict(other.most_common())
    out["vetoed"] = dict(vetoed.most_common())
    out["refusals"] = {k: dict(right=v["right"], wrong=v["wrong"]) for k, v in sorted(refusals.items())}
    out["wrong"] = sum(len(m["wrong"]) for m in out["decks"].values())
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
