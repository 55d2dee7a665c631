"""Score classifiers on labelled files: in-sample figures, grouped cross-validation, per-form recall, ms/item."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Sequence

from aac.classifiers.base import Classifier, failed
from aac.classifiers.datasets import Labelled
from aac.classifiers.metrics import form_recall, summary

# Figures quoted from the issue text (the paper's Table 9); nothing else is quoted.
PAPER_DECLARATIVE_RECALL = {"regex": 0.00, "safetymargin": 0.90}


@dataclass
class Scores:
    name: str
    gold: dict[str, float] = field(default_factory=dict)
    forms: dict[str, float] = field(default_factory=dict)
    ms_per_item: float = 0.0
    error: str = ""


def score(clf: Classifier, gold: Sequence[Labelled], phrasing: Sequence[Labelled]) -> Scores:
    s = Scores(getattr(clf, "name", "?"))
    from aac.classifiers.features import clear_caches

    items = [d.item for d in gold] + [d.item for d in phrasing]
    clear_caches()  # every variant timed from cold caches, as in a fresh process
    t0 = time.perf_counter()
    preds = clf.predict(items) if items else []
    s.ms_per_item = 1000 * (time.perf_counter() - t0) / max(1, len(items))
    n_failed = sum(map(failed, preds))
    if n_failed:  # an item nobody typed is no answer: a dead endpoint must not read as perfect C recall
        from aac.classifiers.llm import stats_of

        first = stats_of(clf).get("first_error", "")
        s.error = f"{n_failed} of {len(items)} items not typed" + (f": {first}" if first else "")
        return s
    labels = [p.label for p in preds]
    if gold:
        s.gold = summary([d.label for d in gold], labels[: len(gold)])
    if phrasing:
        s.forms = form_recall([d.label for d in phrasing], labels[len(gold):], [d.form for d in phrasing])
    return s


CV_NAMES = {"repo": "trained (grouped CV)", "item": "trained (item-level CV)"}


def cross_validated(data: Sequence[Labelled], gold: Sequence[Labelled], phrasing: Sequence[Labelled],
                    opts=None, oof=None, holdout: str = "repo", threshold: float | None = None) -> Scores:
    """Out-of-fold figures of the trained model. ``holdout="repo"``: folds hold out whole repositories / phrasing
    rules; ``"item"``: single gold items, their files' annotated items kept in training (``training.fold_splits``).
    The C threshold is the best F-beta on these out-of-fold scores unless ``threshold`` (e.g. the shipped one)."""
    import numpy as np

    from aac.classifiers.linear import C_INDEX
    from aac.classifiers.training import FitOptions, choose_threshold, labels_from_proba, out_of_fold_proba

    opts = opts or FitOptions()
    P = out_of_fold_proba(data, opts, holdout=holdout) if oof is None else oof
    y = np.asarray([d.label for d in data])
    if threshold is None:
        threshold = choose_threshold(P[:, C_INDEX], y == "C", opts.beta)
    labels = labels_from_proba(P, data, threshold)
    index = {id(d): k for k, d in enumerate(data)}
    s = Scores(CV_NAMES[holdout])
    g = [index[id(d)] for d in gold if id(d) in index]
    ph = [index[id(d)] for d in phrasing if id(d) in index]
    if g:
        s.gold = summary([data[k].label for k in g], [labels[k] for k in g])
    if ph:
        s.forms = form_recall([data[k].label for k in ph], [labels[k] for k in ph], [data[k].form for k in ph])
    return s
