"""Read rank and suit from an index candidate: features and a small numpy MLP.

Two classifiers share one feature vector (HOG and coarse pixels of the rank and suit
glyphs, plus shape and colour figures):

* rank: ``23456789TJQKA`` plus ``X`` (not an index: pips, artwork, wrong orientation,
  foreign court letters such as B/D/R/V);
* suit: ``cdhs`` plus ``X``.

Both return probabilities; :func:`cardcam.checks.decide` turns them into a card only when
both are sure and no check refuses the read.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .detect import SUIT_SIZE, Candidate

RANK_CLASSES = "23456789TJQKAX"
SUIT_CLASSES = "cdhsX"
#: The column of :func:`features_batch` that holds :func:`pip_likeness`, which
#: :func:`cardcam.checks.decide` holds a read to as well.
PIP_COLUMN = -1



def hog(img: np.ndarray, cell: tuple[int, int], bins: int = 9) -> np.ndarray:
    """Histogram of oriented gradients: 2x2-cell blocks, stride one cell, L2-Hys."""
    return hog_batch(img[None], cell, bins)[0]


def hog_batch(imgs: np.ndarray, cell: tuple[int, int], bins: int = 9) -> np.ndarray:
    """:func:`hog` of N same-size images at once, (N, h, w) -> (N, features): a frame's
    candidates are described in one pass instead of one small pass each."""
    f = imgs.astype(np.float32)
    # centred differences with a reflected border (what cv2.Sobel(ksize=1) computes): the
    # border's mirror is its inner neighbour, so the difference across the border is 0;
    # set so rather than padded, as np.pad costs more than the rest of the gradients
    gx = np.zeros_like(f)
    gy = np.zeros_like(f)
    np.subtract(f[:, :, 2:], f[:, :, :-2], out=gx[:, :, 1:-1])
    np.subtract(f[:, 2:, :], f[:, :-2, :], out=gy[:, 1:-1, :])
    mag = np.sqrt(gx * gx + gy * gy)
    ang = (np.degrees(np.arctan2(gy, gx)) % 180.0) / (180.0 / bins)
    fl = np.floor(ang)
    b0 = fl.astype(np.int64) % bins
    w1 = ang - fl
    b1 = (b0 + 1) % bins
    N, h, w = f.shape
    cw, ch = cell
    ny, nx = h // ch, w // cw
    cy = (np.arange(h) // ch)[:, None].clip(max=ny - 1)
    cx = (np.arange(w) // cw)[None, :].clip(max=nx - 1)
    size = ny * nx * bins
    cid = (np.arange(N)[:, None, None] * size + (cy * nx + cx) * bins)
    hist = (np.bincount((cid + b0).ravel(), (mag * (1 - w1)).ravel(), N * size)
            + np.bincount((cid + b1).ravel(), (mag * w1).ravel(), N * size)).astype(np.float32)
    hist = hist.reshape(N, ny, nx, bins)
    blocks = np.concatenate([hist[:, :-1, :-1], hist[:, :-1, 1:], hist[:, 1:, :-1], hist[:, 1:, 1:]],
                            axis=3).reshape(N, -1, 4 * bins)
    blocks /= np.sqrt((blocks ** 2).sum(axis=2, keepdims=True)) + 1e-3
    blocks = np.minimum(blocks, 0.2)
    blocks /= np.sqrt((blocks ** 2).sum(axis=2, keepdims=True)) + 1e-3
    return blocks.reshape(N, -1)


def _u8(crops: np.ndarray) -> np.ndarray:
    """Crops (N, h, w) scaled so each one's darkest ink is 255, as uint8."""
    mx = crops.reshape(len(crops), -1).max(axis=1).astype(np.float64)
    k = np.where(mx > 1e-6, 255.0 / np.maximum(mx, 1e-6), 0.0).astype(np.float32)
    return np.clip(crops * k[:, None, None], 0, 255).astype(np.uint8)


