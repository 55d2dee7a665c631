"""The compact linear model behind the ``trained`` classifier: weights over hashed features + a C threshold.

Stored as one small ``.npz`` (float16 weights), loaded with numpy only. Decision rule (documented in the
model card): the constraint risk is P(C) times the item's authority weight; an item is C when that risk
reaches ``c_threshold`` (chosen by grouped cross-validation for constraint recall); otherwise the most
probable of the other four types. The reported ``proba`` rescales P(C) so that the threshold sits at 0.5.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from aac.classifiers.base import AUTHORITY_WEIGHTS, TYPES, ItemInput, Prediction
from aac.classifiers.features import N_FEATURES, featurize, linear_scores

C_INDEX = TYPES.index("C")


@dataclass
class LinearModel:
    weights: np.ndarray  # (n_features, 5) in TYPES order
    bias: np.ndarray  # (5,)
    c_threshold: float = 0.5
    n_features: int = N_FEATURES
    meta: str = "{}"
    clusters: object = None  # optional aac.classifiers.clusters.ClusterModel

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        extra = self.clusters.arrays() if self.clusters is not None else {}
        np.savez_compressed(path, weights=self.weights.astype(np.float16), bias=self.bias.astype(np.float32),
                            c_threshold=np.float32(self.c_threshold), n_features=np.int64(self.n_features),
                            meta=np.array(self.meta), **extra)
        return path

    @classmethod
    def load(cls, path: str | Path) -> "LinearModel":
        with np.load(path, allow_pickle=False) as z:
            clusters = None
            if "cl_mean" in z.files:
                from aac.classifiers.clusters import ClusterModel

                clusters = ClusterModel.from_arrays(z)
            return cls(z["weights"].astype(np.float32), z["bias"], float(z["c_threshold"]), int(z["n_features"]),
                       str(z["meta"]), clusters)

    def probabilities(self, items: Sequence[ItemInput]) -> np.ndarray:
        extra = self.clusters.tokens(items) if self.clusters is not None else None
        idx, ptr = featurize(items, self.n_features, extra)
        scores = linear_scores(self.weights, self.bias, idx, ptr)
        scores -= scores.max(axis=1, keepdims=True)
        e = np.exp(scores)
        return e / e.sum(axis=1, keepdims=True)


def risk_adjust(p: np.ndarray, authority: Sequence[str], threshold: float) -> np.ndarray:
    """Authority-weighted constraint risk, rescaled so ``threshold`` maps to 0.5; other types share the rest."""
    w = np.asarray([AUTHORITY_WEIGHTS.get(a, 1.0) for a in authority], dtype=np.float32)
    risk = np.clip(p[:, C_INDEX] * w, 0.0, 1.0)
    t = min(max(threshold, 1e-6), 1 - 1e-6)
    pc = np.where(risk < t, 0.5 * risk / t, 0.5 + 0.5 * (risk - t) / (1 - t))
    others = p.copy()
    others[:, C_INDEX] = 0.0
    others /= np.maximum(others.sum(axis=1, keepdims=True), 1e-9)
    out = others * (1.0 - pc)[:, None]
    out[:, C_INDEX] = pc
    return out


def decide(q: np.ndarray) -> list[int]:
    """C when the rescaled risk reaches 0.5, else the most probable other type."""
    others = q.copy()
    others[:, C_INDEX] = -1.0
    alt = others.argmax(axis=1)
    return [C_INDEX if q[i, C_INDEX] >= 0.5 else int(alt[i]) for i in range(len(q))]


def predictions(q: np.ndarray, source: str, abstain_below: float = 0.0) -> list[Prediction]:
    labels = decide(q)
    out = []
    for row, k in zip(q, labels):
        conf = float(row[k])
        out.append(Prediction(TYPES[k], tuple(float(x) for x in row), conf, conf < abstain_below, source))
    return out
