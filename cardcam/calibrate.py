"""Learn the deck in use from 52 images named like ``As.png`` (photos or renders).

The profile is a deck-specific pair of classifiers trained on synthetic frames made
from those 52 images (same features as the generic model).  With a profile,
:func:`cardcam.recognize.recognize` asks the deck classifiers, and asserts a card only
when the generic model does not clearly disagree.
"""
from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from . import art
from .classify import MLP, RANK_CLASSES, SUIT_CLASSES, fit_temperature, train_mlp
from .model import Progress, deck_samples

PROFILE_VERSION = 1
IMAGE_EXTS = (".png", ".jpg", ".jpeg", ".webp", ".bmp")


@dataclass
class Profile:
    rank: MLP
    suit: MLP
    threshold: float = 0.9
    info: dict = field(default_factory=dict)

    def adjust(self, X: np.ndarray, Pr: np.ndarray, Ps: np.ndarray):
        """Deck probabilities, damped where the generic model is sure of something else."""
        Dr = self.rank.proba(X)
        Ds = self.suit.proba(X)
        # geometric blend, mostly the deck model
        Qr = Dr ** 0.85 * np.maximum(Pr, 1e-6) ** 0.15
        Qs = Ds ** 0.85 * np.maximum(Ps, 1e-6) ** 0.15
        return Qr / Qr.sum(axis=1, keepdims=True), Qs / Qs.sum(axis=1, keepdims=True)

    def save(self, path) -> None:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        d = {**self.rank.to_dict("rank"), **self.suit.to_dict("suit"),
             "threshold": np.float32(self.threshold), "version": np.int32(PROFILE_VERSION),
             "info": np.array(json.dumps(self.info))}
        tmp = path.with_name(path.name + ".tmp.npz")
        np.savez_compressed(tmp, **d)
        os.replace(tmp, path)


def load_profile(path) -> Profile:
    with np.load(Path(path), allow_pickle=False) as d:
        if int(d["version"]) != PROFILE_VERSION:
            raise ValueError(f"profile {path}: unsupported version {int(d['version'])}")
        return Profile(MLP.from_dict(d, "rank"), MLP.from_dict(d, "suit"),
                       float(d["threshold"]), json.loads(str(d["info"])))


def load_card_images(folder) -> dict[str, np.ndarray]:
    """``As.png`` ... ``2c.png`` from a folder, as BGRA at the render height.

    Case of the rank letter is forgiven (``as.png``, ``AS.png``); ``10h`` means ``Th``.
    Raises ``ValueError`` listing missing cards.
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise ValueError(f"not a folder: {folder}")
    found: dict[str, np.ndarray] = {}
    for p in sorted(folder.iterdir()):
        if p.suffix.lower() not in IMAGE_EXTS:
            continue
        stem = p.stem.strip()
        if stem.startswith("10"):
            stem = "T" + stem[2:]
        if len(stem) != 2:
            continue
        code = stem[0].upper() + stem[1].lower()
        if code not in art.CARDS:
            continue
        img = cv2.imread(str(p), cv2.IMREAD_UNCHANGED)
        if img is None:
            raise ValueError(f"cannot read image {p}")
        if img.ndim == 2:
            img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGRA)
        elif img.shape[2] == 3:
            img = cv2.cvtColor(img, cv2.COLOR_BGR2BGRA)
        if img.dtype != np.uint8:
            img = (img / 257).astype(np.uint8)
        img = art.crop_visible(img)
        if img.shape[1] > img.shape[0]:  # landscape photo: turn to portrait
            img = cv2.rotate(img, cv2.ROTATE_90_CLOCKWISE)
        s = art.RENDER_HEIGHT / img.shape[0]
        img = cv2.resize(img, (max(2, round(img.shape[1] * s)), art.RENDER_HEIGHT),
                         interpolation=cv2.INTER_AREA if s < 1 else cv2.INTER_CUBIC)
        found[code] = img
    missing = [c for c in art.CARDS if c not in found]
    if missing:
        raise ValueError(f"{len(missing)} card image(s) missing in {folder}: {' '.join(missing[:13])}"
                         + (" ..." if len(missing) > 13 else ""))
    return found


def calibrate(images, out=None, frames: int = 160, epochs: int = 25, seed: int = 99,
              quiet: bool = False) -> Profile:
    """Train a deck profile from a folder (or mapping) of 52 card images; save to ``out``."""
    cards = images if isinstance(images, dict) else load_card_images(images)
    rng = np.random.default_rng(seed)
    chunks = 8
    bar = Progress(chunks + 2, "calibrate", stream=open(os.devnull, "w") if quiet else sys.stderr)
    Xs, yrs, yss = [], [], []
    for k in range(chunks):
        X, yr, ys, _, _ = deck_samples(cards, frames // chunks, seed * 1000 + k)
        if len(yr):
            Xs.append(X); yrs.append(yr); yss.append(ys)
        bar.update(1, "frames")
    if not Xs:
        raise RuntimeError("calibration found no card indices in the images")
    X = np.concatenate(Xs); yr = np.concatenate(yrs); ys = np.concatenate(yss)
    perm = rng.permutation(len(yr))
    nval = max(len(yr) // 8, 1)
    val, tr = perm[:nval], perm[nval:]
    mr = train_mlp(X[tr], yr[tr], len(RANK_CLASSES), rng, hidden=96, epochs=epochs)
    bar.update(1, "rank")
    ms = train_mlp(X[tr], ys[tr], len(SUIT_CLASSES), rng, hidden=96, epochs=epochs)
    bar.update(1, "suit")
    mr.temperature = fit_temperature(mr, X[val], yr[val])
    ms.temperature = fit_temperature(ms, X[val], ys[val])
    info = dict(samples=int(len(yr)), frames=frames,
                val_acc_rank=float((mr.proba(X[val]).argmax(1) == yr[val]).mean()),
                val_acc_suit=float((ms.proba(X[val]).argmax(1) == ys[val]).mean()))
    prof = Profile(mr, ms, 0.9, info)
    if out is not None:
        prof.save(out)
    return prof
