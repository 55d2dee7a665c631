#!/usr/bin/env python3
"""Constraint-stage ideas that need more than FitOptions: grouped CV of the C decision alone, many shuffles.

Each row fits only the constraint stage (binary logistic regression over type + risk features) inside the same
grouped folds as ``training.out_of_fold_proba`` (whole repositories / phrasing rules held out, the package's own
examples in every training fold) and reports gold C recall / precision / F1 (mean and shuffle-to-shuffle spread),
the declarative-form C recall and the distractor->C rate on phrasing_dev, at each row's best out-of-fold F1.5
threshold. ``base`` is the constraint stage shipped before per-source class balancing (pooled balance, hard
labels): every other row changes one thing against it. Rows whose figures stay within the spread did not help.

usage: python bench/classify_c_stage_ablation.py [--seeds 6] [--variants base,l1,...]
  base          pooled class balance, hard labels, L2 C=1
  l1_0.3, l1_1  L1-regularised constraint stage (feature selection), C=0.3 / 1
  mingroups2    features seen in fewer than 2 training groups (repositories / rules) dropped
  nowords       no raw word unigrams (cue, shape, heading and risk features only)
  noheadings    no heading words (heading families kept)
  nonone        no "no heading" features (phrasing rules have no headings, gold items rarely lack them)
  rownorm       feature rows scaled by (mean nnz / nnz) ** 0.5, C=3 (long items no longer sum more evidence)
  rubric        + one tied "rubric score" column (force x stakes crosses, declarative stakes, safety heading,
                minus force without stakes / code quality only), scale 0.5
  srcind        + source indicators (own, phrasing) while fitting, off when predicting (gold domain)
  feda          + per-source feature copies (general + gold/phrasing/own), predicting with general + gold
  stack         second-level logistic regression over the C logit and the P/B/F/E stage's log-probabilities
                (fitted on out-of-fold scores; optimistic, since not nested)
  cascade       a second constraint model fitted on training items whose inner out-of-fold P(C) >= 0.1,
                averaged with the first stage on items above that floor
  distant       + a score from a model of "item under a safety heading" fitted on the 18,665 segmented items of
                agent_configs_sample.jsonl (text features only; held-out repositories' files excluded per fold)
  srcbal        classes balanced within each source (the shipped recipe uses power 0.5 and soft C targets)
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench._report import add_write_docs_flag, run_with_docs  # noqa: E402

from aac.classifiers import training as T  # noqa: E402
from aac.classifiers.base import ItemInput  # noqa: E402
from aac.classifiers.datasets import load_gold, load_phrasing, own_examples  # noqa: E402
from aac.classifiers.features import hash_tokens, item_tokens, to_csr  # noqa: E402
from aac.classifiers.paths import shared_data  # noqa: E402
from aac.classifiers.risk import section_families  # noqa: E402
from aac.classifiers.training import choose_threshold  # noqa: E402


class Data:
    def __init__(self):
        dev = load_gold(shared_data() / "gold_dev.jsonl") + load_phrasing(shared_data() / "phrasing_dev.jsonl")
        self.items = [*own_examples(), *dev]
        d = self.items
        self.tokens = []
        for x in d:
            risk: list[str] = []
            self.tokens.append((item_tokens(x.item, risk), risk))
        self.isc = np.asarray([x.label == "C" for x in d])
        self.src = np.asarray([x.source for x in d])
        self.groups = np.asarray([x.group for x in d])
        self.own, self.gold = self.src == "own", self.src == "gold"
        self.decl = np.asarray([x.form == "declarative" for x in d])
        self.distr = (self.src == "phrasing") & ~self.isc
        self.X = self.matrix(lambda t, r: t + r)

    def matrix(self, tokens):
        rows = [hash_tokens(tokens(t, r)) for t, r in self.tokens]
        ptr = np.cumsum([0] + [len(x) for x in rows])
        return to_csr(np.concatenate([np.asarray(x, dtype=np.int64) for x in rows]), ptr)


def lr_fit(X, t, w=None, C=1.0, l1=False, balance=None):
    """Class-balanced binary logistic regression on the occurring columns; (weights, bias) over all columns."""
    from sklearn.linear_model import LogisticRegression

    used = np.unique(X.indices)
    t = np.asarray(t, dtype=bool)
    sw = np.where(t, len(t) / (2.0 * t.sum()), len(t) / (2.0 * (~t).sum())) if balance is None else balance
    kw = {"solver": "liblinear", "l1_ratio": 1.0} if l1 else {}
    m = LogisticRegression(C=C, max_iter=3000, **kw).fit(X[:, used], t.astype(int),
                                                          sample_weight=sw * (1.0 if w is None else w))
    W = np.zeros(X.shape[1])
    W[used] = m.coef_[0]
    return W, float(m.intercept_[0])


def folds(D, seed):
    from sklearn.model_selection import GroupKFold

    sc, al = np.flatnonzero(~D.own), np.flatnonzero(D.own)
    for tr, te in GroupKFold(5, shuffle=True, random_state=seed).split(sc, groups=D.groups[sc]):
        yield np.concatenate([sc[tr], al]), sc[te]


def prf(pred, y):
    tp = float((pred & y).sum())
    p, r = tp / max(1.0, float(pred.sum())), tp / float(y.sum())
    return r, p, 2 * p * r / max(1e-9, p + r)


def evaluate(D, name, score_fold, seeds):
    """score_fold(train_rows, test_rows, seed) -> P(C) of the test rows."""
    rs = []
    for seed in seeds:
        p = np.full(len(D.items), np.nan)
        for tr, te in folds(D, seed):
            p[te] = score_fold(tr, te, seed)
        pred = p >= choose_threshold(p, D.isc, 1.5)
        rs.append((*prf(pred[D.gold], D.isc[D.gold]), pred[D.decl].mean(), pred[D.distr].mean()))
    m, sd = np.mean(rs, 0), np.std([r[2] for r in rs])
    print(f"{name:12} {m[0]:6.2f} {m[1]:6.2f} {m[2]:6.3f} ±{sd:.3f} | {m[3]:.2f}  {m[4]:.2f}", flush=True)


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def linear(X, tr, te, **kw):
    W, b = lr_fit(X[tr], D.isc[tr], **kw)
    return sigmoid(np.asarray(X[te] @ W).ravel() + b)


def mingroups(X, tr, te, k=2):
    from scipy.sparse import csr_matrix

    ug, gi = np.unique(D.groups[tr], return_inverse=True)
    G = csr_matrix((np.ones(len(tr)), (gi, np.arange(len(tr)))), shape=(len(ug), len(tr)))
    keep = np.flatnonzero(np.asarray(((G @ X[tr]) > 0).sum(0)).ravel() >= k)
    W, b = lr_fit(X[tr][:, keep], D.isc[tr])
    return sigmoid(np.asarray(X[te][:, keep] @ W[: len(keep)]).ravel() + b)


def with_columns(cols, tr, te, off_at_test=False):
    from scipy.sparse import csr_matrix, hstack

    XA = hstack([D.X, csr_matrix(cols)]).tocsr()
    W, b = lr_fit(XA[tr], D.isc[tr])
    if off_at_test:
        W[D.X.shape[1]:] = 0.0
    return sigmoid(np.asarray(XA[te] @ W).ravel() + b)


def feda(tr, te):
    from scipy.sparse import diags, hstack

    n = D.X.shape[1]
    XA = hstack([D.X] + [diags((D.src == s).astype(float)) @ D.X for s in ("gold", "phrasing", "own")]).tocsr()
    W, b = lr_fit(XA[tr], D.isc[tr])
    return sigmoid(np.asarray(D.X[te] @ (W[:n] + W[n:2 * n])).ravel() + b)


def rubric_score(risk):
    s = 0.0
    for x in risk:
        if x.startswith(("rx:", "rdecl:")) or x == "rs:safe":
            s += 1
        elif x.startswith("rcond:"):
            s += 0.5
        elif x in ("r:force_without_stakes", "r:quality_only"):
            s -= 1
        elif x in ("rs:style", "rs:proc", "rs:belief", "rs:episodic"):
            s -= 0.5
    return s


def stack(tr, te, seed):
    """Out-of-fold C logits + type-stage log-probabilities of the same split, second level fitted by grouped CV."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GroupKFold

    key = seed
    if key not in _STACK:
        P = T.out_of_fold_proba(D.items, T.FitOptions(soft_c=0.0, c_source_balance=0.0, word_vectors=0.0), seed=seed)
        sc = np.flatnonzero(~D.own)
        pc = np.clip(P[sc, 0], 1e-6, 1 - 1e-6)
        q = P[sc, 1:] / P[sc, 1:].sum(1, keepdims=True)
        Z = np.column_stack([np.log(pc / (1 - pc)), np.log(np.clip(q, 1e-9, 1))])
        out = np.full(len(D.items), np.nan)
        for a, b in GroupKFold(5, shuffle=True, random_state=seed + 100).split(Z, groups=D.groups[sc]):
            m = LogisticRegression(class_weight="balanced").fit(Z[a], D.isc[sc][a])
            out[sc[b]] = m.predict_proba(Z[b])[:, 1]
        _STACK[key] = out
    return _STACK[key][te]


