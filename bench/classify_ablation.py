#!/usr/bin/env python3
"""Which changes to the ``trained`` classifier generalise? Grouped CV on gold_dev + phrasing_dev, several shuffles.

Every row runs :func:`aac.classifiers.training.out_of_fold_proba` (the code that picks the shipped model's
threshold): folds hold out whole repositories (gold) / whole rules (phrasing); the package's own written examples
are in every training fold and never scored. Each row averages ``--seeds`` shuffles of the folds (one 5-fold split
moves C precision by +-0.05 on 31 gold constraints). The C threshold of each row is its best out-of-fold F-beta.

usage: python bench/classify_ablation.py [--seeds 3] [--variants shipped,previous,...] [--holdout repo|item|seen]
  (variants combine with "+", e.g. srcbal1+softc1; --holdout item: folds hold out single gold items and keep the
  annotated items of their files in training, how the model meets new items of files already in the corpus;
  --holdout seen: the same folds, but an annotator's blind label of each gold item's own text
  (bench/data/annotated_gold_checks.jsonl, the first one) trains every fold, as for an item of the sample whose text
  the annotated sample already holds: the package's annotated sample now covers every distinct segmented item of
  agent_configs_sample.jsonl except gold_dev's)
  shipped      FitOptions(): the package's 11,196 annotated sample items in every fold that keeps their repository
               (weight 0.5 in both stages), the mean word vector x3 in the constraint stage, threshold by
               F2, and: two stages (constraint stage over words + risk features, C=1, classes balanced half way towards
               each source's own balance (power 0.5), gold items' C targets half from the two annotators' votes; P/B/F/E
               stage = logistic regression averaged with multinomial naive Bayes, alpha 0.3), 252 examples
  noannotated  without the annotated sample items, threshold by F1.5 (the recipe shipped before them; the rows
               below were measured against it, see the model card)
  annc0.3, annw0.5  annotated items' weight in the constraint stage / in both stages
  pooled       the recipe shipped before: constraint-stage classes balanced over all items, adjudicated labels only
  srcbal0, srcbal0.75, srcbal1  per-source class balance power (0: pooled, 1: fully within each source)
  softc0, softc1  share of the annotators' votes in a gold item's C target
  softtype0.5, softtype1  weight moved to an annotator's other P/B/F/E vote in the type stage
  cnb0.2, cnb0.5  share of a binary naive Bayes in the constraint stage
  typesrc0.5, typesrc1  P/B/F/E classes balanced part / all the way towards each source's own balance
  nodomain     the risk families without their words for regulated domains (risk.DOMAIN_STAKES: law, finance,
               medicine, personal records, physical harm)
  hardstakes   + harder stake sub-families (forced pushes / protected branches, attacks / leaks, production /
               customers), crossed with force like the other stakes
  targeted     + 44 written examples aimed at the diagnosed false positives (strongly worded P/B/F items about
               code quality or tools, gold-shaped fragments under safety headings; bench/data/targeted_examples.jsonl)
  lr           P/B/F/E stage = logistic regression only (the recipe shipped before naive Bayes was blended in)
  nb           P/B/F/E stage = naive Bayes only
  nbblend0.4, nbblend0.6, nbalpha0.2, nbalpha0.4   other blend shares / smoothing
  typereg0.5, typereg2  P/B/F/E logistic regression C=0.5 / C=2 (with the blend)
  previous     an older recipe: one five-way softmax, F2 threshold, the first 136 examples only
  single       one five-way softmax (no constraint stage, no risk features), F1.5, 228 examples
  norisk       two stages, but the constraint stage sees the word/cue features only
  riskonly     two stages, the constraint stage sees the risk features only (no words, no older cues)
  oldexamples  shipped recipe with the first 136 examples only
  heldout      + the 215 items of data/heldout_own.jsonl as extra training examples
  beta1, beta2 threshold by F1 / F2 (F2 is the shipped rule)
  creg0.1, creg0.3  constraint-stage regularisation C=0.1 / C=0.3
  minilm1, minilm3  + the item's all-MiniLM-L6-v2 sentence embedding (two nearest headings and text, 384 dims,
               scaled by 1 / 3) in the constraint stage: a ceiling for what denser word meaning can buy (needs the
               minilm extra; never the default, 410 items/s)
The column P@R.9 is the best gold C precision any threshold reaches at C recall >= 0.90 (the issue's target point).
Constraint-stage ideas that need more than options (L1, stacking, a cascade, source indicators, distant
supervision from headings, ...) are measured by bench/classify_c_stage_ablation.py.
Type-stage ideas measured with the same protocol and not kept (rubric cue families for P/B/F/E, 45 more written
examples, down-weighted word columns, class-prior offsets, other linear learners) are listed with their figures in
aac/classifiers/models/trained.md ("What was tried").
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench._report import add_write_docs_flag, run_with_docs  # noqa: E402

from aac.classifiers import training  # noqa: E402
from aac.classifiers.datasets import (Labelled, heldout_own, item_from_row, load_annotated, load_gold,  # noqa: E402
                                     load_phrasing, own_examples, packaged_annotations)
from aac.classifiers.features import clear_caches, hash_tokens, item_tokens, to_csr  # noqa: E402
from aac.classifiers.metrics import form_recall, prf, summary  # noqa: E402
from aac.classifiers.paths import shared_data  # noqa: E402
from aac.classifiers.risk import risk_tokens  # noqa: E402
from aac.classifiers.training import FitOptions, choose_threshold, labels_from_proba  # noqa: E402

FIRST_EXAMPLES = 136  # examples.jsonl lines that existed before the risk features (the rest were added with them)
# variant name prefix -> FitOptions field set to the number after it (softtype before softc: first match wins)
NUMERIC_VARIANTS = (("nbblend", "nb_blend"), ("nbalpha", "nb_alpha"), ("typereg", "c_reg"), ("cnb", "c_nb_blend"),
                    ("srcbal", "c_source_balance"), ("softtype", "soft_type"), ("softc", "soft_c"),
                    ("creg", "c_stage_reg"), ("annc", "annotated_c_weight"), ("annw", "annotated_weight"),
                    ("wv", "word_vectors"))


def _csr(data, tokens):
    rows = [hash_tokens(tokens(d.item)) for d in data]
    ptr = np.cumsum([0] + [len(r) for r in rows])
    return to_csr(np.concatenate([np.asarray(r, dtype=np.int64) for r in rows]), ptr)


def _constraint_features(kind):
    """A stand-in for training._matrices whose constraint stage sees other features (ablation only)."""
    def matrices(data, opts):
        xt = _csr(data, item_tokens)
        xc = xt if kind == "words" else _csr(data, lambda it: ["bias"] + risk_tokens(it))
        return xt, xc
    return matrices


def variant(name: str):
    """(FitOptions, own examples to use, extra training examples, constraint-feature override or None)."""
    opts, own, extra, feats = FitOptions(), own_examples(), _annotated(), None
    for part in name.split("+"):
        opts, own, extra, feats = _apply(part, opts, own, extra, feats)
    return opts, own, extra, feats


_ANNOTATED: list = []


def _annotated() -> list:
    """The package's annotated sample items (the shipped recipe trains on them; never scored)."""
    if not _ANNOTATED:
        _ANNOTATED.extend(load_annotated(packaged_annotations(), shared_data() / "agent_configs_sample.jsonl"))
    return list(_ANNOTATED)


