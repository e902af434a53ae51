"""The card-index model: which decks it learns from, how samples are made, load/save.

Train/test split (by whole deck, so the test decks are never seen):

* ``TRAIN_DECKS``: standard English-index decks the model learns from;
* ``PARTIAL_DECKS``: decks whose court letters are not J/Q/K/A (German ``B``/``D``,
  French ``V``/``D``/``R``, Italian ``F``, Russian ``В``/``Д``/``Т``).  Their number
  cards train the model; their foreign letters are taught as "not an index" (``X``), so
  a Russian ace ``Т`` is never read as a ten;
* ``HOLDOUT_DECKS``: never used for training; the benchmark and tests read them.
"""
from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from . import art

if TYPE_CHECKING:  # for the annotations only: classify (and cv2) is imported where it is used
    from . import classify
    from .screen import Screen

TRAIN_DECKS = (
    "anglo", "anglo_bitmap", "anglo_modern", "anglo_modern_4_color", "anglo_poker",
    "atlasnye", "bellot", "dondorf", "gnomangelo", "gnomangelo_bitmap", "guyenne-classic",
    "neoclassical", "neoclassical_4_color", "orell", "ornamental", "simplistic", "tango",
    "tango_nuevo",
)
HOLDOUT_DECKS = ("paris", "plastic", "tigullio")
#: deck -> {rank: label}; label "X" teaches a foreign court letter as "not an index",
#: None skips the card.  Ranks not listed are standard.
PARTIAL_DECKS: dict[str, dict[str, str | None]] = {
    "berlin": {"J": "X", "Q": "X"},
    "lattmann": {"J": "X", "Q": "X"},
    "rheinland": {"J": "X", "Q": "X"},
    "atlasnye_skat": {"J": "X", "Q": "X"},
    "ancient_french": {"A": "X", "J": "X", "Q": "X", "K": "X"},
    "tarocco": {"J": "X", "Q": "X", "K": "X"},
    "\u0410\u0442\u043b\u0430\u0441\u043d\u044b\u0435": {"A": "X", "J": "X", "Q": "X"},
    "slavic_costumes": {"A": "X", "J": "X", "Q": "X"},
}

MODEL_VERSION = 10  # 4: glyphs found without the felt, samples in job order; 5: threshold 0.93;
#                    6: 200 frames per training deck (was 50): recall +2.5 % on 1,324 cards;
#                    7: 480 hidden units (was 160): 1,545 cards of 1,980 read instead of 1,534;
#                    8: trained on the index candidates of glyphs split at a neck (glyphs.PIECES);
#                    9: every patch splits a suit joined to a big pip (not only neck pieces);
#                   10: the screen (cardcam.screen), trained on the same candidates
#: hidden units of the rank and suit MLPs (benchmarks/cardcam_model_variants.py: 160, 320,
#: 480 and 640 read 504, 510, 512 and 513 of the benchmark's 666 cards; 480 is where the
#: gain stops for +0.7 ms of classifier a searched frame; 320 made a wrong read, 480 none)
HIDDEN = 480
#: p(rank) x p(suit) a card needs (0.95 until v4).  The jitter re-read and the shape checks
#: stop the wrong reads that 0.93 lets through; at 0.90 a bellot 6c was read as 6h.
THRESHOLD = 0.93


def default_model_path() -> Path:
    env = os.environ.get("TVTABLE_CARDCAM_MODEL")
    if env:
        return Path(env)
    repo = Path(__file__).resolve().parent.parent
    if (repo / "pyproject.toml").exists():
        return repo / "var" / "cardcam" / "model.npz"
    return art.cache_dir() / "cardcam" / "model.npz"


def rank_label(deck: str, rank: str) -> str | None:
    return PARTIAL_DECKS.get(deck, {}).get(rank, rank)


