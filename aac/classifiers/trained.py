"""The ``trained`` classifier: the shipped linear model over hashed cue/word/section features.

Loads ``models/trained.npz`` (or a model written by ``aac classify train --out DIR``) with numpy only, so
start-up stays in the tens of milliseconds; see ``models/trained.md`` for its training data and scores.
"""

from __future__ import annotations

import os
from typing import Sequence

from aac.classifiers.base import ItemInput, Prediction, make_fingerprint
from aac.classifiers.linear import CODE_VERSION, LinearModel, hard_lane, predictions, risk_adjust

from aac.classifiers.operating_point import MODEL_ENV, hard_lane_risk, model_path, shipped_model_path  # noqa: F401


class TrainedClassifier:
    name = "trained"

    def __init__(self, model: str | os.PathLike | LinearModel | None = None, abstain_below: float = 0.40):
        if isinstance(model, LinearModel):
            self.model = model
        else:
            p = model_path(model)
            if not p.exists():
                raise FileNotFoundError(f"classifier model not found: {p} (train one with `aac classify train`)")
            self.model = LinearModel.load(p)
        self.abstain_below = abstain_below
        self._fingerprint: str | None = None

    @property
    def fingerprint(self) -> str:
        """Code version, abstain threshold and a digest of the model's arrays (a retrained model changes it)."""
        if self._fingerprint is None:
            self._fingerprint = make_fingerprint(self.name, CODE_VERSION, self.abstain_below, self.model.digest())
        return self._fingerprint

    def risk_proba(self, items: Sequence[ItemInput]):
        """Authority-weighted, threshold-rescaled probabilities (C at 0.5 = the model's decision boundary)."""
        p = self.model.probabilities(items)
        return risk_adjust(p, [i.authority for i in items], self.model.c_threshold)

    @property
    def hard_lane_risk(self) -> float:
        """This model's hard-lane threshold on the reported P(C) (see :mod:`aac.classifiers.operating_point`)."""
        return self.model.hard_lane_risk()

    def predict(self, items: Sequence[ItemInput]) -> list[Prediction]:
        if not items:
            return []
        p = self.model.probabilities(items)
        authority = [i.authority for i in items]
        q = risk_adjust(p, authority, self.model.c_threshold)
        return predictions(q, self.name, self.abstain_below, hard_lane(p, authority, self.model.hard_lane_threshold))
