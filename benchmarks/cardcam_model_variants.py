"""Train variants of the card-index model on the same training samples; prints JSON.

The samples (the build's synthetic training frames, ``model.training_samples``) are made
once and kept in ``var/cardcam/samples-<frames>-<seed>.npz``; each variant is then trained
on them and saved as ``var/cardcam/variants/<name>.npz``, ready for
``benchmarks/cardcam_misses.py --model FILE``.  Variant names:

* ``h<N>``: hidden layer of N units (the build's is ``h480``, model v7, the same model bit
  for bit as ``cardcam build-model`` on this machine; v6 was ``h160``);
* ``h<N>e<E>``: and E epochs instead of 25;
* ``h<N>s<S>``: and training seed S instead of 1234 (another draw of the same model);
* ``h<N>x<K>``: an ensemble of K such MLPs (seeds 1234, 1235, ...), their probabilities
  averaged.

    OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/cardcam_model_variants.py \\
        --variants h160,h480,h480x3
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from cardcam import classify, model  # noqa: E402

VARIANT = re.compile(r"^h(\d+)(?:e(\d+))?(?:s(\d+))?(?:x(\d+))?$")


def samples(frames: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The build's training samples, from the cache file or made (and cached) now."""
    cache = REPO / "var" / "cardcam" / f"samples-{frames}-{seed}.npz"
    if cache.exists():
        with np.load(cache) as d:
            return d["X"], d["yr"], d["ys"]
    X, yr, ys, _, _ = model.training_samples(model.training_decks(), frames, seed)
    cache.parent.mkdir(parents=True, exist_ok=True)
    np.savez(cache, X=X, yr=yr, ys=ys)
    return X, yr, ys


def variant(name: str, X, yr, ys, seed: int) -> tuple[model.Model, dict]:
    """Train the variant ``name`` (see the module's docstring)."""
    m = VARIANT.match(name)
    if not m:
        raise SystemExit(f"variant {name!r}: expected h<units>[e<epochs>][s<seed>][x<members>]")
    hidden, epochs = int(m[1]), int(m[2] or 25)
    s0, k = int(m[3] or seed), int(m[4] or 1)
    ranks, suits, infos = [], [], []
    for i in range(k):
        mr, ms, info = model.train(X, yr, ys, s0 + i, epochs, hidden, quiet=True)
        ranks.append(mr); suits.append(ms); infos.append(info)
    if k == 1:
        rank, suit = ranks[0], suits[0]
    else:
        rank, suit = classify.Ensemble(ranks), classify.Ensemble(suits)
    info = {"variant": name, "decks": list(model.training_decks()), "holdout": list(model.HOLDOUT_DECKS)}
    return model.Model(rank, suit, model.THRESHOLD, info), infos


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--variants", default="h160,h480", help="comma-separated variant names")
    p.add_argument("--frames", type=int, default=200, help="training frames per deck (the build's: 200)")
    p.add_argument("--seed", type=int, default=1234, help="the build's seed")
    a = p.parse_args(argv)
    t0 = time.monotonic()
    X, yr, ys = samples(a.frames, a.seed)
    out = {"samples": int(len(yr)), "features": int(X.shape[1]),
           "samples_s": round(time.monotonic() - t0, 1), "variants": {}}
    for name in a.variants.split(","):
        t1 = time.monotonic()
        m, infos = variant(name, X, yr, ys, a.seed)
        path = REPO / "var" / "cardcam" / "variants" / f"{name}.npz"
        m.save(path)
        out["variants"][name] = {
            "file": str(path.relative_to(REPO)), "train_s": round(time.monotonic() - t1, 1),
            "val_acc_rank": [round(i["val_acc_rank"], 4) for i in infos],
            "val_acc_suit": [round(i["val_acc_suit"], 4) for i in infos]}
        sys.stderr.write(f"{name}: {out['variants'][name]}\n")
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
