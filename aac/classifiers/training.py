"""Fit the ``trained`` linear model, choose its constraint threshold, and cross-validate it honestly.

Training uses scikit-learn (imported here only, never at prediction time). Two stages by default: a binary
constraint model over type features + the rubric's risk features (strongly regularised; its classes balanced
part way towards each source's own balance, and a disputed gold item's C target half from the two annotators'
votes), and a four-way
model for P/B/F/E over the type features (a logistic regression averaged with multinomial naive Bayes, its scores
divided by a temperature chosen on out-of-fold log-loss). The constraint threshold is picked on out-of-fold probabilities
(grouped folds: whole repositories / whole phrasing rules held out; the package's own written examples are in
every training fold and never scored), as the threshold with the best out-of-fold F-beta on constraints
(beta 1.5: recall counts a little more than precision; F2 called a third of gold items C at 0.36 precision).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from aac.classifiers.datasets import Labelled
from aac.classifiers.features import N_FEATURES, featurize, featurize_two_stage, to_csr
from aac.classifiers.linear import C_INDEX, LinearModel, combine_stages, decide, risk_adjust
from aac.core.schema import TYPES


@dataclass
class FitOptions:
    c_reg: float = 1.0  # inverse L2 strength of the logistic regression (the type model)
    beta: float = 2.0  # F-beta used to pick the C threshold on out-of-fold probabilities
    two_stage: bool = True  # separate binary constraint model over type + risk features
    c_stage_reg: float = 1.0  # inverse L2 strength of the constraint stage
    folds: int = 5
    seed: int = 0
    n_features: int = N_FEATURES
    gold_weight: float = 1.0  # sample weight of real gold items relative to written examples and phrasing items
    clusters: bool = False  # add HDBSCAN cluster-id features (needs the static embedding model at predict time)
    # share of multinomial naive Bayes in the P/B/F/E stage's weights (0: logistic only). 0 since training on the
    # union of real items (issue 24): grouped CV macro-F1 0.51 -> 0.55 (bench/classify_grouped.py base vs nb0)
    nb_blend: float = 0.0
    nb_alpha: float = 0.3  # additive smoothing of that naive Bayes
    c_nb_blend: float = 0.0  # share of a binary naive Bayes (C vs rest) in the constraint stage's weights
    soft_c: float = 0.5  # share of the two annotators' votes in a gold item's C target (0: adjudicated label only)
    soft_type: float = 0.0  # weight moved from a gold item's P/B/F/E label to an annotator's other non-C vote
    c_source_balance: float = 0.5  # constraint stage: 0 = classes balanced over all items, 1 = within each source
    # sample weight of annotated items (datasets.load_annotated) in the type stage. 0.1 since the second round and third
    # pass (three fold assignments, 2026-12-07): macro-F1 0.59 / 0.597 / 0.601 / 0.604 at 1.0 / 0.5 / 0.25 / 0.1
    annotated_weight: float = 0.1
    # their weight in the constraint stage (None: annotated_weight). 0.15 since the train files' second round and the
    # sample's third pass (25,745 annotated items; three fold assignments, 2026-12-07): hard-lane share 0.414 / 0.398 /
    # 0.390 and C-F1 0.469 / 0.475 / 0.479 at 0.5 / 0.3 / 0.15
    annotated_c_weight: float | None = 0.15
    word_vectors: float = 3.0  # scale of the item's mean word vector in the constraint stage (0: not used)
    # constraint-stage weight of the labelled rules written as plain facts (rows of form "declarative": the phrasing
    # sets' declarative forms, the only constraints with no force word whose form is known). 8 since 2026-12-07 (three
    # fold assignments, rules held out in every language): declarative C recall at the type label 0.38 / 0.39 -> 0.63 /
    # 0.55 (phrasing_dev / multilingual), gold C-F1 0.479 / hard-lane share 0.390 -> 0.479 / 0.393, distractors typed
    # C 0.01 / 0.07 -> 0.03 / 0.12 (weights 4 / 6 / 12: declarative 0.53 / 0.60 / 0.62 on phrasing_dev)
    declarative_c_weight: float = 8.0


# Whether the shipped model (and `aac eval classifiers`' union CV) trains on the annotated sample as well (LLM
# annotators' labels of every item of agent_configs_sample.jsonl; never scored).
SHIPPED_WITH_ANNOTATED = True
# Whether it also trains on the Label Studio round-1 labels (150 items of agent_configs_train.jsonl, two annotators,
# adjudicated). Measured on the union's grouped folds (bench/classify_teacher_union.py's figures, 2026-12-06): C-F1
# 0.45 -> 0.44, hard-lane share 0.47 -> 0.49, C-AP 0.45 either way: within noise and the wrong way, so not yet.
SHIPPED_WITH_ROUND1 = False
# Whether it also trains on the second round on the train files (every other distinct item of
# agent_configs_train.jsonl, two blind annotators + a tie-break vote; annotated_train.jsonl; with the annotated sample).
SHIPPED_WITH_TRAIN_ANNOTATED = True


def _matrix(data: Sequence[Labelled], n_features: int, clusters=None):
    items = [d.item for d in data]
    idx, ptr = featurize(items, n_features, clusters.tokens(items) if clusters is not None else None)
    return to_csr(idx, ptr, n_features)


def _matrices(data: Sequence[Labelled], opts: FitOptions):
    """(type features, constraint-stage features or None) as CSR matrices."""
    if not opts.two_stage:
        return _matrix(data, opts.n_features, _clusters(data, opts)), None
    if opts.clusters:
        raise ValueError("cluster features are only supported with two_stage=False")
    words: list[list[str]] | None = [] if opts.word_vectors > 0 else None
    idx, ptr, cidx, cptr = featurize_two_stage([d.item for d in data], opts.n_features, words)
    Xc = to_csr(cidx, cptr, opts.n_features)
    if words is not None:  # dense columns after the hashed ones: fit() splits the weights back apart
        from scipy.sparse import csr_matrix, hstack

        from aac.classifiers.word_vectors import shared_word_vectors

        dense = shared_word_vectors().mean_vectors(words).astype(np.float64) * opts.word_vectors
        Xc = hstack([Xc, csr_matrix(dense)]).tocsr()
    return to_csr(idx, ptr, opts.n_features), Xc


def _class_weights(is_c: np.ndarray, sources: np.ndarray | None, power: float) -> tuple[np.ndarray, np.ndarray]:
    """Per-row weight of a C row and of a non-C row: balanced over all rows, or within each source (``power`` > 0).

    Balancing within each source makes gold's few constraints (8 % of gold items) weigh as much as gold's many
    non-constraints, instead of letting the constraint-rich written examples and phrasing rules (33 % and 73 % C)
    decide what a constraint looks like; ``power`` < 1 moves part way from the pooled balance towards it.
    """
    n = len(is_c)
    pooled = {k: n / (2.0 * max(1.0, float((is_c == k).sum()))) for k in (False, True)}
    pos, neg = np.full(n, pooled[True]), np.full(n, pooled[False])
    if sources is None or power <= 0:
        return pos, neg
    for src in np.unique(sources):
        m = sources == src
        for k, out in ((True, pos), (False, neg)):
            count = float((is_c[m] == k).sum())
            if count:
                out[m] = pooled[k] ** (1 - power) * (m.sum() / (2.0 * count)) ** power
    return pos, neg


def _fit_c_stage(Xc, is_c: np.ndarray, opts: FitOptions, w: np.ndarray | None,
                 c_share: np.ndarray | None = None, sources: np.ndarray | None = None) -> tuple[np.ndarray, float]:
    """Binary logistic regression (C vs rest); ``c_share`` (0..1 per item) splits an item into a C and a non-C row."""
    from sklearn.linear_model import LogisticRegression
    from scipy.sparse import vstack

    used = np.unique(Xc.indices)
    X, t = Xc[:, used], is_c.astype(float)
    w = np.ones(X.shape[0]) if w is None else np.asarray(w, dtype=np.float64)
    pos, neg = _class_weights(is_c, sources, opts.c_source_balance)  # from the hard labels
    if c_share is not None:
        t = np.where(np.isnan(c_share), t, c_share)
    soft = (t > 0) & (t < 1)
    if soft.any():  # a disputed item counts partly as C and partly as not C
        X = vstack([X, X[soft]]).tocsr()
        w = np.concatenate([w * np.where(soft, t, 1.0), w[soft] * (1 - t[soft])])
        t = np.concatenate([np.where(soft, 1.0, t), np.zeros(int(soft.sum()))])
        pos, neg = np.concatenate([pos, pos[soft]]), np.concatenate([neg, neg[soft]])
    y = (t > 0.5).astype(int)
    clf = LogisticRegression(C=opts.c_stage_reg, max_iter=3000)
    clf.fit(X, y, sample_weight=w * np.where(y == 1, pos, neg))
    cw = np.zeros(Xc.shape[1], dtype=np.float32)
    cw[used] = clf.coef_[0]
    cb = float(clf.intercept_[0])
    a = opts.c_nb_blend
    if a > 0:
        nw = _fit_binary_nb(X, y, opts.nb_alpha, w)
        cw[used] = a * nw + (1 - a) * cw[used]
        cb = (1 - a) * cb
    return cw, cb


def _log_freq(X, in_class: np.ndarray, w: np.ndarray, alpha: float) -> np.ndarray:
    """log P(feature | class) over X's columns: weighted feature counts of the class's rows, additive smoothing."""
    counts = alpha + np.asarray(X.T @ (w * in_class)).ravel()
    return np.log(counts / counts.sum())


def _fit_binary_nb(X, y: np.ndarray, alpha: float, w: np.ndarray) -> np.ndarray:
    """Multinomial naive Bayes log-odds per feature, C vs rest, uniform prior (weights over X's columns)."""
    return (_log_freq(X, y == 1, w, alpha) - _log_freq(X, y == 0, w, alpha)).astype(np.float32)


def _fit_all(Xt, Xc, y: np.ndarray, opts: FitOptions, w: np.ndarray, votes: np.ndarray | None = None,
             sources: np.ndarray | None = None, forms: np.ndarray | None = None) -> tuple:
    """(W, b, c_weights or None, c_bias): one softmax, or the constraint stage + a softmax over the rest.

    ``votes``: the annotators' labels per row (-1: none), for the soft targets of ``soft_c`` / ``soft_type``;
    ``sources``: where each row comes from (own / gold / phrasing), for ``c_source_balance``; ``forms``: each row's
    phrasing form ("" when none), for ``declarative_c_weight``.
    """
    if Xc is None:
        return (*_fit_weights(Xt, y, opts, w), None, 0.0)
    rest = y != C_INDEX
    Xr, yr, wr = _soft_type_rows(Xt[rest], y[rest], w[rest], None if votes is None else votes[rest], opts.soft_type)
    W, b = _fit_type_stage(Xr, yr, opts, wr)
    cw, cb = _fit_c_stage(Xc, y == C_INDEX, opts, _c_stage_weights(w, opts, sources, forms),
                          _c_shares(y, votes, opts.soft_c), sources)
    return W, b, cw, cb


def _c_stage_weights(w: np.ndarray, opts: FitOptions, sources: np.ndarray | None = None,
                     forms: np.ndarray | None = None) -> np.ndarray:
    """The rows' weights in the constraint stage: annotated items at ``annotated_c_weight``, rules written as plain
    facts (form "declarative") times ``declarative_c_weight``; every fit of that stage reads them from here."""
    if opts.annotated_c_weight is not None and sources is not None:
        w = np.where(sources == "annotated", opts.annotated_c_weight, w)
    if opts.declarative_c_weight != 1.0 and forms is not None:
        w = np.where(forms == "declarative", w * opts.declarative_c_weight, w)
    return w


def _proba(Xt, Xc, W, b, cw, cb) -> np.ndarray:
    s = np.asarray(Xt @ W) + b
    if cw is None:
        s -= s.max(axis=1, keepdims=True)
        e = np.exp(s)
        return e / e.sum(axis=1, keepdims=True)
    return combine_stages(1.0 / (1.0 + np.exp(-(np.asarray(Xc @ cw).ravel() + cb))), s)


def _fit_weights(X, y: np.ndarray, opts: FitOptions, w: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    from sklearn.linear_model import LogisticRegression

    # Fit on the hash buckets that occur (a few thousand of 131k): same L2 solution, ~50x faster.
    used = np.unique(X.indices)
    clf = LogisticRegression(C=opts.c_reg, class_weight="balanced", max_iter=2000)
    clf.fit(X[:, used], y, sample_weight=w)
    W = np.zeros((X.shape[1], len(TYPES)), dtype=np.float32)
    b = np.full(len(TYPES), -30.0, dtype=np.float32)  # a type absent from training can never win
    for j, k in enumerate(clf.classes_):
        W[used, k] = clf.coef_[j] if len(clf.classes_) > 2 else (clf.coef_[0] if j == 1 else -clf.coef_[0])
        b[k] = clf.intercept_[j] if len(clf.classes_) > 2 else 0.0
    return W, b


def _fit_naive_bayes(X, y: np.ndarray, alpha: float, w: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Multinomial naive Bayes as linear weights: log P(feature | type), uniform prior over the types present."""
    used = np.unique(X.indices)
    Xu = X[:, used]
    w = np.ones(X.shape[0]) if w is None else np.asarray(w, dtype=np.float64)
    W = np.zeros((X.shape[1], len(TYPES)), dtype=np.float32)
    b = np.full(len(TYPES), -30.0, dtype=np.float32)
    present = np.unique(y)
    for k in present:
        W[used, k] = _log_freq(Xu, y == k, w, alpha)
        b[k] = -np.log(len(present))
    return W, b


def _fit_type_stage(X, y: np.ndarray, opts: FitOptions, w: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """P/B/F/E weights: the logistic regression averaged with naive Bayes (``opts.nb_blend``), still one linear map.

    Naive Bayes ranks by per-type word frequencies, which is steadier than the regression on a few hundred short
    items; their average beat either alone in grouped CV (bench/classify_ablation.py: lr, nb).
    """
    W, b = _fit_weights(X, y, opts, w)
    a = opts.nb_blend
    if a <= 0:
        return W, b
    Wn, bn = _fit_naive_bayes(X, y, opts.nb_alpha, w)
    absent = b <= -30.0
    W, b = (a * Wn + (1 - a) * W).astype(np.float32), (a * bn + (1 - a) * b).astype(np.float32)
    b[absent] = -30.0  # a type absent from training can never win
    return W, b


def _weights(data: Sequence[Labelled], opts: FitOptions) -> np.ndarray:
    by_source = {"gold": opts.gold_weight, "annotated": opts.annotated_weight}
    return np.asarray([by_source.get(d.source, 1.0) for d in data])


def _votes(data: Sequence[Labelled], opts: FitOptions) -> np.ndarray | None:
    """The two annotators' labels of gold items as type indices ((n, 2), -1: none); None when soft targets are off."""
    if opts.soft_c <= 0 and opts.soft_type <= 0:
        return None
    out = np.full((len(data), 2), -1)
    for i, d in enumerate(data):
        for j, k in enumerate(("label_a", "label_b")):
            v = d.extra.get(k)
            if v in TYPES:
                out[i, j] = TYPES.index(v)
    return out


def _c_shares(y: np.ndarray, votes: np.ndarray | None, soft: float) -> np.ndarray | None:
    """Soft C targets: (1 - soft) x adjudicated label + soft x the annotators' share of C votes (NaN: no votes)."""
    if votes is None or soft <= 0:
        return None
    has = (votes >= 0).any(axis=1)
    share = np.where(has, (votes == C_INDEX).sum(axis=1) / np.maximum(1, (votes >= 0).sum(axis=1)), 0.0)
    return np.where(has, (1 - soft) * (y == C_INDEX) + soft * share, np.nan)


def _soft_type_rows(X, y: np.ndarray, w: np.ndarray, votes: np.ndarray | None, soft: float):
    """Adds a row per annotator vote for another non-C type, weighted ``soft / 2``; the item's own row keeps the rest."""
    if votes is None or soft <= 0:
        return X, y, w
    from scipy.sparse import vstack

    w = w.astype(np.float64).copy()
    rows, labels, weights = [], [], []
    for j in range(votes.shape[1]):
        other = (votes[:, j] >= 0) & (votes[:, j] != y) & (votes[:, j] != C_INDEX)
        idx = np.flatnonzero(other)
        rows.append(idx)
        labels.append(votes[idx, j])
        weights.append(w[idx] * soft / 2)
        w[idx] -= w[idx] * soft / 2  # the adjudicated label keeps the remaining weight
    idx = np.concatenate(rows)
    if not len(idx):
        return X, y, w
    return vstack([X, X[idx]]).tocsr(), np.concatenate([y, *labels]), np.concatenate([w, *weights])


def _sources(data: Sequence[Labelled]) -> np.ndarray:
    return np.asarray([d.source or "own" for d in data])


def _forms(data: Sequence[Labelled]) -> np.ndarray:
    return np.asarray([d.form or "" for d in data])


def _labels(data: Sequence[Labelled]) -> np.ndarray:
    return np.asarray([TYPES.index(d.label) for d in data])


HOLDOUTS = ("repo", "item")


def fold_splits(data: Sequence[Labelled], opts: FitOptions, seed: int | None = None,
                holdout: str = "repo") -> list[tuple[np.ndarray, np.ndarray]]:
    """(training rows, held-out rows) per grouped fold: whole groups held out, own examples in every training fold.

    ``holdout="repo"`` (the default, and what picks the shipped model's threshold) asks how the model does on
    repositories it never saw: gold items are held out with their whole repository, and annotated sample items
    (source ``annotated``, grouped by repository like gold) train every fold that does not hold out their
    repository. ``holdout="item"`` asks how it does on new items of files already in the corpus, which is how the
    pipeline meets most items (the annotated sample was drawn from the corpus it types): gold items are held out one
    by one, and annotated items train every fold except those whose held-out items have the same text. Phrasing
    items are held out with their whole rule in both (its four forms are one rule). Annotated items are never
    scored. ``seed`` shuffles the group-to-fold assignment (None: scikit-learn's deterministic unshuffled split).
    Shared by :func:`out_of_fold_proba` and the experiments that must score other models on exactly the same folds.
    """
    from sklearn.model_selection import GroupKFold

    if holdout not in HOLDOUTS:
        raise ValueError(f"holdout must be one of {HOLDOUTS}, got {holdout!r}")
    source = np.asarray([d.source for d in data])
    group = np.asarray([d.group or f"row{i}" for i, d in enumerate(data)], dtype=object)  # object: no width to truncate
    always = np.flatnonzero(source == "own")
    annotated = np.flatnonzero(source == "annotated")
    scored = np.flatnonzero((source != "own") & (source != "annotated"))
    if holdout == "item":
        group[scored] = [f"item{i}" if source[i] == "gold" else f"{source[i]}:{group[i]}" for i in scored]
        text = np.asarray([" ".join(d.item.text.split()) for d in data], dtype=object)
    n_splits = min(opts.folds, len(set(group[scored])))
    if n_splits < 2:
        return []
    kf = GroupKFold(n_splits=n_splits) if seed is None else GroupKFold(n_splits=n_splits, shuffle=True, random_state=seed)
    splits = []
    for tr, te in kf.split(scored, groups=group[scored]):
        if holdout == "item":
            held = np.isin(text[annotated], list(set(text[scored[te]])))
        else:
            held = np.isin(group[annotated], group[scored[te]])
        splits.append((np.concatenate([scored[tr], always, annotated[~held]]), scored[te]))
    return splits


def out_of_fold_proba(data: Sequence[Labelled], opts: FitOptions, seed: int | None = None,
                      holdout: str = "repo") -> np.ndarray:
    """P(type) for every scored item from a model that never saw its group (NaN rows: own examples, never scored).

    The package's own written examples are in every training fold, as in the shipped model. ``seed`` shuffles
    the group-to-fold assignment (None: scikit-learn's deterministic unshuffled split); ``holdout`` is what a
    fold holds out (see :func:`fold_splits`).
    """
    Xt, Xc = _matrices(data, opts)
    y = _labels(data)
    w = _weights(data, opts)
    votes = _votes(data, opts)
    sources, forms = _sources(data), _forms(data)
    P = np.full((len(data), len(TYPES)), np.nan)
    for tr, te in fold_splits(data, opts, seed, holdout):
        W, b, cw, cb = _fit_all(Xt[tr], None if Xc is None else Xc[tr], y[tr], opts, w[tr], None if votes is None else votes[tr],
                                sources[tr], forms[tr])
        P[te] = _proba(Xt[te], None if Xc is None else Xc[te], W, b, cw, cb)
    return P


def choose_threshold(p_c: np.ndarray, is_c: np.ndarray, beta: float = 1.5) -> float:
    """The threshold with the best out-of-fold F-beta on C (rows with NaN probabilities are skipped)."""
    ok = ~np.isnan(p_c)
    p_c, is_c = p_c[ok], is_c[ok]
    if not is_c.any():
        return 0.5
    best, best_t = -1.0, 0.5
    for t in np.arange(0.04, 0.96, 0.01):
        pred = p_c >= t
        tp = float((pred & is_c).sum())
        prec = tp / max(1.0, float(pred.sum()))
        rec = tp / float(is_c.sum())
        f = (1 + beta**2) * prec * rec / max(1e-9, beta**2 * prec + rec)
        if f > best + 1e-9:
            best, best_t = f, float(t)
    return round(best_t, 2)


def choose_temperature(P: np.ndarray, y: np.ndarray) -> float:
    """The temperature of the P/B/F/E stage with the best out-of-fold log-loss on the non-C items (NaN rows skipped).

    Scaling the type scores by 1/T keeps every decision and only calibrates the shares of the four types: naive
    Bayes sums many log-frequencies and is overconfident, which would inflate operators' procedure lane
    (p(P) >= 0.5) and hide abstentions. softmax(s / T) is softmax(s) ** (1 / T) renormalised, so P suffices.
    """
    ok = ~np.isnan(P[:, C_INDEX]) & (y != C_INDEX)
    if not ok.any():
        return 1.0
    q = np.delete(P[ok], C_INDEX, axis=1)
    q = np.clip(q / q.sum(axis=1, keepdims=True), 1e-12, 1.0)
    t = np.asarray([k - (k > C_INDEX) for k in y[ok]])
    best, best_T = np.inf, 1.0
    for T in np.arange(0.5, 5.01, 0.1):
        lq = np.log(q) / T
        lq -= lq.max(axis=1, keepdims=True)
        nll = float(-(lq[np.arange(len(t)), t] - np.log(np.exp(lq).sum(axis=1))).mean())
        if nll < best - 1e-9:
            best, best_T = nll, float(T)
    return round(best_T, 1)


def fit(data: Sequence[Labelled], opts: FitOptions | None = None, extra_meta: dict | None = None,
        oof: np.ndarray | None = None) -> LinearModel:
    """Fit on all of ``data``; the C threshold comes from out-of-fold probabilities (computed unless given)."""
    opts = opts or FitOptions()
    P = out_of_fold_proba(data, opts) if oof is None else oof
    y = _labels(data)
    threshold, hard = operating_points(data, P, opts)
    Xt, Xc = _matrices(data, opts)
    W, b, cw, cb = _fit_all(Xt, Xc, y, opts, _weights(data, opts), _votes(data, opts), _sources(data), _forms(data))
    temperature = choose_temperature(P, y) if cw is not None else 1.0
    if temperature != 1.0:
        absent = b <= -30.0
        W, b = W / temperature, b / temperature
        b[absent] = -30.0
    meta = {"type_temperature": temperature, "clusters": opts.clusters, "n_train": len(data), "c_reg": opts.c_reg, "beta": opts.beta,
            "two_stage": opts.two_stage, "c_stage_reg": opts.c_stage_reg, "nb_blend": opts.nb_blend,
            "nb_alpha": opts.nb_alpha, "word_vectors": opts.word_vectors,
            "sources": sorted({d.source for d in data}), **(extra_meta or {})}
    dense = None
    if cw is not None and len(cw) > opts.n_features:  # the word-vector columns, scale folded into their weights
        cw, dense = cw[: opts.n_features], cw[opts.n_features:] * opts.word_vectors
    meta["hard_threshold"] = hard
    return LinearModel(W, b, threshold, opts.n_features, json.dumps(meta), _clusters(data, opts), cw, cb, dense, hard)


def operating_points(data: Sequence[Labelled], P: np.ndarray, opts: FitOptions) -> tuple[float, float | None]:
    """(C threshold, hard-lane threshold) on the out-of-fold constraint risk of the real gold items.

    The C label where its (prevalence-weighted) F1 is best; the hard lane at the highest threshold that still
    catches >= 95 % of gold C (:mod:`aac.classifiers.grouped_eval`). Without gold items (own examples or phrasing
    only): the F-beta threshold of ``opts.beta`` over every scored row, and no separate hard lane.
    """
    from aac.classifiers.datasets import prevalence_weights
    from aac.classifiers.grouped_eval import choose_hard_threshold, choose_type_threshold, constraint_risk

    y = _labels(data)
    gold = np.asarray([d.source == "gold" for d in data])
    if not gold.any() or not (y[gold] == C_INDEX).any():
        return choose_threshold(P[:, C_INDEX], y == C_INDEX, opts.beta), None
    risk = np.where(gold, constraint_risk(P, data), np.nan)
    t = choose_type_threshold(risk, y == C_INDEX, np.asarray(prevalence_weights(list(data))))
    return t, min(t, choose_hard_threshold(risk, y == C_INDEX))


_CLUSTER_CACHE: dict[int, object] = {}


def _clusters(data: Sequence[Labelled], opts: FitOptions):
    """Label-free clustering of all training texts (fitted once per data set and reused across folds)."""
    if not opts.clusters:
        return None
    key = hash(tuple((d.item.text, d.item.section) for d in data))
    if key not in _CLUSTER_CACHE:
        from aac.classifiers.clusters import ClusterModel

        _CLUSTER_CACHE[key] = ClusterModel.fit([d.item for d in data], seed=opts.seed)
    return _CLUSTER_CACHE[key]


def labels_from_proba(P: np.ndarray, data: Sequence[Labelled], threshold: float) -> list[str]:
    q = risk_adjust(P, [d.item.authority for d in data], threshold)
    return [TYPES[k] for k in decide(q)]
