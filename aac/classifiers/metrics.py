"""Classification figures the project reports: constraint precision/recall/F1, macro-F1, accuracy, per-form recall."""

from __future__ import annotations

from collections import defaultdict
from typing import Sequence

from aac.core.labels import TYPES


def prf(gold: Sequence[str], pred: Sequence[str], label: str) -> tuple[float, float, float]:
    tp = sum(g == label and p == label for g, p in zip(gold, pred))
    fp = sum(g != label and p == label for g, p in zip(gold, pred))
    fn = sum(g == label and p != label for g, p in zip(gold, pred))
    pr = tp / (tp + fp) if tp + fp else 0.0
    rc = tp / (tp + fn) if tp + fn else 0.0
    return pr, rc, (2 * pr * rc / (pr + rc) if pr + rc else 0.0)


def summary(gold: Sequence[str], pred: Sequence[str]) -> dict[str, float]:
    """Same definitions as the project's devcheck yardstick (macro-F1 over all five types)."""
    cp, cr, cf = prf(gold, pred, "C")
    mf1 = sum(prf(gold, pred, t)[2] for t in TYPES) / len(TYPES)
    acc = sum(g == p for g, p in zip(gold, pred)) / max(1, len(gold))
    return {"c_prec": cp, "c_rec": cr, "c_f1": cf, "macro_f1": mf1, "acc": acc}


def form_recall(gold: Sequence[str], pred: Sequence[str], forms: Sequence[str | None]) -> dict[str, float]:
    """Constraint recall per grammatical form, plus the rate at which non-C look-alikes are called C."""
    hits: dict[str, list[bool]] = defaultdict(list)
    dist = []
    for g, p, f in zip(gold, pred, forms):
        if g == "C":
            hits[f or "unknown"].append(p == "C")
        else:
            dist.append(p == "C")
    out = {f: sum(v) / len(v) for f, v in sorted(hits.items())}
    out["distractor_to_c"] = sum(dist) / len(dist) if dist else 0.0
    return out
