"""The ``teacher-cascade`` classifier: the fast model for every item and for the hard lane, the fine-tuned MiniLM
teacher for the type label of the items the fast model is unsure of (issue 24).

Why this split: under CV grouped by repository the teacher ranks constraints worse than the fast model (so mixing it
into the constraint risk lengthens the hard lane), but mixed into the probabilities it types P/B/F/E and plain-fact
rules better (model card, "The teacher for the type label"). So the hard lane stays exactly the fast model's decision
(every consumer's safety promise is unchanged), and only the label moves: for an item whose fast top-two gap (on the
rescaled probabilities) is below ``band_gap``, the label is decided on ``(1 - mix) x fast + mix x teacher`` with its
own C threshold, chosen by the same grouped CV (so are the band's width and ``c_window``, which adds the items near
the fast C decision). An item typed C joins the hard lane, as with every classifier.

The teacher's weights (90 MB) never go in git: ``aac classify train-teacher --out PATH`` writes them, with the
cascade's parameters, and ``AAC_TEACHER=PATH`` (or ``TeacherCascadeClassifier(teacher=PATH)``) points here. Needs the
minilm extra (torch); the error says which install line.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from aac.classifiers.base import ItemInput, Prediction, make_fingerprint
from aac.classifiers.linear import C_INDEX, decide, hard_lane, risk_adjust
from aac.core.labels import TYPES

VERSION = 1  # bump when the band or the mixing rule changes (part of the fingerprint)
TEACHER_ENV = "AAC_TEACHER"


@dataclass(frozen=True)
class CascadeParams:
    """The cascade's operating point, stored with the teacher's weights. Defaults: the best C-F1 (then macro-F1, then
    the fewest items for the teacher) of ``bench/classify_teacher_cascade.py``'s grid over the shipped five folds,
    2026-12-07: C-F1 0.46 -> 0.50, macro-F1 0.59 -> 0.63, declarative C 0.80 / 0.66 -> 0.90 / 0.86 (phrasing_dev /
    multilingual) with the teacher on 30 % of items; the same defaults won before the declarative weight (model card)."""

    mix: float = 0.5  # the teacher's share of the mixed probabilities
    type_threshold: float = 0.59  # the C threshold on the mixed constraint risk (best weighted F1 out of fold)
    band_gap: float = 0.2  # the teacher sees an item when the fast top-two gap is below this (> 1: every item)
    c_window: float = 0.3  # ... or when its rescaled P(C) is within this of the C decision (0.5)

    def __post_init__(self):
        if (not 0.0 <= self.mix <= 1.0 or not 0.0 < self.type_threshold < 1.0 or self.band_gap < 0.0
                or self.c_window < 0.0):
            raise ValueError(f"cascade parameters out of range: {self}")


def uncertain_band(q_fast: np.ndarray, band_gap: float, c_window: float = 0.0) -> np.ndarray:
    """Items whose two most probable types (rescaled, C at 0.5 = its decision) are closer than ``band_gap``, or whose
    rescaled P(C) is within ``c_window`` of that decision: where the fast label may be wrong."""
    top2 = np.sort(q_fast, axis=1)[:, -2:]
    return ((top2[:, 1] - top2[:, 0]) < band_gap) | (np.abs(q_fast[:, C_INDEX] - 0.5) < c_window)


def refine(p_fast: np.ndarray, authority: Sequence[str], c_threshold: float, hard: np.ndarray,
           teacher_proba: Callable[[np.ndarray], np.ndarray], params: CascadeParams):
    """(rescaled probabilities, label indices, hard lane, band) of the cascade. ``teacher_proba(rows)`` gives the
    teacher's P(type) of those rows only, so the slow model runs on the band alone. The hard lane is the fast
    model's (``hard``) plus every item typed C."""
    q = risk_adjust(p_fast, authority, c_threshold)
    band = uncertain_band(q, params.band_gap, params.c_window)
    rows = np.flatnonzero(band)
    if len(rows):
        mixed = (1.0 - params.mix) * p_fast[rows] + params.mix * np.asarray(teacher_proba(rows), dtype=p_fast.dtype)
        q[rows] = risk_adjust(mixed, [authority[i] for i in rows], params.type_threshold)
    labels = np.asarray(decide(q))
    return q, labels, np.asarray(hard, dtype=bool) | (labels == C_INDEX), band


def teacher_path(path: str | os.PathLike | None = None) -> Path:
    """Explicit path, else $AAC_TEACHER; an error naming the command that writes one when neither is there."""
    from aac.core.config import Settings  # the one reader of the environment

    chosen = path or Settings.from_env().extra.get(TEACHER_ENV)
    hint = ("train one with `aac classify train-teacher --out PATH` (about 20 min on 2 cores) and set "
            f"{TEACHER_ENV}=PATH")
    if not chosen:
        raise FileNotFoundError(f"the teacher-cascade classifier needs fine-tuned teacher weights: {hint}")
    p = Path(chosen)
    if not p.is_file():
        raise FileNotFoundError(f"no teacher weights at {p}: {hint}")
    return p