_STACK: dict = {}


def cascade(tr, te, seed, floor=0.1, mix=0.5):
    from sklearn.model_selection import GroupKFold

    p1 = linear(D.X, tr, te)
    inner = np.full(len(D.items), np.nan)
    sc, al = tr[~D.own[tr]], tr[D.own[tr]]
    for a, b in GroupKFold(5, shuffle=True, random_state=seed).split(sc, groups=D.groups[sc]):
        inner[sc[b]] = linear(D.X, np.concatenate([sc[a], al]), sc[b])
    inner[al] = linear(D.X, tr, al)
    sel = tr[inner[tr] >= floor]
    p2 = linear(D.X, sel, te)
    return np.where(p1 >= floor, mix * p1 + (1 - mix) * p2, 0.0)


class Distant:
    """A text-only model of "listed under a safety heading" over the unlabelled sample (no gold labels used)."""

    def __init__(self):
        from aac.core.segment import segment

        rows = [json.loads(line) for line in open(shared_data() / "agent_configs_sample.jsonl", encoding="utf-8")]
        items, repos = [], []
        for r in rows:
            for s in segment(r["content"], r["path"]):
                items.append(ItemInput(text=s.text, section=tuple(s.section_path), kind=s.kind))
                repos.append(r["repo"])
        fams = [section_families(it.section) for it in items]
        self.lab = np.asarray([1 if "safe" in f else (0 if not ({"safe", "rules", "none"} & set(f)) else -1)
                               for f in fams])
        self.repos = np.asarray(repos)
        self.XU = self._csr(items)
        self.XD = self._csr([d.item for d in D.items])

    @staticmethod
    def _text_tokens(item):
        risk: list[str] = []
        t = item_tokens(item, risk)
        return ([x for x in t if not x.startswith(("s:", "scue:", "safetysec"))] +
                [x for x in risk if not x.startswith("rs")])

    def _csr(self, items):
        rows = [hash_tokens(self._text_tokens(it)) for it in items]
        ptr = np.cumsum([0] + [len(x) for x in rows])
        return to_csr(np.concatenate([np.asarray(x, dtype=np.int64) for x in rows]), ptr)

    def fold(self, tr, te, a=0.3):
        held = set(D.groups) - set(D.groups[tr])
        m = (self.lab >= 0) & ~np.isin(self.repos, list(held))
        Wd, bd = lr_fit(self.XU[m], self.lab[m] == 1, C=0.1)
        s = np.asarray(self.XD @ Wd).ravel() + bd
        return with_columns(a * s[:, None], tr, te)


