"""Figures of the trained model on every real labelled item under CV grouped by repository (issue 24).

From out-of-fold P(type) (``training.out_of_fold_proba``: whole repositories held out, whole phrasing rules held
out) this reports, at the model's two operating points, constraint recall / precision / F1, macro-F1, accuracy,
the hard lane's gold-C recall and the share of items it takes, overall, per language group and per platform.
Prevalence-dependent figures are weighted by :func:`aac.classifiers.datasets.prevalence_weights` (the enriched
samples of gold_train over-represent constraints); recall of gold C is reported unweighted as well.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from aac.classifiers.base import AUTHORITY_WEIGHTS, TYPES
from aac.classifiers.datasets import Labelled
from aac.classifiers.language import language_group

C = TYPES.index("C")
HARD_LANE_RECALL = 0.95  # the hard lane must catch this share of gold constraints (grouped CV)


def constraint_risk(P: np.ndarray, data: Sequence[Labelled]) -> np.ndarray:
    """P(C) x authority weight: the quantity both operating points threshold."""
    w = np.asarray([AUTHORITY_WEIGHTS.get(d.item.authority, 1.0) for d in data])
    return P[:, C] * w


def choose_hard_threshold(risk: np.ndarray, is_c: np.ndarray, recall: float = HARD_LANE_RECALL) -> float:
    """The highest threshold on the constraint risk whose out-of-fold recall of gold C is >= ``recall`` (NaN rows
    skipped): the smallest hard lane that keeps the promise. Rounded down to 4 places, so it stays below the
    constraint that sets it."""
    ok = ~np.isnan(risk)
    scores = np.sort(risk[ok & is_c])
    if not len(scores):
        return 0.5
    k = int(np.floor((1 - recall) * len(scores) + 1e-9))  # this many constraints may fall below the threshold
    return float(np.floor(scores[k] * 1e4) / 1e4)


def choose_type_threshold(risk: np.ndarray, is_c: np.ndarray, weights: np.ndarray | None = None) -> float:
    """The threshold with the best (prevalence-weighted) out-of-fold F1 on constraints: where C is the type label."""
    ok = ~np.isnan(risk)
    r, y = risk[ok], is_c[ok]
    w = np.ones(len(r)) if weights is None else np.asarray(weights)[ok]
    best, best_t = -1.0, 0.5
    for t in np.arange(5, 96) / 100:  # exact hundredths: the stored threshold decides as the one chosen
        pred = r >= t
        tp, fp, fn = w[pred & y].sum(), w[pred & ~y].sum(), w[~pred & y].sum()
        f = 2 * tp / max(1e-9, 2 * tp + fp + fn)
        if f > best + 1e-9:
            best, best_t = f, float(t)
    return best_t


def weighted_summary(gold: Sequence[str], pred: Sequence[str], w: Sequence[float], hard: Sequence[bool],
                     risk: Sequence[float] | None = None) -> dict:
    """C precision/recall/F1, macro-F1 (the five types), accuracy, hard-lane recall of gold C and share of items;
    with ``risk``, also ``top20_rec``: the share of gold C among the 20 % of items (weighted) ranked highest by risk,
    the issue's measure of how well the ranking serves a fixed-size hard lane."""
    g, p, w, h = np.asarray(gold), np.asarray(pred), np.asarray(w, dtype=float), np.asarray(hard, dtype=bool)
    out = {"n": int(len(g)), "n_c": int((g == "C").sum())}
    f1s = []
    for t in TYPES:
        tp = w[(g == t) & (p == t)].sum()
        fp = w[(g != t) & (p == t)].sum()
        fn = w[(g == t) & (p != t)].sum()
        prec = tp / (tp + fp) if tp + fp else 0.0
        rec = tp / (tp + fn) if tp + fn else 0.0
        f1 = 2 * prec * rec / (prec + rec) if prec + rec else 0.0
        if (g == t).any() or (p == t).any():
            f1s.append(f1)
        if t == "C":
            out.update(c_prec=prec, c_rec=rec, c_f1=f1)
    out["macro_f1"] = float(np.mean(f1s)) if f1s else 0.0
    out["acc"] = float(w[g == p].sum() / w.sum()) if w.sum() else 0.0
    is_c = g == "C"
    out["hard_rec"] = float(h[is_c].mean()) if is_c.any() else float("nan")  # every gold C counts once
    out["hard_share"] = float(w[h].sum() / w.sum()) if w.sum() else 0.0
    if risk is not None and is_c.any():
        r = np.asarray(risk, dtype=float)
        order = np.argsort(-r, kind="stable")
        top = np.zeros(len(r), dtype=bool)
        top[order[np.cumsum(w[order]) <= 0.2 * w.sum()]] = True
        out["top20_rec"] = float(top[is_c].mean())
    return out


