"""The teacher-cascade under the shipped recipe's CV grouped by repository (`aac eval classifiers --teacher-folds`).

The cascade is judged on exactly the folds, out-of-fold fast scores and operating points of the shipped model's
grouped report, so its row sits beside the default's with nothing else changed: per fold a teacher is fine-tuned on
the fold's training rows as ``aac classify train-teacher`` does on all of them (about 16 min a fold on 2 cores), its
held-out probabilities are cached in a folder of the user's (``te{k}.npy`` + ``idx{k}.npy``, reused while the
fold's held-out rows are the same), and the cascade's own code (:func:`teacher_cascade.refine`) decides labels and
hard lane from the two out-of-fold scores.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from aac.classifiers.datasets import Labelled
from aac.classifiers.grouped_eval import GroupedReport, constraint_risk, report_from_decisions
from aac.classifiers.linear import hard_lane
from aac.classifiers.teacher_cascade import CascadeParams, refine
from aac.core.labels import TYPES


def fold_teacher_proba(data: Sequence[Labelled], splits: Sequence[tuple[np.ndarray, np.ndarray]], cache: Path,
                       folds: Sequence[int] | None = None,
                       log: Callable[[str], None] | None = None) -> np.ndarray:
    """Out-of-fold teacher P(type) (NaN on rows no listed fold scores): each fold's from ``cache`` when its held-out
    rows match, else fine-tuned on the fold's training rows (needs the minilm extra) and written there."""
    from aac.classifiers.teacher_cascade import fit_teacher

    say = log or (lambda _: None)
    cache = Path(cache)
    cache.mkdir(parents=True, exist_ok=True)
    _check_recipe(cache)
    T = np.full((len(data), len(TYPES)), np.nan)
    for k in range(len(splits)) if folds is None else folds:
        tr, te = splits[k]
        te_file, idx_file = cache / f"te{k}.npy", cache / f"idx{k}.npy"
        if not (te_file.is_file() and idx_file.is_file() and np.array_equal(np.load(idx_file), te)):
            from aac.classifiers.teacher import require_minilm

            require_minilm()
            say(f"fold {k}: fine-tuning the teacher on {len(tr)} rows (about 16 min on 2 cores)")
            teacher = fit_teacher([data[i] for i in tr], log=lambda m: say(f"fold {k}: {m}"))
            np.save(te_file, teacher.proba([data[i].item for i in te]))
            np.save(idx_file, np.asarray(te))
        proba = np.load(te_file)
        if proba.shape != (len(te), len(TYPES)):
            raise ValueError(f"{te_file} holds {proba.shape[0]} rows of {proba.shape[1]} types, the fold has "
                             f"{len(te)} held-out rows of {len(TYPES)}: delete it to fine-tune the fold again")
        T[te] = proba
    return T


def _check_recipe(cache: Path) -> None:
    """The folder's probabilities must come from the teacher recipe of this code (``fit_teacher``'s defaults): the
    recipe is written on first use and a folder of another one is refused rather than read."""
    import inspect
    import json

    from aac.classifiers.teacher_cascade import fit_teacher

    recipe = {"teacher": "all-MiniLM-L6-v2 fine-tuned (fit_teacher)",
              **{name: par.default for name, par in inspect.signature(fit_teacher).parameters.items()
                 if name in ("epochs", "max_len", "seed", "annotated_weight")}}
    path = cache / "teacher_recipe.json"
    if not path.is_file():
        path.write_text(json.dumps(recipe, indent=1) + "\n", encoding="utf-8")
        return
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
    except ValueError:
        stored = None
    if stored != recipe:
        raise ValueError(f"{cache} holds teachers of another recipe ({path.name}: {stored}; this code fits "
                         f"{recipe}): give another folder")


def cascade_report(data: Sequence[Labelled], P_fast: np.ndarray, T: np.ndarray, weights: Sequence[float],
                   type_threshold: float, hard_threshold: float,
                   params: CascadeParams | None = None) -> GroupedReport:
    """The grouped report of the cascade's out-of-fold decisions, at the fast model's two operating points (the hard
    lane is the fast model's plus every item the cascade types C); rows either model left unscored are left out.
    ``overall["teacher_share"]`` is the (prevalence-weighted) share of gold items the teacher typed."""
    params = params or CascadeParams()
    scored = ~np.isnan(P_fast[:, 0]) & ~np.isnan(T[:, 0])
    Fz, Tz = np.nan_to_num(P_fast), np.nan_to_num(T)
    authority = [d.item.authority for d in data]
    hard = hard_lane(Fz, authority, hard_threshold) & scored
    _, labels, hard, band = refine(Fz, authority, type_threshold, hard, lambda rows: Tz[rows], params)
    risk = constraint_risk(np.where(scored[:, None], P_fast, np.nan), data)
    rep = report_from_decisions(data, [TYPES[k] for k in labels], hard & scored, risk, scored, weights,
                                type_threshold, hard_threshold)
    w = np.asarray(weights, dtype=float)
    gold = np.flatnonzero(scored & np.asarray([d.source == "gold" for d in data]))
    if len(gold):
        rep.overall["teacher_share"] = float(w[gold][band[gold]].sum() / w[gold].sum())
    return rep
