"""The compact linear model behind the ``trained`` classifier: weights over hashed features + a C threshold.

Stored as one small ``.npz`` (float16 weights), loaded with numpy only. Two stages when ``c_weights`` is set:
a binary logistic model gives P(C) from the type features plus the rubric's risk features
(:mod:`aac.classifiers.risk`), and a four-way softmax shares 1 - P(C) among P, B, F, E (a single softmax
over all five types, the older format, still loads). Decision rule (documented in the model card): the
constraint risk is P(C) times the item's authority weight; an item is C when that risk reaches
``c_threshold`` (chosen by grouped cross-validation); otherwise the most probable of the other four types.
The reported ``proba`` rescales P(C) so that the threshold sits at 0.5.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import hashlib

import numpy as np

from aac.classifiers.base import AUTHORITY_WEIGHTS, TYPES, ItemInput, Prediction
from aac.classifiers.features import N_FEATURES, featurize, featurize_two_stage, linear_scores
from aac.classifiers.parallel import score_rows

C_INDEX = TYPES.index("C")
# Bump when featurisation (features.py, risk.py, clusters.py) or the decision rule below changes its output for the
# same model: it is part of the classifiers' fingerprints, so stored item types are recomputed (``aac process``).
CODE_VERSION = 2  # 2: multilingual lexicons, governing headings, the hard-lane decision


@dataclass
class LinearModel:
    weights: np.ndarray  # (n_features, 5) in TYPES order
    bias: np.ndarray  # (5,)
    c_threshold: float = 0.5
    n_features: int = N_FEATURES
    meta: str = "{}"
    clusters: object = None  # optional aac.classifiers.clusters.ClusterModel
    c_weights: np.ndarray | None = None  # (n_features,) weights of the constraint stage (two-stage models)
    c_bias: float = 0.0
    c_dense: np.ndarray | None = None  # (dims,) constraint-stage weights of the item's mean word vector (word_vectors.py)
    # hard-lane operating point on the same constraint risk (P(C) x authority), chosen by grouped CV so the hard
    # lane catches >= 95 % of gold constraints; None (older models): the hard lane is the C decision
    hard_threshold: float | None = None

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        extra = self.clusters.arrays() if self.clusters is not None else {}
        if self.c_weights is not None:
            extra.update(c_weights=self.c_weights.astype(np.float16), c_bias=np.float32(self.c_bias))
        if self.c_dense is not None:
            extra.update(c_dense=self.c_dense.astype(np.float32))
        if self.hard_threshold is not None:
            extra.update(hard_threshold=np.float32(self.hard_threshold))
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
            two = "c_weights" in z.files
            return cls(z["weights"].astype(np.float32), z["bias"], float(z["c_threshold"]), int(z["n_features"]),
                       str(z["meta"]), clusters, z["c_weights"].astype(np.float32) if two else None,
                       float(z["c_bias"]) if two else 0.0,
                       z["c_dense"].astype(np.float32) if "c_dense" in z.files else None,
                       float(z["hard_threshold"]) if "hard_threshold" in z.files else None)

    def digest(self) -> str:
        """sha256 of every array and number that predictions read (not of the .npz bytes: zip headers vary)."""
        h = hashlib.sha256()
        arrays = {"weights": self.weights, "bias": self.bias, "c_threshold": self.c_threshold,
                  "n_features": self.n_features, "meta": self.meta, "c_bias": self.c_bias}
        if self.c_weights is not None:
            arrays["c_weights"] = self.c_weights
        if self.c_dense is not None:
            arrays["c_dense"] = self.c_dense
        if self.hard_threshold is not None:
            arrays["hard_threshold"] = np.float32(self.hard_threshold)
        if self.clusters is not None:
            arrays.update(self.clusters.arrays())
        for name in sorted(arrays):
            a = np.ascontiguousarray(np.asarray(arrays[name]))
            h.update(f"{name}:{a.dtype.str}:{a.shape}:".encode())
            h.update(a.tobytes())
        return h.hexdigest()

    @property
    def hard_lane_threshold(self) -> float:
        """The hard lane's threshold on the raw constraint risk (the C threshold when the model has none)."""
        return self.c_threshold if self.hard_threshold is None else min(self.hard_threshold, self.c_threshold)

    def hard_lane_risk(self) -> float:
        """That threshold on the rescaled P(C) that predictions report (``risk_adjust`` maps ``c_threshold`` to
        0.5; below it the map is linear), which is what operators compare an item's stored risk with."""
        from aac.classifiers.operating_point import rescaled

        return rescaled(self.hard_threshold, self.c_threshold)

    def probabilities(self, items: Sequence[ItemInput]) -> np.ndarray:
        """P(type) per item, a big batch on every core (``aac.classifiers.parallel``; same numbers as one process)."""
        return score_rows(self._probabilities, items)

    def _probabilities(self, items: Sequence[ItemInput]) -> np.ndarray:
        if self.c_weights is not None:
            words: list[list[str]] | None = [] if self.c_dense is not None else None
            idx, ptr, cidx, cptr = featurize_two_stage(items, self.n_features, words)
            c_score = linear_scores(self.c_weights[:, None], np.asarray([self.c_bias]), cidx, cptr)[:, 0]
            if words is not None:
                from aac.classifiers.word_vectors import shared_word_vectors

                # an elementwise row sum, not a BLAS product: an item's score must not depend on its batch's size
                dense = shared_word_vectors().mean_vectors(words).astype(np.float64)
                c_score = c_score + (dense * self.c_dense.astype(np.float64)).sum(axis=1)
            return combine_stages(1.0 / (1.0 + np.exp(-c_score)), linear_scores(self.weights, self.bias, idx, ptr))
        extra = self.clusters.tokens(items) if self.clusters is not None else None
        idx, ptr = featurize(items, self.n_features, extra)
        scores = linear_scores(self.weights, self.bias, idx, ptr)
        scores -= scores.max(axis=1, keepdims=True)
        e = np.exp(scores)
        return e / e.sum(axis=1, keepdims=True)


