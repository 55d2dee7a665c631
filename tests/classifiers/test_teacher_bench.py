"""bench/classify_teacher.py: its distillation fit is the shipped recipe when pseudo rows weigh nothing; batches."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from aac.classifiers import training
from aac.classifiers.base import ItemInput
from aac.classifiers.datasets import own_examples
from aac.classifiers.training import FitOptions


def _data():
    own = own_examples()
    dev = [replace(d, group=f"repo{i % 6}", source="gold") for i, d in enumerate(own[:90])]
    return own[90:] + dev


def test_distillation_with_zero_weight_reproduces_the_shipped_out_of_fold_probabilities(load_bench):
    bench, data, opts = load_bench("classify_teacher"), _data(), FitOptions(folds=3)
    pool = [ItemInput("Never push to main."), ItemInput("We use pnpm.")]
    teacher = [np.full((2, 5), 0.2)] * 3
    P = training.out_of_fold_proba(data, opts, seed=1)
    D = bench.distilled_oof(data, opts, 1, pool, np.asarray(["x/a", "x/b"]), teacher, 0.0, "soft")
    ok = ~np.isnan(P[:, 0])
    assert ok.sum() == 90 and np.allclose(P[ok], D[ok], atol=0.01)


def test_bucketed_batches_cover_every_row_once_with_similar_lengths(load_bench):
    bench = load_bench("classify_teacher")
    lens = np.arange(100)[::-1]
    batches = bench._bucketed(np.random.default_rng(0), lens, 8)
    assert sorted(np.concatenate(batches)) == list(range(100)) and max(map(len, batches)) <= 8
    assert all(np.ptp(lens[b]) < 64 for b in batches)  # sorted within chunks of 8 batches