@dataclass
class Model:
    rank: "classify.MLP"
    suit: "classify.MLP"
    threshold: float = 0.9
    info: dict = field(default_factory=dict)
    #: drops pairs plainly not an index before they are cut (:mod:`cardcam.screen`)
    screen: "Screen | None" = None

    def save(self, path: Path) -> None:
        import json
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        d = {**self.rank.to_dict("rank"), **self.suit.to_dict("suit"),
             "threshold": np.float32(self.threshold), "version": np.int32(MODEL_VERSION),
             "info": np.array(json.dumps(self.info))}
        if self.screen is not None:
            d.update(self.screen.to_dict())
        tmp = path.with_name(path.name + ".tmp.npz")
        np.savez_compressed(tmp, **d)
        os.replace(tmp, path)

    @classmethod
    def load(cls, path: Path) -> "Model":
        import json
        from .classify import load_classifier
        from .screen import Screen
        with np.load(path, allow_pickle=False) as d:
            if int(d["version"]) != MODEL_VERSION:
                raise ValueError(f"model {path} is version {int(d['version'])}, need {MODEL_VERSION}")
            screen = Screen.from_dict(d) if "screen_cut" in d else None
            return cls(load_classifier(d, "rank"), load_classifier(d, "suit"),
                       float(d["threshold"]), json.loads(str(d["info"])), screen)


# ----------------------------------------------------------------------------- samples

#: Training frames cover more than the test conditions: any rotation, 1-4 cards.
TRAIN_LEVEL = dict(height=(100, 340), tilt=180, persp=0.1, blur=1.6, noise=7.0, jpeg=(40, 95),
                   thumb=0.3, glare=0.1, upside=0.0, spread=(0.25, 0.65))


def label_candidates(frame, cands, scale: float):
    """Labels for candidates from ground truth: (rank_label, suit_label) or None to skip.

    A candidate is an index when its centre is in a card's top-left corner zone with the
    card's orientation, or in the bottom-right zone upside down, on the topmost card there.
    """
    import cv2
    unit = np.float32([[0, 0], [1, 0], [1, 1], [0, 1]])
    Hs = [cv2.getPerspectiveTransform(np.float32(q), unit) for q in frame.quads]
    downs = []
    for q in frame.quads:
        dv = (q[3] - q[0] + q[2] - q[1]) / 2
        downs.append(dv / (np.linalg.norm(dv) + 1e-9))
    labels: list = [None] * len(cands)
    best: dict = {}
    for k, c in enumerate(cands):
        p = c.centre / scale
        r = (c.centre - c.down * c.unit / 2) / scale  # rank centre
        owner = None
        for i in range(len(frame.quads) - 1, -1, -1):
            if cv2.pointPolygonTest(np.float32(frame.quads[i]), (float(p[0]), float(p[1])), False) >= 0:
                owner = i
                break
        if owner is None:
            labels[k] = ("X", "X")
            continue
        u, v = cv2.perspectiveTransform(np.float32([[r]]), Hs[owner])[0, 0]
        cos = float(np.dot(downs[owner], c.down))
        card = frame.cards[owner]
        if u < 0.3 and v < 0.3 and cos > 0.92:
            corner, dist = "tl", u + v
        elif u > 0.7 and v > 0.7 and cos < -0.92:
            corner, dist = "br", 2 - u - v
        elif (u > 0.7 and v < 0.3 and cos > 0.92) or (u < 0.3 and v > 0.7 and cos < -0.92):
            continue  # decks with four indices: don't teach either way
        else:
            labels[k] = ("X", "X")
            continue
        key = (owner, corner)
        if key not in best or dist < best[key][0]:
            best[key] = (dist, k, card)
    for dist, k, card in best.values():
        rl = rank_label(frame.deck, card[0])
        if rl is None:
            continue
        labels[k] = (rl, card[1] if rl != "X" else "X")
    return labels


JITTER = 2
NEG_KEEP = 0.6


