"""Fit the fast model on labelled items plus items a teacher pseudo-labelled (distillation, issue 24).

A pseudo-labelled item carries the teacher's five probabilities ``q``. ``mode`` says how they become training rows:
``soft`` (a C row weighted ``w x q_C`` and a non-C row ``w x (1 - q_C)`` in the constraint stage; a row per non-C
type the teacher gives >= 5 % in the P/B/F/E stage, weighted ``w x q_type``) or ``hardX`` (the teacher's argmax with
weight ``w`` where its probability is >= X, nothing elsewhere); ``/c`` keeps pseudo rows in the constraint stage
only. Pseudo rows take no part in the labelled rows' class balance (``/bal``: they are balanced C vs rest among
themselves, as the labelled sources are). The labelled rows are fitted exactly as ``training._fit_all`` fits them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from aac.classifiers import training
from aac.classifiers.datasets import Labelled
from aac.classifiers.linear import C_INDEX
from aac.core.labels import TYPES


@dataclass(frozen=True)
class PseudoMode:
    soft: bool = True
    min_conf: float = 0.0
    c_only: bool = False
    balanced: bool = False

    @classmethod
    def parse(cls, mode: str) -> "PseudoMode":
        """"soft", "hard0.7", optionally followed by "/c" and "/bal" (e.g. "soft/c/bal")."""
        head, *flags = mode.split("/")
        unknown = set(flags) - {"c", "bal"}
        if unknown or not (head == "soft" or head.startswith("hard")):
            raise ValueError(f"pseudo-label mode {mode!r}: expected soft|hardX[/c][/bal]")
        return cls(head == "soft", float(head[4:] or 0.5) if head != "soft" else 0.0, "c" in flags, "bal" in flags)


def targets(Q: np.ndarray, mode: PseudoMode) -> np.ndarray:
    """The teacher's probabilities as training targets: as they are (soft) or confident one-hot rows (hard)."""
    Q = np.asarray(Q, dtype=np.float64)
    if mode.soft:
        return Q
    conf = Q.max(axis=1) >= mode.min_conf
    return np.where(conf[:, None], np.eye(len(TYPES))[Q.argmax(axis=1)], 0.0)


def _fit_c_stage(Xc, y, w, votes, sources, Uc, Q, weight, opts, balanced, forms=None):
    from scipy.sparse import vstack
    from sklearn.linear_model import LogisticRegression

    is_c = y == C_INDEX
    w = training._c_stage_weights(w, opts, sources, forms)
    pos, neg = training._class_weights(is_c, sources, opts.c_source_balance)
    t = is_c.astype(float)
    share = training._c_shares(y, votes, opts.soft_c)
    if share is not None:
        t = np.where(np.isnan(share), t, share)
    qc, qn = weight * Q[:, C_INDEX], weight * (Q.sum(axis=1) - Q[:, C_INDEX])
    if balanced and qc.sum() > 0 and qn.sum() > 0:
        total = qc.sum() + qn.sum()
        qc, qn = qc * total / (2 * qc.sum()), qn * total / (2 * qn.sum())
    X = vstack([Xc, Xc, Uc, Uc]).tocsr()
    yy = np.concatenate([np.ones(len(y)), np.zeros(len(y)), np.ones(Uc.shape[0]), np.zeros(Uc.shape[0])])
    ww = np.concatenate([w * t * pos, w * (1 - t) * neg, qc, qn])
    keep = ww > 0
    X, yy, ww = X[keep], yy[keep], ww[keep]
    used = np.unique(X.indices)
    clf = LogisticRegression(C=opts.c_stage_reg, max_iter=3000).fit(X[:, used], yy, sample_weight=ww)
    cw = np.zeros(Xc.shape[1], dtype=np.float32)
    cw[used] = clf.coef_[0]
    return cw, float(clf.intercept_[0])