def combine_stages(p_c: np.ndarray, type_scores: np.ndarray) -> np.ndarray:
    """P(C) from the constraint stage; the other four types share 1 - P(C) by their softmax (C column ignored)."""
    s = type_scores.astype(np.float64).copy()
    s[:, C_INDEX] = -np.inf
    s -= s.max(axis=1, keepdims=True)
    e = np.exp(s)
    out = e / e.sum(axis=1, keepdims=True) * (1.0 - p_c)[:, None]
    out[:, C_INDEX] = p_c
    return out


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
    return np.where(q[:, C_INDEX] >= 0.5, C_INDEX, others.argmax(axis=1)).tolist()


def predictions(q: np.ndarray, source: str, abstain_below: float = 0.0,
                hard: Sequence[bool] | None = None) -> list[Prediction]:
    """Predictions from rescaled probabilities; ``hard``: each item's hard-lane decision (None: not decided here)."""
    labels = decide(q)
    out = []
    hard = [None] * len(labels) if hard is None else [bool(h) or k == C_INDEX for h, k in zip(hard, labels)]
    for row, k, h in zip(q.tolist(), labels, hard):  # tolist: the same Python floats as float(x), without a loop per cell
        conf = row[k]
        out.append(Prediction(TYPES[k], tuple(row), conf, conf < abstain_below, source, h))
    return out


def hard_lane(p: np.ndarray, authority: Sequence[str], threshold: float) -> np.ndarray:
    """The hard-lane decision per item: raw constraint risk (P(C) x authority weight) >= ``threshold``."""
    w = np.asarray([AUTHORITY_WEIGHTS.get(a, 1.0) for a in authority], dtype=np.float64)
    return p[:, C_INDEX] * w >= threshold
