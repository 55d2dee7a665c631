"""bench/classify_ablation.py --holdout seen: gold items come back as annotated rows with an annotator's label of
their text, and those rows train every fold while the gold rows are still held out one by one."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from aac.classifiers import training
from aac.classifiers.datasets import load_gold, own_examples
from aac.classifiers.training import FitOptions


def test_seen_rows_carry_the_annotator_label_and_train_every_fold(gold_path, load_bench):
    bench = load_bench("classify_ablation")
    gold = load_gold(gold_path)
    checks = {}
    for line in (Path(bench.__file__).parent / "data" / "annotated_gold_checks.jsonl").read_text().splitlines():
        row = json.loads(line)
        checks.setdefault(row["gold_id"], row["label"])
    seen = bench._seen_rows(gold)
    assert len(seen) == sum(d.extra["id"] in checks for d in gold) > 300
    assert all(s.source == "annotated" and s.label == checks[s.extra["id"]] for s in seen)
    assert any(s.label != g.label for s, g in zip(seen, [d for d in gold if d.extra["id"] in checks]))

    data = [*own_examples(), *seen[:20], *gold[:60]]
    splits = bench._with_seen_rows(training.fold_splits)(data, FitOptions(), seed=1, holdout="seen")
    rows = np.flatnonzero([bool((d.extra or {}).get("seen")) for d in data])
    assert len(splits) == 5 and len(rows) == 20
    held = np.concatenate([te for _, te in splits])
    assert sorted(held) == [k for k, d in enumerate(data) if d.source == "gold"]  # each gold item once
    assert all(set(rows) <= set(tr) and not set(rows) & set(te) for tr, te in splits)


def test_precision_at_recall_is_the_best_precision_of_any_threshold_reaching_that_recall(load_bench):
    bench = load_bench("classify_ablation")
    p = np.array([0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2])
    is_c = np.array([1, 0, 1, 0, 0, 1, 0, 0], dtype=bool)
    # all three constraints first appear together at rank 6 (3 of 6); two of three at rank 3 (2 of 3)
    assert bench.precision_at_recall(p, is_c, 0.9) == 0.5
    assert bench.precision_at_recall(p, is_c, 0.6) == 2 / 3
    assert bench.precision_at_recall(p, is_c, 0.3) == 1.0
    assert bench.precision_at_recall(p, np.zeros(8, dtype=bool), 0.9) == 0.0
    tied = np.array([0.9, 0.5, 0.5, 0.5])  # no threshold keeps the tied constraint without the tied others
    assert bench.precision_at_recall(tied, np.array([1, 1, 0, 0], dtype=bool), 0.9) == 0.5