def _targeted() -> list:
    path = Path(__file__).resolve().parent / "data" / "targeted_examples.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [Labelled(item_from_row(r), r["label"], group=f"targeted:{i}", source="own") for i, r in enumerate(rows)]


def _apply(name, opts, own, extra, feats):
    if name == "noannotated":
        extra, opts = [d for d in extra if d.source != "annotated"], replace(opts, beta=1.5)
    elif name == "pooled":
        opts = replace(opts, c_source_balance=0.0, soft_c=0.0)
    elif name == "targeted":
        extra = [*extra, *_targeted()]
    elif name == "previous":
        opts, own = replace(opts, two_stage=False, beta=2.0), own[:FIRST_EXAMPLES]
    elif name == "single":
        opts = replace(opts, two_stage=False)
    elif name == "norisk":
        feats = "words"
    elif name == "riskonly":
        feats = "risk"
    elif name == "oldexamples":
        own = own[:FIRST_EXAMPLES]
    elif name == "heldout":
        extra = [replace(d, source="own") for d in heldout_own()]
    elif name.startswith("beta"):
        opts = replace(opts, beta=float(name[4:]))
    elif name in ("lr", "nb"):
        opts = replace(opts, nb_blend=0.0 if name == "lr" else 1.0)
    elif name.startswith(tuple(p for p, _ in NUMERIC_VARIANTS)):
        prefix, option = next((p, o) for p, o in NUMERIC_VARIANTS if name.startswith(p))
        opts = replace(opts, **{option: float(name[len(prefix):])})
    elif name != "shipped" and not name.startswith(("typesrc", "minilm")) and name not in ("hardstakes", "nodomain"):
        raise SystemExit(f"unknown variant {name}")
    return opts, own, extra, feats