def srcbal(tr, te):
    t, s = D.isc[tr], D.src[tr]
    bal = np.ones(len(tr))
    for so in np.unique(s):
        for k in (False, True):
            m = (s == so) & (t == k)
            if m.any():
                bal[m] = (s == so).sum() / (2.0 * m.sum())
    return linear(D.X, tr, te, balance=bal)


def variants():
    src_ind = np.column_stack([(D.src == s).astype(float) for s in ("own", "phrasing")])
    rubric = np.asarray([rubric_score(r) for _, r in D.tokens])[:, None]
    nnz = np.maximum(np.diff(D.X.indptr), 1)
    from scipy.sparse import diags

    Xn = (diags((nnz.mean() / nnz) ** 0.5) @ D.X).tocsr()
    Xw = D.matrix(lambda t, r: [x for x in t if ":" in x or x == "bias"] + r)
    Xh = D.matrix(lambda t, r: [x for x in t if not x.startswith("s:")] + r)
    Xo = D.matrix(lambda t, r: [x for x in t if x != "s:none"] +
                  [x for x in r if not x.startswith(("rs:none", "rslen:none", "rsf:none", "rsst:none"))])
    return {
        "base": lambda tr, te, s: linear(D.X, tr, te),
        "l1_0.3": lambda tr, te, s: linear(D.X, tr, te, C=0.3, l1=True),
        "l1_1": lambda tr, te, s: linear(D.X, tr, te, C=1.0, l1=True),
        "mingroups2": lambda tr, te, s: mingroups(D.X, tr, te, 2),
        "nowords": lambda tr, te, s: linear(Xw, tr, te),
        "noheadings": lambda tr, te, s: linear(Xh, tr, te),
        "nonone": lambda tr, te, s: linear(Xo, tr, te),
        "rownorm": lambda tr, te, s: linear(Xn, tr, te, C=3.0),
        "rubric": lambda tr, te, s: with_columns(0.5 * rubric, tr, te),
        "srcind": lambda tr, te, s: with_columns(src_ind, tr, te, off_at_test=True),
        "feda": lambda tr, te, s: feda(tr, te),
        "stack": stack,
        "cascade": cascade,
        "distant": lambda tr, te, s: _distant().fold(tr, te),
        "srcbal": lambda tr, te, s: srcbal(tr, te),
    }


_DISTANT: list = []


def _distant() -> Distant:
    if not _DISTANT:
        _DISTANT.append(Distant())
    return _DISTANT[0]


def main() -> None:
    global D
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=6)
    ap.add_argument("--variants", default="base,l1_0.3,l1_1,mingroups2,nowords,noheadings,nonone,rownorm,rubric,"
                                          "srcind,feda,stack,cascade,distant,srcbal")
    add_write_docs_flag(ap)
    args = ap.parse_args()
    warnings.filterwarnings("ignore")
    D = Data()
    table = variants()
    print(f"constraint stage alone, grouped CV, {args.seeds} shuffles of 5 folds; F1.5 threshold per row")
    print(f"{'variant':12} {'C-rec':>6} {'C-prec':>6} {'C-F1':>6} {'spread':>6} | decl  distr->C")
    for v in args.variants.split(","):
        evaluate(D, v, table[v], range(1, args.seeds + 1))


D: Data

if __name__ == "__main__":
    run_with_docs(main)
