"""The default model's hard-lane operating point, read with numpy alone (no featurizer import), for the operators.

TypeCompact's verbatim lane, decompose's replication and retrieve's pinning all ask one question of an item: is its
constraint risk high enough for the hard lane? The ``trained`` model answers it with a threshold chosen by CV grouped
by repository so that the hard lane catches >= 95 % of gold constraints (model card), and writes the answer as the
``hard_lane`` column. Operators that see only an item's stored probabilities compare its risk with
:func:`hard_lane_risk`, the same threshold on the reported (rescaled) P(C), so both agree.
"""

from __future__ import annotations

import os
from functools import lru_cache
from importlib import resources
from pathlib import Path

MODEL_ENV = "AAC_CLASSIFIER_MODEL"
C_DECISION = 0.5  # the reported P(C) at the model's C threshold (``linear.risk_adjust``)


def shipped_model_path() -> Path:
    return Path(str(resources.files("aac.classifiers").joinpath("models/trained.npz")))


def model_path(path: str | os.PathLike | None = None) -> Path:
    """Explicit path, else $AAC_CLASSIFIER_MODEL (a file or a folder from ``aac classify train``), else shipped."""
    from aac.core.config import Settings  # the one reader of the environment

    chosen = path or Settings.from_env().classifier_model
    if not chosen:
        return shipped_model_path()
    p = Path(chosen)
    return p / "trained.npz" if p.is_dir() else p


def rescaled(hard_threshold: float | None, c_threshold: float) -> float:
    """A raw-risk threshold below the C threshold, on the rescaled P(C) scale (linear below ``c_threshold``)."""
    if hard_threshold is None or hard_threshold >= c_threshold:
        return C_DECISION
    t = min(max(c_threshold, 1e-6), 1 - 1e-6)
    return round(C_DECISION * hard_threshold / t, 6)


@lru_cache(maxsize=8)
def _from_file(path: str) -> float:
    import numpy as np

    with np.load(path, allow_pickle=False) as z:
        hard = float(z["hard_threshold"]) if "hard_threshold" in z.files else None
        return rescaled(hard, float(z["c_threshold"]))


def hard_lane_risk(path: str | os.PathLike | None = None) -> float:
    """The hard-lane threshold on an item's reported constraint risk; 0.5 (the C decision) when the model has no
    separate hard lane or cannot be read."""
    try:
        return _from_file(str(model_path(path)))
    except (OSError, ValueError, KeyError):
        return C_DECISION
