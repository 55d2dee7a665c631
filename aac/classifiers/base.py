"""The one interface every five-type classifier implements.

Given items (text, section path, kind, source authority) a classifier returns, per item, a probability per
type in the fixed order C, P, B, F, E, a label, a confidence, and whether it abstained. Pipeline stages
and operators only ever talk to this interface; which classifier runs is a name in a registry.
"""

from __future__ import annotations

import hashlib
import importlib
import json
from dataclasses import dataclass
from typing import Protocol, Sequence

# Same tuple as aac.core.schema.TYPES (a test pins the equality); defined here so that loading the default classifier
# does not import pyarrow (~0.35 s), which matters to `aac compact`, started once per file.
TYPES: tuple[str, ...] = ("C", "P", "B", "F", "E")

AUTHORITY_WEIGHTS: dict[str, float] = {"sys": 1.5, "dev": 1.25, "user": 1.0, "tool": 0.75, "retrieved": 0.6}


@dataclass(frozen=True)
class ItemInput:
    text: str
    section: tuple[str, ...] = ()
    kind: str = "paragraph"
    authority: str = "user"
    lead_in: str = ""  # the paragraph that introduces the item's list ("Never:"), see aac.classifiers.context


@dataclass(frozen=True)
class Prediction:
    label: str  # one of TYPES
    proba: tuple[float, float, float, float, float]  # order: TYPES
    confidence: float
    abstained: bool = False
    source: str = ""  # which classifier (or cascade stage) decided
    # the hard-lane decision (verbatim in TypeCompact, replicated by decompose, pinned by retrieve); None: the
    # classifier has no hard-lane operating point, and an item is in the hard lane when it is typed C (in_hard_lane)
    hard_lane: bool | None = None

    def as_dict(self) -> dict[str, float]:
        return dict(zip(TYPES, self.proba))


class Classifier(Protocol):
    name: str
    # Everything its predictions depend on (code version, options, model bytes), as one string: equal fingerprints
    # mean equal predictions, so stored items typed under this fingerprint may be reused (``aac process``).
    fingerprint: str

    def predict(self, items: Sequence[ItemInput]) -> list[Prediction]: ...


def make_fingerprint(name: str, version: int, *parts) -> str:
    """``name/v<version>/<hash of parts>``: parts are JSON-able options or digests of model bytes."""
    digest = hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:16]
    return f"{name}/v{version}/{digest}"


def fingerprint_of(classifier) -> str | None:
    """The classifier's fingerprint, or None for one that has none (its items are then never reused)."""
    value = getattr(classifier, "fingerprint", None)
    return value if isinstance(value, str) and value else None


def one_hot(label: str, confidence: float = 1.0) -> tuple[float, ...]:
    """A distribution that puts ``confidence`` on ``label`` and spreads the rest evenly."""
    rest = (1.0 - confidence) / (len(TYPES) - 1)
    return tuple(confidence if t == label else rest for t in TYPES)


# name -> "module:attribute" of a zero-argument factory; loaded lazily so heavy backends cost nothing until used.
REGISTRY: dict[str, str] = {
    "regex": "aac.classifiers.regex:RegexClassifier",
    "encoder": "aac.classifiers.encoder:EncoderClassifier",
    "trained": "aac.classifiers.trained:TrainedClassifier",
    "cascade": "aac.classifiers.cascade:CascadeClassifier",
    "teacher-cascade": "aac.classifiers.teacher_cascade:TeacherCascadeClassifier",  # needs weights: AAC_TEACHER
    "llm": "aac.classifiers.llm:LLMClassifier",
    "safetymargin": "aac.classifiers.llm:SafetyMarginClassifier",
}
NO_LLM: tuple[str, ...] = ("regex", "encoder", "trained", "cascade")
DEFAULT = "trained"


def in_hard_lane(prediction: Prediction) -> bool:
    """The one hard-lane decision every consumer reads: the classifier's own, else "typed C"."""
    return prediction.hard_lane if prediction.hard_lane is not None else prediction.label == "C"


def failed(prediction: Prediction) -> bool:
    """An item its classifier could not type (an LLM stage that failed): written abstained, source ``...:error``;
    counted as a failure, never as an answer."""
    return "error" in (prediction.source or "").split(":")


def available() -> list[str]:
    return sorted(REGISTRY)


def get_classifier(name: str = "default", **options) -> Classifier:
    """Build a classifier by registry name (``default`` = the best no-LLM variant)."""
    key = DEFAULT if name == "default" else name
    if key not in REGISTRY:
        raise KeyError(f"unknown classifier {name!r}; available: {', '.join(available())}")
    module, attr = REGISTRY[key].split(":")
    return getattr(importlib.import_module(module), attr)(**options)