class TeacherCascadeClassifier:
    name = "teacher-cascade"

    def __init__(self, teacher=None, model=None, params: CascadeParams | None = None, abstain_below: float = 0.40):
        """``teacher``: a path to weights from ``aac classify train-teacher`` (default $AAC_TEACHER) or a fitted
        :class:`aac.classifiers.teacher.Teacher`; ``model``: the fast model (default: the shipped one);
        ``params``: overrides the parameters stored with the weights."""
        from aac.classifiers.teacher import Teacher, file_digest
        from aac.classifiers.trained import TrainedClassifier

        self.fast = TrainedClassifier(model, abstain_below=0.0)
        if isinstance(teacher, Teacher):
            self.teacher, stored, self._teacher_digest = teacher, teacher.cascade, teacher.digest()
        else:
            path = teacher_path(teacher)
            self.teacher = Teacher().load(path)
            stored, self._teacher_digest = self.teacher.cascade, file_digest(path)
        self.params = params or (CascadeParams(**stored) if stored else CascadeParams())
        self.abstain_below = abstain_below

    @property
    def fingerprint(self) -> str:
        return make_fingerprint(self.name, VERSION, self.abstain_below, sorted(asdict(self.params).items()),
                                self.fast.fingerprint, self._teacher_digest)

    def band(self, items: Sequence[ItemInput]) -> np.ndarray:
        """Which of ``items`` the teacher would see (the fast model alone decides: no teacher call)."""
        p = self.fast.model.probabilities(items)
        q = risk_adjust(p, [i.authority for i in items], self.fast.model.c_threshold)
        return uncertain_band(q, self.params.band_gap, self.params.c_window)

    def predict(self, items: Sequence[ItemInput]) -> list[Prediction]:
        if not items:
            return []
        p = self.fast.model.probabilities(items)
        authority = [i.authority for i in items]
        hard = hard_lane(p, authority, self.fast.model.hard_lane_threshold)
        q, labels, hard, band = refine(p, authority, self.fast.model.c_threshold, hard,
                                       lambda rows: self.teacher.proba([items[i] for i in rows]), self.params)
        out = []
        for row, k, h, b in zip(q.tolist(), labels.tolist(), hard.tolist(), band.tolist()):
            conf = row[k]
            source = f"{self.name}:{'teacher' if b else 'fast'}"
            out.append(Prediction(TYPES[k], tuple(row), conf, conf < self.abstain_below, source, bool(h)))
        return out


ANNOTATED_WEIGHT = 0.5  # annotated items' weight in the teacher's loss (gold, phrasing and own examples weigh 1)


def fit_teacher(data, epochs: int = 1, max_len: int = 64, seed: int = 0,
                annotated_weight: float = ANNOTATED_WEIGHT, log=None):
    """The teacher fine-tuned on labelled items (:class:`aac.classifiers.datasets.Labelled`), annotated items at
    ``annotated_weight``: what ``train-teacher`` does on the whole recipe and the bench on each fold."""
    from aac.classifiers.teacher import Teacher

    y = np.asarray([TYPES.index(d.label) for d in data])
    w = np.asarray([annotated_weight if d.source == "annotated" else 1.0 for d in data])
    return Teacher(epochs=epochs, max_len=max_len, seed=seed).fit([d.item for d in data], y, sample_weight=w, log=log)


def train_union_teacher(out: str | os.PathLike, epochs: int = 1, max_len: int = 64, seed: int = 0,
                        annotated_weight: float = ANNOTATED_WEIGHT, params: CascadeParams | None = None,
                        log=None, skipped: list[str] | None = None) -> tuple[Path, int]:
    """Fine-tune the teacher on the shipped recipe's data (every real labelled item, holdout repositories left out,
    the phrasing sets, the package's annotated items and own examples) and write it with the cascade's parameters.
    Returns (path, items trained on). About 26 items/s an epoch on 2 free cores."""
    from aac.classifiers.teacher import require_minilm
    from aac.classifiers.training import SHIPPED_WITH_ANNOTATED
    from aac.classifiers.union_report import shipped_data

    require_minilm()  # before minutes of segmenting the shared files
    data = shipped_data(with_annotated=SHIPPED_WITH_ANNOTATED, skipped=skipped)
    if not any(d.source == "gold" for d in data):
        raise FileNotFoundError("no gold items found in the shared data folder (AAC_SHARED_DATA, default "
                                "../shared/data): the teacher trains on gold_dev.jsonl and gold_train.jsonl")
    teacher = fit_teacher(data, epochs, max_len, seed, annotated_weight, log)
    teacher.cascade = asdict(params or CascadeParams())
    path = teacher.save(out)
    write_card(path, data, teacher, epochs, annotated_weight)
    return path, len(data)


def write_card(weights: Path, data, teacher, epochs: int, annotated_weight: float = ANNOTATED_WEIGHT) -> Path:
    """``<weights>.md`` beside the weights: what the teacher was trained on and the cascade's parameters, so a
    weights file found later says what it is."""
    from collections import Counter

    counts = Counter(d.source for d in data)
    files = Counter(d.extra.get("file") or d.extra.get("labels") for d in data if d.source in ("gold", "annotated"))
    lines = [f"# Teacher for the `teacher-cascade` classifier: {weights.name}", "",
             "all-MiniLM-L6-v2 fine-tuned end to end as a five-way classifier (aac/classifiers/teacher.py), input: the "
             f"three nearest headings and the list's lead-in, then the text, {teacher.max_len} tokens; {epochs} "
             f"epoch(s), class-balanced, annotated items at weight {annotated_weight}.", "",
             "## Training data", "",
             *[f"- {source}: {n} items" for source, n in sorted(counts.items())],
             *[f"  - {name}: {n}" for name, n in sorted(files.items()) if name],
             "- repositories in holdout_repos.sha256 left out", "",
             "## Cascade parameters (stored in the weights file)", "",
             *[f"- {k}: {v}" for k, v in (teacher.cascade or {}).items()], "",
             "Figures under CV grouped by repository: the model card of the `trained` model, section \"The teacher for "
             "the type label only\" (`python bench/classify_teacher_cascade.py`).", ""]
    card = weights.with_name(weights.name + ".md")
    card.write_text("\n".join(lines), encoding="utf-8")
    return card
