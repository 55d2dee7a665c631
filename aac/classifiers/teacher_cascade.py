"""The ``teacher-cascade`` classifier: the fast model types every item, the MiniLM teacher re-types the uncertain band.

Why: the teacher (frozen all-MiniLM-L6-v2 + a trained head, :class:`aac.classifiers.teacher.FrozenTeacher`) and the
fast model are complementary; their averaged probabilities rank gold constraints better than either, but the
teacher runs at tens of items/s on CPU. So the fast model scores everything, and only items whose fast constraint
risk reaches the band threshold (the uncertain band and above: where both operating points are decided) are
embedded by the teacher and get the mean of both probabilities. Both operating points (the C label and the hard
lane at >= 95 % gold-C recall) are re-chosen on the cascade's own grouped out-of-fold scores and stored with the
head (``models/teacher_head.npz``, a few KB; the encoder comes from the minilm extra's packaged weights).
Train the head with ``python -m aac.classifiers.teacher_train``.
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path
from typing import Sequence

import numpy as np

from aac.classifiers.base import AUTHORITY_WEIGHTS, ItemInput, Prediction, make_fingerprint
from aac.classifiers.linear import C_INDEX

VERSION = 1  # bump when the band rule or the way the two probabilities are combined change
TRAIN_COMMAND = "python -m aac.classifiers.teacher_train"


def shipped_head_path() -> Path:
    return Path(str(resources.files("aac.classifiers").joinpath("models/teacher_head.npz")))


def combine(fast: np.ndarray, teacher: np.ndarray) -> np.ndarray:
    """The cascade's probabilities for items in the band: the mean of both models'."""
    return 0.5 * (np.asarray(fast, dtype=np.float64) + np.asarray(teacher, dtype=np.float64))


def in_band(fast: np.ndarray, authority: Sequence[str], band: float) -> np.ndarray:
    """Items the teacher re-types: fast constraint risk (P(C) x authority weight) >= ``band``."""
    w = np.asarray([AUTHORITY_WEIGHTS.get(a, 1.0) for a in authority])
    return fast[:, C_INDEX] * w >= band


class TeacherCascadeClassifier:
    name = "teacher-cascade"

    def __init__(self, model: str | os.PathLike | None = None, head: str | os.PathLike | None = None,
                 abstain_below: float = 0.40):
        from aac.classifiers.teacher import FrozenTeacher, Teacher, _require_torch
        from aac.classifiers.trained import TrainedClassifier

        path = Path(head) if head else shipped_head_path()
        if not path.exists():
            raise FileNotFoundError(f"teacher head not found: {path} (train it with `{TRAIN_COMMAND} --out {path}`)")
        _require_torch()  # the encoder: a missing minilm extra raises its exact pip line
        self.fast = TrainedClassifier(model, abstain_below=0.0)
        self.head = FrozenTeacher.load(path)
        with np.load(path, allow_pickle=False) as z:
            self.band = float(z["band"])
            self.c_threshold, self.hard_threshold = float(z["c_threshold"]), float(z["hard_threshold"])
            self.max_len = int(z["max_len"])
            self._digest = str(np.asarray(z["W"]).tobytes().hex()[:32])
        self.encoder = Teacher(max_len=self.max_len)
        self.abstain_below = abstain_below
        self.last_band_share = 0.0  # share of the last batch the teacher typed (bench/classify.py prints it)

    @property
    def fingerprint(self) -> str:
        return make_fingerprint(self.name, VERSION, self.abstain_below, self.band, self.c_threshold,
                                self.hard_threshold, self.fast.fingerprint, self._digest)

    def probabilities(self, items: Sequence[ItemInput]) -> np.ndarray:
        p = self.fast.model.probabilities(items).astype(np.float64)
        band = np.flatnonzero(in_band(p, [i.authority for i in items], self.band))
        self.last_band_share = len(band) / max(1, len(items))
        if len(band):
            E = self.encoder.embed([items[i] for i in band])
            p[band] = combine(p[band], self.head.proba(E))
        return p

    def predict(self, items: Sequence[ItemInput]) -> list[Prediction]:
        from aac.classifiers.linear import hard_lane, predictions, risk_adjust

        if not items:
            return []
        p = self.probabilities(items)
        authority = [i.authority for i in items]
        q = risk_adjust(p, authority, self.c_threshold)
        return predictions(q, self.name, self.abstain_below, hard_lane(p, authority, self.hard_threshold))