def _fit_type_stage(Xt, y, w, Ut, Q, weight, opts):
    from scipy.sparse import vstack
    from sklearn.linear_model import LogisticRegression

    rest = y != C_INDEX
    Xr, yr, wr = Xt[rest], y[rest], w[rest]
    kinds, counts = np.unique(yr, return_counts=True)
    bal = dict(zip(kinds, len(yr) / (len(kinds) * counts)))
    r, k = np.nonzero(np.delete(Q, C_INDEX, axis=1) >= 0.05)  # one row per non-C type the teacher gives >= 5 %
    k = k + (k >= C_INDEX)
    X = vstack([Xr, Ut[r]]).tocsr()
    yy = np.concatenate([yr, k])
    ww = np.concatenate([wr * np.asarray([bal[c] for c in yr]), weight * Q[r, k]])
    used = np.unique(X.indices)
    clf = LogisticRegression(C=opts.c_reg, max_iter=2000).fit(X[:, used], yy, sample_weight=ww)
    W = np.zeros((X.shape[1], len(TYPES)), dtype=np.float32)
    b = np.full(len(TYPES), -30.0, dtype=np.float32)  # a type absent from training can never win
    for j, c in enumerate(clf.classes_):
        W[used, c], b[c] = clf.coef_[j], clf.intercept_[j]
    return W, b


def fit_all_with_pseudo(Xt, Xc, y, opts, w, votes, sources, Ut, Uc, Q, weight: float, mode: PseudoMode, forms=None):
    """(W, b, cw, cb) as ``training._fit_all`` returns them, with the pseudo-labelled rows added (two-stage only)."""
    if Xc is None:
        raise ValueError("pseudo-labels need the two-stage model")
    T = targets(Q, mode)
    cw, cb = _fit_c_stage(Xc, y, w, votes, sources, Uc, T, weight, opts, mode.balanced, forms)
    if mode.c_only or weight <= 0:
        rest = y != C_INDEX
        Xr, yr, wr = training._soft_type_rows(Xt[rest], y[rest], w[rest], None if votes is None else votes[rest],
                                              opts.soft_type)
        W, b = training._fit_type_stage(Xr, yr, opts, wr)
    else:
        W, b = _fit_type_stage(Xt, y, w, Ut, T, weight, opts)
    return W, b, cw, cb


def pool_matrices(items, opts):
    """The pool's feature matrices, in the same columns as the labelled rows'."""
    return training._matrices([Labelled(it, "B") for it in items], opts)


def distilled_oof(data: Sequence[Labelled], splits, pool, pooled: Sequence[np.ndarray], weight: float, mode: str,
                  opts: training.FitOptions | None = None) -> np.ndarray:
    """Out-of-fold P of the fast model refitted per fold on its training rows + the pool items that fold's teacher
    labelled (``pooled[f]``, rows of ``pool``); items of the held-out fold's repositories are left out."""
    opts = opts or training.FitOptions()
    m = PseudoMode.parse(mode)
    Xt, Xc = training._matrices(data, opts)
    Ut, Uc = pool_matrices([p.item for p in pool], opts)
    y, w = training._labels(data), training._weights(data, opts)
    votes, sources, forms = training._votes(data, opts), training._sources(data), training._forms(data)
    groups = np.asarray([d.group for d in data], dtype=object)
    repos = np.asarray([p.repo for p in pool], dtype=object)
    P = np.full((len(data), len(TYPES)), np.nan)
    for f, (tr, te) in enumerate(splits):
        keep = np.flatnonzero(~np.isin(repos, list(set(groups[te]))))
        W, b, cw, cb = fit_all_with_pseudo(Xt[tr], Xc[tr], y[tr], opts, w[tr], None if votes is None else votes[tr],
                                           sources[tr], Ut[keep], Uc[keep], pooled[f][keep], weight, m, forms[tr])
        P[te] = training._proba(Xt[te], Xc[te], W, b, cw, cb)
    return P