def _shrink(imgs: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """cv2.resize(INTER_AREA) of N same-size images to ``size`` (w, h), in one call: the
    images are stacked in one column, and each output row maps to one image's rows."""
    N, h, w = imgs.shape
    tall = cv2.resize(np.ascontiguousarray(imgs).reshape(N * h, w), (size[0], N * size[1]),
                      interpolation=cv2.INTER_AREA)
    return tall.reshape(N, size[1], size[0])


def pip_likeness(rank_crops: np.ndarray, suit_crops: np.ndarray) -> np.ndarray:
    """Correlation of each rank glyph with its suit glyph, one per pair: high for two pips
    (a card's body), low for an index."""
    N = len(rank_crops)
    r = _shrink(rank_crops, SUIT_SIZE).reshape(N, -1)
    s = suit_crops.reshape(N, -1)
    r = r - r.mean(axis=1, keepdims=True)
    s = s - s.mean(axis=1, keepdims=True)
    den = np.sqrt((r * r).sum(axis=1) * (s * s).sum(axis=1))
    return np.where(den > 1e-6, (r * s).sum(axis=1) / np.maximum(den, 1e-6), 0.0)


def features(c: Candidate) -> np.ndarray:
    """The feature vector of one candidate (see :func:`features_batch`)."""
    return features_batch([c])[0]


def features_batch(cands: list[Candidate]) -> np.ndarray:
    """Feature vectors of candidates, one row each: HOG and coarse pixels of the rank and
    suit glyphs, then their shape and colour figures, the pip-likeness last
    (:data:`PIP_COLUMN`)."""
    rank = np.stack([c.rank.crop for c in cands]).astype(np.float32, copy=False)
    suit = np.stack([c.suit.crop for c in cands]).astype(np.float32, copy=False)
    r8, s8 = _u8(rank), _u8(suit)
    N = len(cands)
    hr = hog_batch(r8, (6, 8))
    hs = hog_batch(s8, (6, 6))
    pr = _shrink(r8, (6, 8)).reshape(N, -1).astype(np.float32) / 255
    ps = _shrink(s8, (6, 6)).reshape(N, -1).astype(np.float32) / 255
    pip = pip_likeness(rank, suit)
    sc = np.array([[
        np.log(max(c.rank.aspect, 1e-3)), np.log(max(c.suit.aspect, 1e-3)),
        c.rank.size, c.suit.size, c.rank.size / max(c.suit.size, 1e-3),
        c.rank.mass, c.suit.mass, c.rank.red, c.suit.red, c.rank.sat, c.suit.sat,
        abs(c.rank.red - c.suit.red), c.corner, q,
    ] for c, q in zip(cands, pip)], np.float32)
    return np.concatenate([hr, hs, pr, ps, sc], axis=1).astype(np.float32)


# ----------------------------------------------------------------------------- MLP

@dataclass
class MLP:
    mean: np.ndarray
    std: np.ndarray
    W1: np.ndarray
    b1: np.ndarray
    W2: np.ndarray
    b2: np.ndarray
    temperature: float = 1.0

    def logits(self, X: np.ndarray) -> np.ndarray:
        Z = (X - self.mean) / self.std
        Hd = np.maximum(Z @ self.W1 + self.b1, 0)
        return Hd @ self.W2 + self.b2

    def proba(self, X: np.ndarray) -> np.ndarray:
        L = self.logits(X) / self.temperature
        L -= L.max(axis=1, keepdims=True)
        P = np.exp(L)
        return P / P.sum(axis=1, keepdims=True)

    def to_dict(self, prefix: str) -> dict[str, np.ndarray]:
        return {f"{prefix}_{k}": np.asarray(getattr(self, k), np.float32)
                for k in ("mean", "std", "W1", "b1", "W2", "b2", "temperature")}

    @classmethod
    def from_dict(cls, d, prefix: str) -> "MLP":
        g = lambda k: np.asarray(d[f"{prefix}_{k}"], np.float32)  # noqa: E731
        return cls(g("mean"), g("std"), g("W1"), g("b1"), g("W2"), g("b2"),
                   float(g("temperature")))


@dataclass
class Ensemble:
    """MLPs trained alike from different seeds; their probabilities are averaged."""
    members: list[MLP]

    def proba(self, X: np.ndarray) -> np.ndarray:
        return sum(m.proba(X) for m in self.members) / len(self.members)

    def to_dict(self, prefix: str) -> dict[str, np.ndarray]:
        d = {f"{prefix}_members": np.int32(len(self.members))}
        for i, m in enumerate(self.members):
            d.update(m.to_dict(f"{prefix}{i}"))
        return d

    @classmethod
    def from_dict(cls, d, prefix: str) -> "Ensemble":
        return cls([MLP.from_dict(d, f"{prefix}{i}") for i in range(int(d[f"{prefix}_members"]))])


def load_classifier(d, prefix: str) -> "MLP | Ensemble":
    """The MLP or ensemble saved under ``prefix`` in an npz mapping."""
    if f"{prefix}_members" in d:
        return Ensemble.from_dict(d, prefix)
    return MLP.from_dict(d, prefix)


def train_mlp(X: np.ndarray, y: np.ndarray, n_classes: int, rng: np.random.Generator,
              hidden: int = 160, epochs: int = 30, lr: float = 2e-3, wd: float = 1e-4,
              class_weight: np.ndarray | None = None, progress=None) -> MLP:
    """Softmax MLP, one hidden ReLU layer, Adam, minibatches."""
    X = X.astype(np.float32)
    mean = X.mean(axis=0)
    std = X.std(axis=0) + 1e-3
    Z = (X - mean) / std
    n, d = Z.shape
    W1 = (rng.standard_normal((d, hidden)) * np.sqrt(2.0 / d)).astype(np.float32)
    b1 = np.zeros(hidden, np.float32)
    W2 = (rng.standard_normal((hidden, n_classes)) * np.sqrt(1.0 / hidden)).astype(np.float32)
    b2 = np.zeros(n_classes, np.float32)
    params = [W1, b1, W2, b2]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    cw = np.ones(n_classes, np.float32) if class_weight is None else class_weight.astype(np.float32)
    Y = np.eye(n_classes, dtype=np.float32)[y]
    t = 0
    bs = 256
    for ep in range(epochs):
        order = rng.permutation(n)
        lr_ep = lr * (0.5 * (1 + np.cos(np.pi * ep / epochs)))
        for k in range(0, n, bs):
            idx = order[k:k + bs]
            xb, yb = Z[idx], Y[idx]
            # input noise / dropout for robustness
            xb = xb * (rng.random(xb.shape, dtype=np.float32) > 0.1)
            h = xb @ W1 + b1
            hr = np.maximum(h, 0)
            lo = hr @ W2 + b2
            lo -= lo.max(axis=1, keepdims=True)
            p = np.exp(lo)
            p /= p.sum(axis=1, keepdims=True)
            w = (yb * cw).sum(axis=1, keepdims=True)
            g = (p - yb) * w / len(idx)
            gW2 = hr.T @ g + wd * W2
            gb2 = g.sum(axis=0)
            gh = (g @ W2.T) * (h > 0)
            gW1 = xb.T @ gh + wd * W1
            gb1 = gh.sum(axis=0)
            t += 1
            for i, (p_, g_) in enumerate(zip(params, (gW1, gb1, gW2, gb2))):
                m[i] = 0.9 * m[i] + 0.1 * g_
                v[i] = 0.999 * v[i] + 0.001 * g_ * g_
                mh = m[i] / (1 - 0.9 ** t)
                vh = v[i] / (1 - 0.999 ** t)
                p_ -= lr_ep * mh / (np.sqrt(vh) + 1e-8)
        if progress:
            progress(ep + 1, epochs)
    return MLP(mean, std, W1, b1, W2, b2)


def fit_temperature(mlp: MLP, X: np.ndarray, y: np.ndarray) -> float:
    """Pick the softmax temperature that minimises held-out NLL (simple grid)."""
    L = mlp.logits(X)
    best, best_t = np.inf, 1.0
    for t in np.linspace(0.7, 4.0, 34):
        z = L / t
        z = z - z.max(axis=1, keepdims=True)
        nll = -(z[np.arange(len(y)), y] - np.log(np.exp(z).sum(axis=1))).mean()
        if nll < best:
            best, best_t = nll, float(t)
    return best_t
