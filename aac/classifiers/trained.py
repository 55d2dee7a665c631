"""The ``trained`` classifier: the shipped linear model over hashed cue/word/section features.

Loads ``models/trained.npz`` (or a model written by ``aac classify train --out DIR``) with numpy only, so
start-up stays in the tens of milliseconds; see ``models/trained.md`` for its training data and scores.
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path
from typing import Sequence

from aac.classifiers.base import ItemInput, Prediction, make_fingerprint
from aac.classifiers.linear import CODE_VERSION, LinearModel, predictions, risk_adjust
from aac.core.config import Settings

MODEL_ENV = "AAC_CLASSIFIER_MODEL"


def shipped_model_path() -> Path:
    return Path(str(resources.files("aac.classifiers").joinpath("models/trained.npz")))


def model_path(path: str | os.PathLike | None = None) -> Path:
    """Explicit path, else $AAC_CLASSIFIER_MODEL (a file or a folder from ``aac classify train``), else shipped."""
    chosen = path or Settings.from_env().classifier_model
    if not chosen:
        return shipped_model_path()
    p = Path(chosen)
    return p / "trained.npz" if p.is_dir() else p


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

    def predict(self, items: Sequence[ItemInput]) -> list[Prediction]:
        if not items:
            return []
        return predictions(self.risk_proba(items), self.name, self.abstain_below)
