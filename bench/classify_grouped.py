#!/usr/bin/env python3
"""Grouped-by-repository CV of `trained` recipes on every real labelled item (issue 24), with the two operating points.

Data: the package's own examples (every training fold, never scored), gold_dev + gold_train (holdout repositories
left out; held out by whole repository), phrasing_dev + the multilingual phrasing set (held out by whole rule, in
every language at once), optionally the annotated sample (`--annotated`: trains folds that do not hold out its
repositories, never scored; `annotated_train` adds the second round on the train files). Prints, per recipe, the
figures of `aac.classifiers.grouped_eval` at the type threshold (best weighted F1) and at the hard-lane threshold
(>= 95 % of gold C), both chosen on these same out-of-fold scores (so the hard-lane recall reads 0.95 by
construction; its share of items is the figure).
usage: python bench/classify_grouped.py [--recipes base,annotated,annotated_train] [--seed 0]
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench._report import add_write_docs_flag, run_with_docs  # noqa: E402

import numpy as np  # noqa: E402

from aac.classifiers.datasets import (load_annotated, load_multilingual_phrasing, load_phrasing, load_union,  # noqa: E402
                                      own_examples, packaged_annotations, packaged_train_annotations,
                                      prevalence_weights)
from aac.classifiers.grouped_eval import (choose_hard_threshold, choose_type_threshold, constraint_risk,  # noqa: E402
                                          grouped_report)
from aac.classifiers.paths import shared_data  # noqa: E402
from aac.classifiers.training import FitOptions, out_of_fold_proba  # noqa: E402

RECIPES = {
    "base": (FitOptions(), False),
    "annotated": (FitOptions(), True),
    "annotated_train": (FitOptions(), "train"),  # + the second round on the train files (annotated_train.jsonl)
    "c2": (FitOptions(c_stage_reg=2.0), False),
    "c05": (FitOptions(c_stage_reg=0.5), False),
    "nowv": (FitOptions(word_vectors=0.0), False),
    "nb0": (FitOptions(nb_blend=0.0), False),
    "nb0r05": (FitOptions(nb_blend=0.0, c_reg=0.5), False),
    "nb0r3": (FitOptions(nb_blend=0.0, c_reg=3.0), False),
    "bal1": (FitOptions(c_source_balance=1.0), False),
    # the shipped recipe (every annotated item) with the rules written as plain facts weighing more in the C stage
    "shipped": (FitOptions(), "train"),
    **{f"decl{k}": (FitOptions(declarative_c_weight=float(k)), "train") for k in (1, 4, 6, 8, 12, 16)},
}


def row(name: str, s: dict) -> str:
    return (f"{name:<22} n={s['n']:>5} C={s['n_c']:>4} C-rec {s['c_rec']:.2f} C-prec {s['c_prec']:.2f} "
            f"C-F1 {s['c_f1']:.2f} mF1 {s['macro_f1']:.2f} acc {s['acc']:.2f} | hard lane: gold C {s['hard_rec']:.2f} "
            f"at {s['hard_share']:.2f} of items")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--recipes", default="base")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--detail", action="store_true", help="per language group and platform")
    add_write_docs_flag(ap)
    args = ap.parse_args()
    base = [*own_examples(), *load_union(), *load_phrasing(shared_data() / "phrasing_dev.jsonl"),
            *load_multilingual_phrasing()]
    for name in args.recipes.split(","):
        opts, with_annotated = RECIPES[name]
        data = list(base)
        if with_annotated:
            data += load_annotated(packaged_annotations(), shared_data() / "agent_configs_sample.jsonl")
        if with_annotated == "train":
            data += load_annotated(packaged_train_annotations(), shared_data() / "agent_configs_train.jsonl")
        t0 = time.time()
        P = out_of_fold_proba(data, opts, seed=args.seed)
        w = np.asarray(prevalence_weights(data))
        risk = constraint_risk(P, data)
        gold = np.asarray([d.source == "gold" for d in data])
        is_c = np.asarray([d.label == "C" for d in data])
        sel = gold & ~np.isnan(risk)
        t_type = choose_type_threshold(np.where(gold, risk, np.nan), is_c, w)
        t_hard = choose_hard_threshold(np.where(gold, risk, np.nan), is_c)
        rep = grouped_report(data, P, w, t_type, t_hard)
        print(f"== {name}: {int(sel.sum())} gold items scored, {time.time() - t0:.0f} s; type threshold {t_type}, "
              f"hard-lane threshold {t_hard}")
        print(row("all (weighted)", rep.overall))
        print(row("all (unweighted)", grouped_report(data, P, np.ones(len(data)), t_type, t_hard).overall))
        if args.detail:
            for k, s in rep.by_language.items():
                print(row("  " + k, s))
            for k, s in rep.by_platform.items():
                print(row("  " + k, s))
        for k, f in rep.forms.items():
            print(f"  {k}: " + " ".join(f"{a} {b:.2f}" for a, b in f.items()))
        np.save(f"/tmp/cls/oof_{name}.npy", P)


if __name__ == "__main__":
    run_with_docs(main)
