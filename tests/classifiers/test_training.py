"""Features, the linear model's persistence and decision rule, threshold choice, grouped cross-validation."""

from __future__ import annotations

import numpy as np
import pytest

from aac.classifiers.base import ItemInput
from aac.classifiers.datasets import Labelled, own_examples
from aac.classifiers.features import featurize, hash_tokens, item_tokens
from aac.classifiers.linear import LinearModel, decide, risk_adjust
from aac.classifiers.training import FitOptions, choose_threshold, fit


def test_feature_hashing_is_stable_across_processes():
    # CRC32, not Python's salted hash(): a saved model must mean the same thing in every process.
    import zlib

    assert hash_tokens(["never"], 1 << 17) == [zlib.crc32(b"never") & ((1 << 17) - 1)]


def test_declarative_risk_facts_get_the_declarative_risk_feature():
    toks = item_tokens(ItemInput("The prod database holds the only copy of patient records."))
    assert "declarative_risk" in toks and "cue:health" in toks and "cue:destroy" in toks


def test_section_headings_contribute_features():
    assert "scue:safety" in item_tokens(ItemInput("data/*.db", ("Never Commit",)))


def test_featurize_returns_csr_arrays():
    idx, ptr = featurize([ItemInput("a b"), ItemInput("c")])
    assert ptr[0] == 0 and ptr[-1] == len(idx) and len(ptr) == 3


def test_risk_adjust_puts_the_threshold_at_one_half_and_keeps_distributions():
    p = np.array([[0.2, 0.2, 0.2, 0.2, 0.2], [0.1, 0.6, 0.1, 0.1, 0.1]])
    q = risk_adjust(p, ["user", "user"], threshold=0.2)
    assert q[0, 0] == pytest.approx(0.5) and decide(q) == [0, 1]
    assert np.allclose(q.sum(axis=1), 1.0)


def test_choose_threshold_prefers_recall():
    p = np.array([0.9, 0.3, 0.25, 0.1, 0.05])
    is_c = np.array([True, True, False, False, False])
    assert choose_threshold(p, is_c) <= 0.3


def test_fit_save_load_round_trip(tmp_path):
    model = fit(own_examples(), FitOptions(folds=3))
    path = model.save(tmp_path / "m.npz")
    again = LinearModel.load(path)
    items = [e.item for e in own_examples()[:5]]
    assert np.allclose(model.probabilities(items), again.probabilities(items), atol=1e-2)
    assert again.c_threshold == pytest.approx(model.c_threshold)


def test_own_examples_have_at_least_ten_per_type():
    from collections import Counter

    counts = Counter(e.label for e in own_examples())
    assert all(counts[t] >= 10 for t in "CPBFE")


def test_labelled_rejects_unknown_labels(tmp_path):
    from aac.classifiers.datasets import load_gold

    bad = tmp_path / "g.jsonl"
    bad.write_text('{"id": "1", "text": "x", "label": "Q"}\n')
    with pytest.raises(ValueError, match="not one of"):
        load_gold(bad)
    assert isinstance(Labelled(ItemInput("x"), "C"), Labelled)


def test_cluster_features_round_trip_and_assign_each_item(tmp_path):
    from aac.classifiers.clusters import ClusterModel

    items = [e.item for e in own_examples()]
    cm = ClusterModel.fit(items, dims=10, min_cluster_size=3)
    ids = cm.assign(items[:7])
    assert len(ids) == 7 and all(k == -1 or 0 <= k < len(cm.centroids) for k in ids)
    np.savez(tmp_path / "c.npz", **cm.arrays())
    with np.load(tmp_path / "c.npz") as z:
        again = ClusterModel.from_arrays(z)
    assert (again.assign(items[:7]) == ids).all()
