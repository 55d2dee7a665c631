"""Five-type item classifiers (Constraint, Procedural, Belief, Preference, Episodic) behind one interface."""

from aac.classifiers.base import (
    AUTHORITY_WEIGHTS,
    DEFAULT,
    Classifier,
    ItemInput,
    Prediction,
    available,
    get_classifier,
)

__all__ = ["AUTHORITY_WEIGHTS", "DEFAULT", "Classifier", "ItemInput", "Prediction", "available", "get_classifier"]
