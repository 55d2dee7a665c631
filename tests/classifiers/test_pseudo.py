"""aac.classifiers.pseudo: pseudo-labelled rows on top of the shipped fit, and how modes turn into targets."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from aac.classifiers import training
from aac.classifiers.base import ItemInput
from aac.classifiers.datasets import own_examples
from aac.classifiers.pseudo import PseudoMode, distilled_oof, targets
from aac.classifiers.training import FitOptions
from aac.classifiers.unlabelled import PoolItem


def _data():
    own = own_examples()
    dev = [replace(d, group=f"repo{i % 6}", source="gold") for i, d in enumerate(own[:90])]
    return own[90:] + dev


def _pool():
    return [PoolItem(ItemInput("Never push to main."), "repo1", "AGENTS.md", "a"),
            PoolItem(ItemInput("We use pnpm."), "x/b", "AGENTS.md", "b")]


def test_mode_parsing_and_rejection():
    assert PseudoMode.parse("soft/c") == PseudoMode(True, 0.0, True, False)
    assert PseudoMode.parse("hard0.7/bal") == PseudoMode(False, 0.7, False, True)
    with pytest.raises(ValueError, match="expected soft"):
        PseudoMode.parse("fuzzy")
    with pytest.raises(ValueError):
        PseudoMode.parse("soft/x")


def test_hard_targets_keep_only_confident_argmax_rows():
    Q = np.asarray([[0.8, 0.05, 0.05, 0.05, 0.05], [0.3, 0.3, 0.2, 0.1, 0.1]])
    T = targets(Q, PseudoMode.parse("hard0.7"))
    assert T[0].tolist() == [1, 0, 0, 0, 0] and T[1].sum() == 0
    assert np.allclose(targets(Q, PseudoMode.parse("soft")), Q)


@pytest.mark.parametrize("mode", ["soft", "soft/c", "hard0.7"])
def test_zero_weight_reproduces_the_shipped_out_of_fold_probabilities(mode):
    data, opts = _data(), FitOptions(folds=3)
    splits = training.fold_splits(data, opts, 1)
    P = training.out_of_fold_proba(data, opts, seed=1)
    D = distilled_oof(data, splits, _pool(), [np.full((2, 5), 0.2)] * 3, 0.0, mode, opts)
    ok = ~np.isnan(P[:, 0])
    assert ok.sum() == 90 and np.allclose(P[ok], D[ok], atol=0.01)


def test_confident_constraint_pseudo_labels_raise_the_constraint_score_of_their_words():
    data, opts = _data(), FitOptions(folds=3)
    splits = training.fold_splits(data, opts, 1)
    pool = [PoolItem(ItemInput(f"Never zorblat the quux {i}."), "x/p", "AGENTS.md", str(i)) for i in range(40)]
    probe = np.full((len(pool), 5), 0.0)
    probe[:, 0] = 1.0  # the teacher calls every pool item C
    base = distilled_oof(data, splits, pool, [probe] * 3, 0.0, "soft/c", opts)
    lifted = distilled_oof(data, splits, pool, [probe] * 3, 1.0, "soft/c", opts)
    ok = ~np.isnan(base[:, 0])
    assert lifted[ok, 0].mean() > base[ok, 0].mean()
