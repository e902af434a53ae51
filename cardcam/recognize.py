"""``recognize(image, n_cards) -> Read``: one frame in, shown/identified cards out."""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from . import classify, detect
from .art import UNKNOWN
from .model import Model, get_model


@dataclass(frozen=True)
class CardHit:
    card: str
    confidence: float
    box: tuple[float, float, float, float]   # index box in image px (x0, y0, x1, y1)


@dataclass(frozen=True)
class Read:
    """What one frame shows.

    ``shown``: card faces were presented to the camera (even if unreadable).
    ``faces``: how many card faces were seen (at most ``n_cards``).
    ``cards``: ``n_cards`` codes, identified cards first (left to right), ``"??"`` for
    the rest; every code other than ``"??"`` is an assertion.
    ``confidence``: per entry of ``cards`` (0.0 for ``"??"``).
    """
    shown: bool
    faces: int
    cards: tuple[str, ...]
    confidence: tuple[float, ...]
    hits: tuple[CardHit, ...] = field(default=(), compare=False)
    ms: float = field(default=0.0, compare=False)

    @property
    def identified(self) -> tuple[str, ...]:
        return tuple(c for c in self.cards if c != UNKNOWN)


def _profile_model(profile) -> tuple[Model | None, object]:
    if profile is None:
        return None, None
    from .calibrate import Profile, load_profile
    if isinstance(profile, (str, Path)):
        profile = load_profile(profile)
    if not isinstance(profile, Profile):
        raise TypeError("profile must be a Profile or a path")
    return None, profile


def read_candidates(image: np.ndarray, model: Model | None = None, profile=None):
    """All index candidates of a frame with their reads (for debugging and calibration)."""
    model = model or get_model()
    a = detect.analyse(image)
    cands = detect.candidates(a)
    if not cands:
        return a, [], []
    X = np.stack([classify.features(c) for c in cands])
    Pr = model.rank.proba(X)
    Ps = model.suit.proba(X)
    threshold = model.threshold
    if profile is not None:
        Pr, Ps = profile.adjust(X, Pr, Ps)
        threshold = profile.threshold
    reads = classify.decide(cands, Pr, Ps, threshold)
    reads = [_stable(a, r, model, profile, threshold) if r.card != UNKNOWN else r for r in reads]
    return a, cands, reads


#: Test-time jitters (degrees, scale): a sure read must survive all of them.
JITTERS = ((4.0, 1.0), (-4.0, 1.0), (0.0, 0.92), (0.0, 1.08))


def _stable(a, r, model, profile, threshold):
    """Re-read an asserted candidate at small rotations/scales; any disagreement -> ??."""
    c = r.cand
    feats = []
    for deg, sc in JITTERS:
        t = np.radians(deg)
        R = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
        j = detect.candidate_at(a, c.centre, R @ c.down, c.unit * sc, c.comps)
        if j is None:
            continue
        feats.append((j, classify.features(j)))
    if len(feats) < len(JITTERS) - 1:
        return classify.CardRead(UNKNOWN, 0.0, r.index_like, r.box, c)
    X = np.stack([f for _, f in feats])
    Pr, Ps = model.rank.proba(X), model.suit.proba(X)
    if profile is not None:
        Pr, Ps = profile.adjust(X, Pr, Ps)
    again = classify.decide([j for j, _ in feats], Pr, Ps, threshold * 0.9)
    if any(q.card != r.card for q in again):
        return classify.CardRead(UNKNOWN, 0.0, r.index_like, r.box, c)
    return r


def _near(r1, r2) -> bool:
    c1, c2 = r1.cand, r2.cand
    return float(np.hypot(*(c1.centre - c2.centre))) < 1.2 * max(c1.unit, c2.unit)


def recognize(image: np.ndarray, n_cards: int = 2, *, model: Model | None = None,
              profile=None) -> Read:
    """Read one frame.  ``n_cards`` comes from the game (2 hold'em, 4 Omaha).

    Confidence first: a code is returned only when the classifier is sure, the ink
    colour fits the suit, and no overlapping reading of the same glyphs disagrees.
    """
    t0 = time.perf_counter()
    if image is None or getattr(image, "size", 0) == 0:
        raise ValueError("empty image")
    _, prof = _profile_model(profile)
    if not detect.has_paper(image):  # felt, a thumb, card backs: no face to read
        return Read(False, 0, (UNKNOWN,) * n_cards, (0.0,) * n_cards, (), (time.perf_counter() - t0) * 1000)
    a, cands, reads = read_candidates(image, model, prof)
    # 1. conflicting reads of the same glyphs, or of the same spot: nobody wins
    sure = [r for r in reads if r.card != UNKNOWN]
    bad = set()
    for i, r in enumerate(sure):
        for j in range(i + 1, len(sure)):
            q = sure[j]
            if r.card != q.card and (set(r.cand.comps) & set(q.cand.comps) or _near(r, q)):
                bad.add(i); bad.add(j)
    sure = [r for i, r in enumerate(sure) if i not in bad]
    # 2. fuse corners of the same card
    best: dict[str, tuple[float, classify.CardRead]] = {}
    count: dict[str, int] = {}
    for r in sure:
        count[r.card] = count.get(r.card, 0) + 1
        if r.card not in best or r.confidence > best[r.card][0]:
            best[r.card] = (r.confidence, r)
    fused = []
    for card, (conf, r) in best.items():
        if count[card] > 1:
            conf = 1.0 - (1.0 - conf) * 0.5
        fused.append((card, conf, r))
    fused.sort(key=lambda t: -t[1])
    # 3. more distinct cards than the game allows: keep only the surest, if clearly so
    if len(fused) > n_cards:
        extra = fused[n_cards:]
        keep = fused[:n_cards]
        margin = extra[0][1]
        keep = [(c, p, r) for c, p, r in keep if p > margin + 0.05]
        fused = keep
    # faces: identified cards, plus index-like spots that are not near an identified one
    idx_like = [r for r in reads if r.index_like > 0.6]
    extra_spots: list = []
    for r in idx_like:
        if r.card != UNKNOWN and any(r.card == c for c, _, _ in fused):
            continue
        if any(_near(r, fr) for _, _, fr in fused) or any(_near(r, s) for s in extra_spots):
            continue
        extra_spots.append(r)
    faces = min(n_cards, len(fused) + len(extra_spots))
    if faces == 0:
        faces = min(n_cards, _face_count(a))
    fused.sort(key=lambda t: t[2].box[0])
    cards = tuple(c for c, _, _ in fused) + (UNKNOWN,) * (n_cards - len(fused))
    conf = tuple(round(float(p), 4) for _, p, _ in fused) + (0.0,) * (n_cards - len(fused))
    hits = tuple(CardHit(c, round(float(p), 4), tuple(round(v, 1) for v in r.box))
                 for c, p, r in fused)
    return Read(faces > 0, faces, cards, conf, hits, (time.perf_counter() - t0) * 1000)


def _face_count(a: detect.Analysis) -> int:
    """Card faces from paper regions alone (when no index could be read, e.g. glare)."""
    n = 0
    for f in detect.face_regions(a):
        if f["solidity"] > 0.75 and 0.01 < f["ink"] < 0.5:
            n += 1
    return n