@dataclass
class GroupedReport:
    type_threshold: float
    hard_threshold: float
    overall: dict = field(default_factory=dict)
    by_language: dict[str, dict] = field(default_factory=dict)
    by_platform: dict[str, dict] = field(default_factory=dict)
    forms: dict[str, dict[str, float]] = field(default_factory=dict)  # phrasing set name -> C recall per form
    forms_hard: dict[str, dict[str, float]] = field(default_factory=dict)  # the same, for the hard lane


def item_language(d: Labelled) -> str:
    return language_group(" ".join([d.item.text, *d.item.section]))


def grouped_report(data: Sequence[Labelled], P: np.ndarray, weights: Sequence[float],
                   type_threshold: float, hard_threshold: float) -> GroupedReport:
    """Figures of out-of-fold ``P`` at the two thresholds; gold rows feed the tables, phrasing rows the forms."""
    from aac.classifiers.linear import decide, risk_adjust

    risk = constraint_risk(P, data)
    scored = ~np.isnan(P[:, C])
    q = risk_adjust(np.nan_to_num(P), [d.item.authority for d in data], type_threshold)
    labels = [TYPES[k] for k in decide(q)]
    hard = np.nan_to_num(risk, nan=-1) >= hard_threshold
    hard |= np.asarray([lab == "C" for lab in labels])  # an item typed C is always in the hard lane
    return report_from_decisions(data, labels, hard, risk, scored, weights, type_threshold, hard_threshold)


def report_from_decisions(data: Sequence[Labelled], labels: Sequence[str], hard: np.ndarray, risk: np.ndarray,
                          scored: np.ndarray, weights: Sequence[float], type_threshold: float,
                          hard_threshold: float) -> GroupedReport:
    """The report's tables from out-of-fold decisions (type label and hard lane per item) of any classifier, so a
    cascade that changes some labels is read exactly as the fast model is; ``risk`` ranks items for the top-20 %
    figure, ``scored`` marks the items a held-out fold scored."""
    from aac.classifiers.metrics import form_recall

    labels = list(labels)
    hard = np.asarray(hard, dtype=bool)
    rep = GroupedReport(type_threshold, hard_threshold)
    gold = [i for i, d in enumerate(data) if d.source == "gold" and scored[i]]
    w = np.asarray(weights, dtype=float)

    def summ(rows: list[int]) -> dict:
        return weighted_summary([data[i].label for i in rows], [labels[i] for i in rows], w[rows], hard[rows],
                                risk[rows])

    if gold:
        rep.overall = summ(gold)
        for key, table in ((item_language, rep.by_language), (lambda d: d.extra.get("platform") or "?", rep.by_platform)):
            groups: dict[str, list[int]] = {}
            for i in gold:
                groups.setdefault(key(data[i]), []).append(i)
            for name in sorted(groups, key=lambda k: -len(groups[k])):
                table[name] = summ(groups[name])
    sets: dict[str, list[int]] = {}
    for i, d in enumerate(data):
        if d.source == "phrasing" and scored[i]:
            sets.setdefault("multilingual" if d.extra.get("lang") else "phrasing_dev", []).append(i)
    for name, rows in sets.items():
        rep.forms[name] = form_recall([data[i].label for i in rows], [labels[i] for i in rows],
                                      [data[i].form for i in rows])
        rep.forms_hard[name] = form_recall([data[i].label for i in rows], ["C" if hard[i] else "-" for i in rows],
                                           [data[i].form for i in rows])
    return rep