def deck_samples(deck: str, n_frames: int, seed: int):
    """Feature vectors and rank/suit labels from ``n_frames`` synthetic training frames of
    one deck, and the layout figures of every labelled pair with whether it is an index
    (for the screen, :mod:`cardcam.screen`)."""
    from . import classify, detect, maps, synth
    rng = np.random.default_rng(seed)
    synth.LEVELS["_train"] = TRAIN_LEVEL
    X, yr, ys, F, fi = [], [], [], [], []
    for _ in range(n_frames):
        n = int(rng.choice([1, 2, 3, 4, 4]))
        f = synth.hand_frame(rng, deck, n_cards=n, level="_train", size=(640, 360))
        a = maps.analyse(f.image)
        # trained without the waist cut: with it the model read fewer cards (detect.candidates);
        # and on every pair, not only those the pair gate lets through: model v10's samples
        cands = detect.candidates(a, waists=False, gate=False)
        labels = label_candidates(f, cands, a.scale)
        for c, lab in zip(cands, labels):
            if lab is None:
                continue
            # the screen learns from every labelled pair, before the negatives are thinned
            F.append(c.layout)
            fi.append(lab[0] != "X")
            extra = []
            if lab[0] != "X":
                # jittered re-extractions: more positives at little cost
                for _ in range(JITTER):
                    t = np.radians(rng.normal(0, 2.5))
                    R = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
                    u = c.unit * rng.uniform(0.94, 1.06)
                    ctr = c.centre + rng.normal(0, 0.04, 2) * c.unit
                    j = detect.candidate_at(a, ctr, R @ c.down, u, c.comps, waists=False)
                    if j is not None:
                        extra.append(j)
            elif rng.random() > NEG_KEEP:
                continue
            batch = [c] + extra
            X.append(classify.features_batch(batch))
            yr += [classify.RANK_CLASSES.index(lab[0])] * len(batch)
            ys += [classify.SUIT_CLASSES.index(lab[1])] * len(batch)
    if not X:
        return (np.zeros((0, 1), np.float32), np.zeros(0, int), np.zeros(0, int),
                np.zeros((0, 1), np.float32), np.zeros(0, bool))
    return np.concatenate(X), np.array(yr), np.array(ys), np.array(F, np.float32), np.array(fi)


def _job(args):
    deck, n, seed = args
    art.render_deck(deck, with_back=False)
    return deck, deck_samples(deck, n, seed)


class Progress:
    """A plain progress bar on stderr."""

    def __init__(self, total: int, label: str, stream=None):
        self.total, self.label, self.n = total, label, 0
        self.t0 = time.monotonic()
        self.stream = stream if stream is not None else sys.stderr

    def update(self, n: int = 1, note: str = "") -> None:
        self.n += n
        frac = self.n / max(self.total, 1)
        bar = "#" * int(frac * 30)
        el = time.monotonic() - self.t0
        self.stream.write(f"\r{self.label:14s} [{bar:30s}] {self.n}/{self.total} "
                          f"{el:5.1f}s {note[:30]:30s}")
        if self.n >= self.total:
            self.stream.write("\n")
        self.stream.flush()


def training_decks() -> tuple[str, ...]:
    """The training and partly used decks that this machine has."""
    have = set(art.available_decks())
    return tuple(d for d in TRAIN_DECKS + tuple(PARTIAL_DECKS) if d in have)


