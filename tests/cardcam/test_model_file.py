"""The model file: what is trained is what is loaded, for one MLP or an ensemble of them."""
from __future__ import annotations

import numpy as np
import pytest

from cardcam import classify, model


def _samples(n=600, d=12, seed=0):
    rng = np.random.default_rng(seed)
    yr = rng.integers(0, len(classify.RANK_CLASSES), n)
    ys = rng.integers(0, len(classify.SUIT_CLASSES), n)
    X = rng.standard_normal((n, d)).astype(np.float32) + yr[:, None] * 0.5 + ys[:, None] * 0.1
    return X.astype(np.float32), yr, ys


def test_training_is_the_same_for_the_same_seed_and_differs_for_another():
    X, yr, ys = _samples()
    a, _, _ = model.train(X, yr, ys, seed=7, epochs=2, hidden=8, quiet=True)
    b, _, _ = model.train(X, yr, ys, seed=7, epochs=2, hidden=8, quiet=True)
    c, _, _ = model.train(X, yr, ys, seed=8, epochs=2, hidden=8, quiet=True)
    assert np.array_equal(a.W1, b.W1) and np.array_equal(a.W2, b.W2)
    assert not np.array_equal(a.W1, c.W1)


def test_an_ensemble_reads_the_mean_of_its_members_and_survives_the_file(tmp_path):
    X, yr, ys = _samples()
    members = [model.train(X, yr, ys, seed=s, epochs=2, hidden=8, quiet=True) for s in (1, 2)]
    rank = classify.Ensemble([m[0] for m in members])
    suit = classify.Ensemble([m[1] for m in members])
    mean = (members[0][0].proba(X) + members[1][0].proba(X)) / 2
    assert np.allclose(rank.proba(X), mean)
    assert np.allclose(rank.proba(X).sum(axis=1), 1.0, atol=1e-5)
    path = tmp_path / "ensemble.npz"
    model.Model(rank, suit, 0.93, {"variant": "test"}).save(path)
    back = model.Model.load(path)
    assert isinstance(back.rank, classify.Ensemble) and len(back.rank.members) == 2
    assert np.allclose(back.rank.proba(X), rank.proba(X), atol=1e-6)
    assert np.allclose(back.suit.proba(X), suit.proba(X), atol=1e-6)
    assert back.info == {"variant": "test"}


def test_a_single_mlp_file_loads_as_one_mlp(tmp_path):
    X, yr, ys = _samples()
    mr, ms, info = model.train(X, yr, ys, seed=3, epochs=2, hidden=8, quiet=True)
    assert info["hidden"] == 8 and 0.0 <= info["val_acc_rank"] <= 1.0
    path = tmp_path / "one.npz"
    model.Model(mr, ms, 0.93, info).save(path)
    back = model.Model.load(path)
    assert isinstance(back.rank, classify.MLP)
    assert np.allclose(back.rank.proba(X), mr.proba(X), atol=1e-6)


def test_a_model_file_of_another_version_is_refused(tmp_path):
    X, yr, ys = _samples()
    mr, ms, _ = model.train(X, yr, ys, seed=3, epochs=1, hidden=4, quiet=True)
    path = tmp_path / "old.npz"
    model.Model(mr, ms).save(path)
    with np.load(path) as d:
        data = dict(d)
    data["version"] = np.int32(model.MODEL_VERSION - 1)
    np.savez(path, **data)
    with pytest.raises(ValueError, match="version"):
        model.Model.load(path)