def _type_source_fit(power: float):
    """training._fit_all whose P/B/F/E stage balances types part way towards each source's own balance."""
    orig = training._fit_all

    def fit_all(Xt, Xc, y, opts, w, votes=None, sources=None):
        W, b, cw, cb = orig(Xt, Xc, y, opts, w, votes, sources)
        rest = y != training.C_INDEX
        yr, sr = y[rest], sources[rest]
        kinds = np.unique(yr)
        adj = np.ones(len(yr))
        for src in np.unique(sr):
            m = sr == src
            present = np.unique(yr[m])
            for k in present:
                mk = m & (yr == k)
                pooled = len(yr) / (len(kinds) * (yr == k).sum())
                adj[mk] = (m.sum() / (len(present) * mk.sum()) / pooled) ** power
        W, b = training._fit_type_stage(Xt[rest], yr, opts, w[rest] * adj)
        return W, b, cw, cb
    return fit_all


_HARD_STAKES = (("vcs_hard", r"\b(?:force[-\s]?push\w*|--force|main\s+branch|master|protected\s+branch\w*|rebas\w*|"
                             r"history|--no-verify|reset\s+--hard)\b"),
                ("sec_hard", r"\b(?:vulnerab\w*|injection|xss|csrf|exploit\w*|malware|untrusted|unsafe|attack\w*|"
                             r"leak\w*|encrypt\w*|unencrypted|sudo|privileges?|firewall)\b"),
                ("prod_hard", r"\b(?:prod|production|live|customers?|real\s+users?|end[-\s]users?|dns|infrastructure)\b"))


def _patches(name: str) -> list[tuple[object, str, object]]:
    """(module, attribute, value) pairs a variant swaps in for its run."""
    import re

    from aac.classifiers import risk

    out = []
    for part in name.split("+"):
        if part.startswith("typesrc"):
            out.append((training, "_fit_all", _type_source_fit(float(part[7:]))))
        elif part == "hardstakes":  # harder stake sub-families, crossed with force like the others
            fams = risk._FAMILIES + tuple((n, re.compile(p)) for n, p in _HARD_STAKES)
            out += [(risk, "_FAMILIES", fams), (risk, "STAKES", risk.STAKES + tuple(n for n, _ in _HARD_STAKES)),
                    (risk, "_ANY", re.compile("|".join(f"(?:{p.pattern})" for _, p in fams)))]
            out += _pair_patches(fams)
        elif part.startswith("minilm"):
            out.append((training, "_matrices", _with_sentence_embeddings(training._matrices, float(part[6:] or 1))))
        elif part == "nodomain":  # the risk families without their regulated-domain words
            fams, any_family = risk.compile_families(domain=False)
            out += [(risk, "_FAMILIES", fams), (risk, "_ANY", any_family)]
            out += _pair_patches(fams)
    return out


def _pair_patches(fams) -> list[tuple[object, str, object]]:
    """The word-pair patterns that go with swapped risk families (pairs test only the branches across a space)."""
    from aac.classifiers import risk
    from aac.classifiers.spanning import spanning_families

    pair_fams, pair_any = spanning_families(fams)
    return [(risk, "_PAIR_FAMILIES", pair_fams), (risk, "_PAIR_ANY", pair_any)]


def _with_sentence_embeddings(matrices, scale: float):
    """training._matrices whose constraint stage also sees each item's MiniLM sentence embedding x ``scale``."""
    from scipy.sparse import csr_matrix, hstack

    from aac.classifiers.embeddings import get_backend

    cache: dict[tuple, np.ndarray] = {}

    def with_embeddings(data, opts):
        xt, xc = matrices(data, opts)
        keys = [(d.item.section[-2:], d.item.text) for d in data]
        new = list(dict.fromkeys(k for k in keys if k not in cache))
        if new:
            texts = [(" > ".join(sec) + ": " if sec else "") + text for sec, text in new]
            cache.update(zip(new, get_backend("minilm").encode(texts)))
        return xt, hstack([xc, csr_matrix(np.stack([cache[k] for k in keys]) * scale)]).tocsr()
    return with_embeddings


def precision_at_recall(p_c: np.ndarray, is_c: np.ndarray, recall: float = 0.9) -> float:
    """The best precision of any threshold on ``p_c`` whose recall of ``is_c`` is at least ``recall``."""
    order = np.argsort(-p_c, kind="stable")
    tp = np.cumsum(is_c[order])
    prec = tp / np.arange(1, len(tp) + 1)
    sorted_p = p_c[order]
    cut = np.append(sorted_p[1:] != sorted_p[:-1], True)  # a threshold keeps all of a tie or none of it
    ok = cut & (tp >= recall * max(1, is_c.sum()))
    return float(prec[ok].max()) if ok.any() else 0.0


