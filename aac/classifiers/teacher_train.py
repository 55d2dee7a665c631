"""Train the ``teacher-cascade`` head on every real labelled item and choose its band and operating points.

    python -m aac.classifiers.teacher_train [--out aac/classifiers/models/teacher_head.npz] [--recall 0.99]

1. embeds the shipped training data's labelled items (own examples, gold_dev + gold_train without holdout
   repositories, phrasing) with the frozen MiniLM encoder (cached under the user cache, ~/.cache/aac/teacher);
2. computes grouped out-of-fold scores of the fast model and of the head (the folds of ``bench/classify_grouped.py``);
3. the band: fast constraint risk >= the threshold catching ``recall`` of gold C out of fold (so the teacher sees
   every item near either operating point); the cascade's C and hard-lane thresholds are chosen on the cascade's
   out-of-fold scores as ``training.fit`` chooses the fast model's;
4. fits the head on all those items and writes it with the band and thresholds (a few KB).
Needs the minilm extra and the shared data (../shared/data); says what it skipped when files are absent.
"""

from __future__ import annotations

import argparse
import hashlib
import os
from pathlib import Path
from typing import Sequence

import numpy as np

from aac.classifiers.base import ItemInput


def cache_dir() -> Path:
    from aac.core.config import Settings

    base = Settings.from_env().xdg_cache_home or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "aac" / "teacher"


def embeddings(items: Sequence[ItemInput], max_len: int = 128, where: Path | None = None, log=print) -> np.ndarray:
    """Frozen-encoder embeddings of ``items``, cached by a digest of their teacher inputs and ``max_len``."""
    from aac.classifiers.teacher import Teacher, teacher_input

    h = hashlib.sha1(str(max_len).encode())
    for it in items:
        h.update("\x00".join(teacher_input(it)).encode("utf-8") + b"\x01")
    path = (where or cache_dir()) / f"embeddings_{h.hexdigest()[:16]}.npy"
    if path.exists():
        return np.load(path)
    log(f"embedding {len(items)} items with the frozen MiniLM encoder (about 10-100 items/s on CPU)")
    E = Teacher(max_len=max_len).embed(items, log=log)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.save(path, E)
    return E


def train(out: Path, recall: float = 0.99, c_head: float = 0.1, max_len: int = 128, log=print) -> dict:
    from aac.classifiers import training
    from aac.classifiers.datasets import prevalence_weights
    from aac.classifiers.grouped_eval import choose_hard_threshold, constraint_risk
    from aac.classifiers.teacher import FrozenTeacher
    from aac.classifiers.teacher_cascade import combine
    from aac.classifiers.training import FitOptions, operating_points
    from aac.classifiers.union_report import shipped_data
    from aac.core.labels import TYPES

    data = shipped_data(with_annotated=training.SHIPPED_WITH_ANNOTATED)
    if not any(d.source == "gold" for d in data):
        raise RuntimeError("no gold items found (../shared/data/gold_dev.jsonl, gold_train.jsonl): the band and the "
                           "operating points are chosen on them")
    rows = np.asarray([i for i, d in enumerate(data) if d.source != "annotated"])
    E = np.full((len(data), 384), np.nan, dtype=np.float32)
    E[rows] = embeddings([data[i].item for i in rows], max_len, log=log)
    y = np.asarray([TYPES.index(d.label) for d in data])
    opts = FitOptions()
    F = training.out_of_fold_proba(data, opts)
    T = np.full_like(F, np.nan)
    for tr, te in training.fold_splits(data, opts):
        r = np.asarray([i for i in tr if data[i].source != "annotated"])
        T[te] = FrozenTeacher(c_head).fit(E[r], y[r]).proba(E[te])
    gold = np.asarray([d.source == "gold" for d in data])
    is_c = y == TYPES.index("C")
    risk = constraint_risk(F, data)
    band = choose_hard_threshold(np.where(gold, risk, np.nan), is_c, recall)
    inside = np.nan_to_num(risk, nan=-1) >= band
    P = np.where(inside[:, None], combine(F, T), F)
    c_t, hard_t = operating_points(data, P, opts)
    w = np.asarray(prevalence_weights(list(data)))
    ok = gold & ~np.isnan(risk)
    share = float(w[ok & inside].sum() / w[ok].sum())
    head = FrozenTeacher(c_head).fit(E[rows], y[rows])
    head.save(out)
    with np.load(out, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    np.savez(out, **arrays, band=np.float32(band), c_threshold=np.float32(c_t), hard_threshold=np.float32(hard_t),
             max_len=np.int32(max_len), recall=np.float32(recall))
    info = {"items": int(len(rows)), "band": band, "band_share": share, "c_threshold": c_t, "hard_threshold": hard_t}
    log(f"wrote {out}: {info}")
    return info


def main() -> None:
    from aac.classifiers.teacher_cascade import shipped_head_path

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=shipped_head_path())
    ap.add_argument("--recall", type=float, default=0.99, help="the band catches this share of gold C out of fold")
    ap.add_argument("--c-head", type=float, default=0.1)
    ap.add_argument("--max-len", type=int, default=128)
    args = ap.parse_args()
    from aac.classifiers.teacher import _require_torch

    _require_torch()  # a missing minilm extra: its exact pip line, not a traceback
    import torch

    torch.set_num_threads(min(2, os.cpu_count() or 1))
    train(args.out, args.recall, args.c_head, args.max_len)


if __name__ == "__main__":
    main()