def training_samples(decks: tuple[str, ...], frames_per_deck: int = 200, seed: int = 1234,
                     workers: int | None = None, quiet: bool = False):
    """Feature vectors and rank/suit labels of the decks' synthetic training frames, then
    the screen's layout figures and index labels (:func:`deck_samples`), in job order, so
    the same arguments give the same samples whichever worker finishes first."""
    from multiprocessing import get_context
    jobs = []
    for i, d in enumerate(decks):
        n = frames_per_deck if d in TRAIN_DECKS else max(frames_per_deck // 2, 4)
        # two jobs per deck so the pool stays busy
        jobs += [(d, n // 2, seed + 2 * i), (d, n - n // 2, seed + 2 * i + 1)]
    workers = workers or max(1, min(len(os.sched_getaffinity(0)), 8))
    bar = Progress(len(jobs), "samples", stream=open(os.devnull, "w") if quiet else None)
    parts: list[tuple] = []
    if workers > 1:
        with get_context("fork" if sys.platform != "win32" else "spawn").Pool(workers) as pool:
            # in job order, so a build is the same whichever worker finishes first
            for deck, samples in pool.imap(_job, jobs):
                if len(samples[1]):
                    parts.append(samples)
                bar.update(1, deck)
    else:
        for j in jobs:
            deck, samples = _job(j)
            if len(samples[1]):
                parts.append(samples)
            bar.update(1, deck)
    return tuple(np.concatenate(column) for column in zip(*parts))


def train(X: np.ndarray, yr: np.ndarray, ys: np.ndarray, seed: int = 1234, epochs: int = 25,
          hidden: int = HIDDEN, quiet: bool = False) -> tuple["classify.MLP", "classify.MLP", dict]:
    """Train the rank and suit MLPs on the samples (a tenth held out to fit the softmax
    temperature and to measure); returns them with their validation figures."""
    from . import classify
    rng = np.random.default_rng(seed)
    perm = rng.permutation(len(yr))
    nval = len(yr) // 10
    val, tr = perm[:nval], perm[nval:]
    # weight: index samples matter more than the many negatives
    cw_r = np.ones(len(classify.RANK_CLASSES), np.float32)
    cw_s = np.ones(len(classify.SUIT_CLASSES), np.float32)
    cw_r[-1] = 0.5; cw_s[-1] = 0.5
    bar = Progress(2 * epochs, "training", stream=open(os.devnull, "w") if quiet else None)
    mr = classify.train_mlp(X[tr], yr[tr], len(classify.RANK_CLASSES), rng, hidden=hidden,
                            epochs=epochs, class_weight=cw_r,
                            progress=lambda e, n: bar.update(1, "rank"))
    ms = classify.train_mlp(X[tr], ys[tr], len(classify.SUIT_CLASSES), rng, hidden=hidden,
                            epochs=epochs, class_weight=cw_s,
                            progress=lambda e, n: bar.update(1, "suit"))
    mr.temperature = classify.fit_temperature(mr, X[val], yr[val])
    ms.temperature = classify.fit_temperature(ms, X[val], ys[val])
    info = dict(samples=int(len(yr)), positives=int((yr != len(classify.RANK_CLASSES) - 1).sum()),
                val_acc_rank=float((mr.proba(X[val]).argmax(1) == yr[val]).mean()),
                val_acc_suit=float((ms.proba(X[val]).argmax(1) == ys[val]).mean()),
                epochs=epochs, hidden=hidden)
    return mr, ms, info


def build(path: Path | None = None, frames_per_deck: int = 200, epochs: int = 25,
          workers: int | None = None, seed: int = 1234, quiet: bool = False,
          decks: tuple[str, ...] | None = None) -> Model:
    """Render the decks, make synthetic training frames, train both MLPs, save."""
    path = Path(path) if path else default_model_path()
    decks = training_decks() if decks is None else decks
    if not decks:
        raise RuntimeError(f"no card decks found in {art.DECK_DIR} (apt-get install gnome-cards-data)")
    t0 = time.monotonic()
    from .screen import train_screen
    X, yr, ys, F, is_index = training_samples(decks, frames_per_deck, seed, workers, quiet)
    mr, ms, fit = train(X, yr, ys, seed, epochs, quiet=quiet)
    screen, screen_fit = train_screen(F, is_index, np.random.default_rng(seed + 1))
    info = dict(decks=list(decks), holdout=list(HOLDOUT_DECKS), **fit, **screen_fit,
                frames_per_deck=frames_per_deck, seconds=round(time.monotonic() - t0, 1))
    model = Model(mr, ms, THRESHOLD, info, screen)
    model.save(path)
    try:  # a copy outside the work tree, so fresh checkouts on this machine reuse it
        shared = _shared_copy()
        shared.parent.mkdir(parents=True, exist_ok=True)
        if shared.resolve() != path.resolve():
            model.save(shared)
    except OSError:
        pass
    if not quiet:
        sys.stderr.write(f"model saved to {path}: {info}\n")
    return model


_cache: dict[str, Model] = {}


def _shared_copy() -> Path:
    return art.cache_dir() / "cardcam" / f"model-v{MODEL_VERSION}.npz"


def get_model(path: Path | None = None, build_if_missing: bool = True) -> Model:
    """The model, loaded once per process; built (and cached on disk) when missing."""
    path = Path(path) if path else default_model_path()
    key = str(path)
    if key in _cache:
        return _cache[key]
    m = None
    if not path.exists() and _shared_copy().exists():
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            import shutil
            shutil.copyfile(_shared_copy(), path)
        except OSError:
            pass
    if path.exists():
        try:
            m = Model.load(path)
        except (ValueError, KeyError, OSError):
            m = None
    if m is None:
        if not build_if_missing:
            raise FileNotFoundError(f"no cardcam model at {path}; run `python -m cardcam build-model`")
        import fcntl
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path.with_name(path.name + ".lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # one builder at a time; others wait and load
            try:
                m = Model.load(path)
            except (ValueError, KeyError, OSError):
                m = build(path)
    _cache[key] = m
    return m
