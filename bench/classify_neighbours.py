#!/usr/bin/env python3
"""Do the neighbours' constraint risk lift the grouped-CV ranking of gold C? (issue 24; not kept, see the model card)

Per grouped fold (the folds of ``training.fold_splits``, shipped recipe with the annotated sample), the fold's fast
model scores every segmented item of the held-out repositories' files; each gold item then gets its own risk, the
previous and next item's, the highest in its section and the file's mean. A second-stage logistic regression on
their logits (grouped 5-fold CV by repository over the gold items, 3 splits) is compared with the item's own risk:
average precision, the hard lane's share of items at 95 % of gold C, and the best C-F1 (prevalence-weighted).
usage: python bench/classify_neighbours.py   (about 3 minutes on 2 cores)
"""
import argparse, sys, time
from pathlib import Path
import numpy as np
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench._report import add_write_docs_flag, run_with_docs  # noqa: E402
from aac.classifiers.datasets import (load_annotated, load_multilingual_phrasing, load_phrasing, load_union, own_examples,
                                      packaged_annotations, prevalence_weights, Labelled, CONFIG_FILES, _read_jsonl)
from aac.classifiers.paths import shared_data
from aac.classifiers.training import FitOptions, fold_splits, _matrices, _labels, _weights, _votes, _sources, _fit_all, _proba
from aac.classifiers.linear import C_INDEX
from aac.classifiers.base import ItemInput
from aac.classifiers.context import with_lead_ins
from aac.core.segment import segment

def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_write_docs_flag(ap)
    ap.parse_args()
    t0 = time.time()
    data = [*own_examples(), *load_union(), *load_phrasing(shared_data() / "phrasing_dev.jsonl"), *load_multilingual_phrasing()]
    data += load_annotated(packaged_annotations(), shared_data() / "agent_configs_sample.jsonl")
    opts = FitOptions()
    splits = fold_splits(data, opts)
    gold_idx = [i for i, d in enumerate(data) if d.source == "gold"]
    want = {(data[i].group, data[i].extra.get("path")) for i in gold_idx}
    files = {}
    for name in CONFIG_FILES:
        for r in _read_jsonl(shared_data() / name):
            k = (r.get("repo"), r.get("path"))
            if k in want and k not in files:
                segs = segment(str(r.get("content", "")), str(r.get("path", "")))
                items = with_lead_ins([ItemInput(x.text, tuple(x.section_path), x.kind) for x in segs])
                files[k] = (segs, items)
    print("files", len(files), "of", len(want), time.time() - t0, flush=True)
    Xt, Xc = _matrices(data, opts)
    y, w, votes, src = _labels(data), _weights(data, opts), _votes(data, opts), _sources(data)
    P = np.full((len(data), 5), np.nan)
    feats = {}
    for fi, (tr, te) in enumerate(splits):
        W, b, cw, cb = _fit_all(Xt[tr], None if Xc is None else Xc[tr], y[tr], opts, w[tr], None if votes is None else votes[tr], src[tr])
        P[te] = _proba(Xt[te], None if Xc is None else Xc[te], W, b, cw, cb)
        held = {(data[i].group, data[i].extra.get("path")) for i in te if data[i].source == "gold"}
        for k in held:
            if k not in files:
                continue
            segs, items = files[k]
            lab = [Labelled(it, "B") for it in items]
            if not lab:
                continue
            a, c = _matrices(lab, opts)
            R = _proba(a, c, W, b, cw, cb)[:, C_INDEX]
            feats[k] = (segs, R)
        print("fold", fi, time.time() - t0, flush=True)
    rows = []
    for i in gold_idx:
        d = data[i]
        k = (d.group, d.extra.get("path"))
        r = P[i, C_INDEX]
        f = [r, r, r, r, r, 0.0]
        if k in feats:
            segs, R = feats[k]
            pos = [n for n, s in enumerate(segs) if s.line == d.extra.get("line")]
            if pos:
                n = pos[0]
                sec = [R[m] for m, s in enumerate(segs) if tuple(s.section_path) == tuple(segs[n].section_path)]
                f = [r, R[n - 1] if n > 0 else r, R[n + 1] if n + 1 < len(R) else r, max(sec), float(np.mean(R)), 1.0]
        rows.append(f)
    F = np.asarray(rows)
    PW = prevalence_weights(data)
    meta = [[data[i].group, data[i].label, PW[i]] for i in gold_idx]
    print("scored", time.time() - t0)

    # second stage over the gold items
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GroupKFold
    from sklearn.metrics import average_precision_score
    g = np.array([m[0] for m in meta]); y = np.array([m[1] == "C" for m in meta]); w = np.array([m[2] for m in meta])
    print(f"gold items found in their files: {F[:, 5].mean():.3f}")
    def logit(p): p = np.clip(p, 1e-6, 1 - 1e-6); return np.log(p / (1 - p))
    def hard(r):
        o = np.argsort(-r); need = 0.95 * y.sum(); cum = np.cumsum(y[o]); k = np.searchsorted(cum, need)
        t = r[o][k]; return (w * (r >= t)).sum() / w.sum()
    def f1(r):
        best = 0
        for t in np.unique(np.quantile(r, np.linspace(0.5, 0.995, 200))):
            p = r >= t; tp = (w * (p & y)).sum(); pr = tp / max(1e-9, (w * p).sum()); rc = (p & y).sum() / y.sum()
            best = max(best, 2 * pr * rc / max(1e-9, pr + rc))
        return best
    def report(name, r): print(f"{name:30s} AP {average_precision_score(y, r, sample_weight=w):.3f} hard-share@95 {hard(r):.3f} best C-F1 {f1(r):.3f}")
    report("own risk", F[:, 0])
    L = logit(F[:, :5])
    for name, cols in [("own+prev+next", [0, 1, 2]), ("own+secmax", [0, 3]), ("own+filemean", [0, 4]), ("all", [0, 1, 2, 3, 4])]:
        for seed in [None, 1, 2]:
            kf = GroupKFold(5) if seed is None else GroupKFold(5, shuffle=True, random_state=seed)
            out = np.zeros(len(y))
            X = np.column_stack([L[:, cols], L[:, cols] ** 2 / 10])
            for tr, te in kf.split(X, y, g):
                m = LogisticRegression(C=1.0, max_iter=1000).fit(X[tr], y[tr], sample_weight=w[tr]); out[te] = m.decision_function(X[te])
            report(f"{name} s{seed}", out)


if __name__ == "__main__":
    run_with_docs(main)