def _seen_rows(dev) -> list:
    """Gold items again, labelled by an annotator of the annotated sample instead of the adjudicators: the
    ``--holdout seen`` rows (source ``annotated``, so never scored)."""
    first: dict[str, str] = {}
    for line in (Path(__file__).resolve().parent / "data" / "annotated_gold_checks.jsonl").read_text().splitlines():
        if line.strip():
            row = json.loads(line)
            first.setdefault(row["gold_id"], row["label"])
    return [replace(d, label=first[d.extra["id"]], source="annotated", extra={"id": d.extra["id"], "seen": True})
            for d in dev if d.source == "gold" and d.extra.get("id") in first]


def _with_seen_rows(fold_splits):
    """training.fold_splits with the ``seen`` rows in every training fold."""
    def splits(data, opts, seed=None, holdout="repo"):
        seen = np.flatnonzero([bool((d.extra or {}).get("seen")) for d in data])
        return [(np.union1d(tr, seen), te) for tr, te in fold_splits(data, opts, seed, "item")]
    return splits


def run(name, dev, seeds, holdout="repo"):
    opts, own, extra, feats = variant(name)
    data = [*own, *extra, *(_seen_rows(dev) if holdout == "seen" else []), *dev]
    saved = training._matrices
    if feats:
        training._matrices = _constraint_features(feats)
    patches = _patches(name) + ([(training, "fold_splits", _with_seen_rows(training.fold_splits))]
                                if holdout == "seen" else [])
    undo = [(mod, attr, getattr(mod, attr)) for mod, attr, _ in patches]
    for mod, attr, value in patches:
        setattr(mod, attr, value)
    clear_caches()
    try:
        runs = []
        for seed in seeds:
            P = training.out_of_fold_proba(data, opts, seed=seed, holdout=holdout)
            is_c = np.asarray([d.label == "C" for d in data])
            labels = labels_from_proba(P, data, choose_threshold(P[:, 0], is_c, opts.beta))
            g = [k for k, d in enumerate(data) if d.source == "gold"]
            ph = [k for k, d in enumerate(data) if d.source == "phrasing"]
            gl, pl = [data[k].label for k in g], [labels[k] for k in g]
            at_target = precision_at_recall(P[g, 0], np.asarray([lab == "C" for lab in gl]))
            runs.append(({**summary(gl, pl), **{t: prf(gl, pl, t)[2] for t in "PBFE"}, "p_at_r90": at_target},
                         form_recall([data[k].label for k in ph], [labels[k] for k in ph], [data[k].form for k in ph])))
    finally:
        training._matrices = saved
        for mod, attr, value in reversed(undo):
            setattr(mod, attr, value)
        clear_caches()
    return runs


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--variants", default="shipped,pooled,srcbal0,srcbal0.75,srcbal1,softc0,softc1,srcbal1+softc1,"
                                          "softtype0.5,cnb0.2,typesrc0.5,typesrc1,nodomain,hardstakes,targeted,lr,nb,nbblend0.4,nbblend0.6,nbalpha0.2,nbalpha0.4,typereg0.5,typereg2,"
                                          "previous,single,norisk,riskonly,oldexamples,heldout,beta1,beta2,creg0.1,creg0.3")
    ap.add_argument("--holdout", choices=(*training.HOLDOUTS, "seen"), default="repo",
                    help="repo: folds hold out whole repositories; item: single gold items, their files' annotated "
                         "items kept in training (training.fold_splits); seen: as item, with an annotator's label of "
                         "each gold item's own text in every training fold")
    add_write_docs_flag(ap)
    args = ap.parse_args()
    dev = load_gold(shared_data() / "gold_dev.jsonl") + load_phrasing(shared_data() / "phrasing_dev.jsonl")
    what = {"repo": "whole repositories held out", "item": "single gold items held out",
            "seen": "single gold items held out, an annotator's label of each one's text kept in training"}[args.holdout]
    print(f"grouped CV ({what}), {args.seeds} shuffles of 5 folds over {len(dev)} dev items; "
          "own examples in every training fold")
    print(f"{'variant':12} {'C-rec':>6} {'C-prec':>6} {'C-F1':>6} {'mF1':>6} {'acc':>6} {'P@R.9':>6} | decl  distr->C | "
          "F1 P B F E")
    for v in args.variants.split(","):
        runs = run(v, dev, range(1, args.seeds + 1), args.holdout)
        m = lambda k: np.mean([r[0][k] for r in runs])  # noqa: E731
        f = lambda k: np.mean([r[1].get(k, 0.0) for r in runs])  # noqa: E731
        print(f"{v:12} {m('c_rec'):6.2f} {m('c_prec'):6.2f} {m('c_f1'):6.2f} {m('macro_f1'):6.2f} {m('acc'):6.2f} "
              f"{m('p_at_r90'):6.2f} | "
              f"{f('declarative'):.2f}  {f('distractor_to_c'):.2f}     | " + " ".join(f"{m(t):.2f}" for t in "PBFE"),
              flush=True)


if __name__ == "__main__":
    run_with_docs(main)
