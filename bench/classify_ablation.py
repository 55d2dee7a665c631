#!/usr/bin/env python3
"""Which changes to the ``trained`` classifier generalise? Grouped CV on gold_dev + phrasing_dev, several shuffles.

Folds are drawn over the shared dev items only (whole repositories / whole phrasing rules held out); the
package's own written examples are in every training fold, as they are in the shipped model. Each row averages
``--seeds`` shuffles of the folds (one 5-fold split moves C precision by +-0.05 on 31 gold constraints).
The C threshold of each row is its best out-of-fold F2, as in training.

usage: python bench/classify_ablation.py [--seeds 3] [--variants base,heldout,distilled,nowords]
  base       the shipped recipe: hashed words + section words + cue families (LogisticRegression C=1)
  heldout    + the 215 items of data/heldout_own.jsonl as extra training examples
  distilled  + the 64-dim distilled MiniLM sentence vector (aac.classifiers.static_embed) as dense features
  nowords    cue/section/shape features only, no raw words
  c0.5, c2   other regularisation strengths
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from aac.classifiers.datasets import heldout_own, load_gold, load_phrasing, own_examples  # noqa: E402
from aac.classifiers.features import featurize, hash_tokens, item_tokens, to_csr  # noqa: E402
from aac.classifiers.linear import C_INDEX, decide, risk_adjust  # noqa: E402
from aac.classifiers.metrics import form_recall, summary  # noqa: E402
from aac.classifiers.paths import shared_data  # noqa: E402
from aac.classifiers.training import choose_threshold  # noqa: E402
from aac.schema import TYPES  # noqa: E402


def sparse(data, words=True):
    if words:
        return to_csr(*featurize([d.item for d in data]))
    rows = [hash_tokens([t for t in item_tokens(d.item) if ":" in t or "_" in t or t == "bias"]) for d in data]
    ptr = np.cumsum([0] + [len(r) for r in rows])
    return to_csr(np.concatenate([np.asarray(r, dtype=np.int64) for r in rows]), ptr)


def dense(data, scale=3.0):
    from aac.classifiers.static_embed import StaticEmbedding

    return scale * StaticEmbedding().encode([d.item.text for d in data])


def fit_predict(Xtr, ytr, Xte, c_reg):
    from sklearn.linear_model import LogisticRegression

    used = np.unique(Xtr.indices)
    clf = LogisticRegression(C=c_reg, class_weight="balanced", max_iter=3000).fit(Xtr[:, used], ytr)
    P = np.zeros((Xte.shape[0], len(TYPES)))
    P[:, clf.classes_] = clf.predict_proba(Xte[:, used])
    return P


def grouped_cv(ev, extra, Xe, Xx, c_reg, seed):
    from scipy.sparse import vstack
    from sklearn.model_selection import GroupKFold

    y = np.asarray([TYPES.index(d.label) for d in ev])
    yx = np.asarray([TYPES.index(d.label) for d in extra])
    groups = np.asarray([d.group for d in ev])
    P = np.zeros((len(ev), len(TYPES)))
    for tr, te in GroupKFold(n_splits=5, shuffle=True, random_state=seed).split(Xe, y, groups):
        P[te] = fit_predict(vstack([Xe[tr], Xx]).tocsr(), np.concatenate([y[tr], yx]), Xe[te], c_reg)
    t = choose_threshold(P[:, C_INDEX], y == C_INDEX)
    labels = [TYPES[k] for k in decide(risk_adjust(P, [d.item.authority for d in ev], t))]
    g = [k for k, d in enumerate(ev) if d.source == "gold"]
    ph = [k for k, d in enumerate(ev) if d.source == "phrasing"]
    return (summary([ev[k].label for k in g], [labels[k] for k in g]),
            form_recall([ev[k].label for k in ph], [labels[k] for k in ph], [ev[k].form for k in ph]))


def main() -> None:
    from scipy.sparse import csr_matrix, hstack

    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--variants", default="base,heldout,distilled,nowords,c0.5,c2")
    args = ap.parse_args()
    ev = load_gold(shared_data() / "gold_dev.jsonl") + load_phrasing(shared_data() / "phrasing_dev.jsonl")
    own = own_examples()
    print(f"grouped CV, {args.seeds} shuffles of 5 folds; {len(ev)} dev items, {len(own)} own examples always in training")
    print(f"{'variant':10} {'C-rec':>6} {'C-prec':>6} {'C-F1':>6} {'mF1':>6} {'acc':>6} | decl  distr->C")
    for v in args.variants.split(","):
        extra = own + (heldout_own() if v == "heldout" else [])
        Xe, Xx = sparse(ev, v != "nowords"), sparse(extra, v != "nowords")
        if v == "distilled":
            Xe, Xx = hstack([Xe, csr_matrix(dense(ev))]).tocsr(), hstack([Xx, csr_matrix(dense(extra))]).tocsr()
        c_reg = float(v[1:]) if v.startswith("c") and v[1:].replace(".", "").isdigit() else 1.0
        runs = [grouped_cv(ev, extra, Xe, Xx, c_reg, seed) for seed in range(1, args.seeds + 1)]
        m = lambda k: np.mean([r[0][k] for r in runs])  # noqa: E731
        f = lambda k: np.mean([r[1].get(k, 0.0) for r in runs])  # noqa: E731
        print(f"{v:10} {m('c_rec'):6.2f} {m('c_prec'):6.2f} {m('c_f1'):6.2f} {m('macro_f1'):6.2f} {m('acc'):6.2f} | "
              f"{f('declarative'):.2f}  {f('distractor_to_c'):.2f}", flush=True)


if __name__ == "__main__":
    main()
