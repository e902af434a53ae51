"""The screen: a small classifier that drops pairs plainly not an index before they are cut.

A searched frame forms some fifty rank-suit pairs that pass the layout test, and four
in five are not an index (two pips, a pip and a court card's picture, letters of the
picture frame).  Cutting each one in full (glyph crops, colour planes, card-edge
evidence, then the features and both MLPs) is most of a searched frame's cost.  The
layout pass that refines a pair's axis already knows its rank and suit boxes, their ink
and a coarse picture of each (``detect._layout_figures``); a small MLP on those figures
tells an index from the rest well enough to drop about half of the others.

It is trained in the model build on the same candidates as the rank and suit MLPs, and
its cut is set to pass all but ``KEEP_LOST`` of the training decks' indices: it is
there to save time, never to decide a card, so it keeps anything that might be one.
It only reads figures: the MLP is ``classify``'s, in numpy.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import classify

#: hidden units of the screen's MLP (16, 32 and 64 tried: 32 dropped the most other pairs
#: with no right read lost on the held-out decks' frames)
HIDDEN = 32
#: share of the training decks' index pairs the screen may drop: its cut is the
#: probability under which that share of them fall
KEEP_LOST = 0.0005
#: weight of an index sample against a pair that is not one, in training
INDEX_WEIGHT = 4.0


@dataclass
class Screen:
    """The screen's MLP and its cut: ``keep(figures)`` says which pairs to cut."""
    mlp: classify.MLP
    cut: float

    def score(self, figures: np.ndarray) -> np.ndarray:
        """One probability per row of layout figures that the pair is an index."""
        return self.mlp.proba(figures)[:, 1]

    def keep(self, figures: np.ndarray) -> np.ndarray:
        """One bool per row of layout figures: whether that pair may be an index."""
        return self.score(figures) >= self.cut

    def to_dict(self, prefix: str = "screen") -> dict[str, np.ndarray]:
        return {**self.mlp.to_dict(prefix), f"{prefix}_cut": np.float32(self.cut)}

    @classmethod
    def from_dict(cls, d, prefix: str = "screen") -> "Screen":
        return cls(classify.MLP.from_dict(d, prefix), float(d[f"{prefix}_cut"]))


def train_screen(X: np.ndarray, is_index: np.ndarray, rng: np.random.Generator,
                 epochs: int = 40) -> tuple[Screen, dict]:
    """Train the screen on layout figures ``X`` labelled index (1) or not (0); the cut
    passes all but ``KEEP_LOST`` of the index samples.  Returns it with its figures."""
    y = is_index.astype(int)
    mlp = classify.train_mlp(X, y, 2, rng, hidden=HIDDEN, epochs=epochs,
                             class_weight=np.array([1.0, INDEX_WEIGHT], np.float32))
    p = mlp.proba(X)[:, 1]
    cut = float(np.quantile(p[y == 1], KEEP_LOST)) if (y == 1).any() else 0.0
    dropped = float((p[y == 0] < cut).mean()) if (y == 0).any() else 0.0
    return Screen(mlp, cut), dict(screen_samples=int(len(y)), screen_indices=int(y.sum()),
                                  screen_cut=cut, screen_drops_others=round(dropped, 3))
