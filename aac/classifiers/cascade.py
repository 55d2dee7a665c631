"""The ``cascade`` classifier: regex -> trained model -> LLM (when configured) -> abstain-as-hard.

1. regex resolves only its highest-precision matches (code blocks -> P; shouted or symbol prohibitions such
   as "NEVER ..." / "❌ ..." -> C), since a wrong early exit cannot be undone by later stages;
2. the trained model types the rest (its constraint risk is already authority-weighted);
3. items whose confidence stays below ``llm_below`` go to the LLM stage when one is configured (an item the LLM
   failed on keeps the model's label, is abstained, and its source ``cascade:llm:error`` counts it as failed);
4. items still below ``abstain_below`` (0.40) are marked ``abstained``: they keep the label the model chose
   (so type statistics stay honest) but operators route abstained items to the hard lane, i.e. treat them
   exactly like Constraints (kept verbatim, never dropped).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence

import regex as re

from aac.classifiers.base import ItemInput, Prediction, failed, fingerprint_of, make_fingerprint, one_hot

VERSION = 1  # bump when the early-exit rules or the stage order change (part of the fingerprint)
STRONG_PROHIBITION = re.compile(r"\b(NEVER|DO NOT|MUST NOT|DON'T|FORBIDDEN|PROHIBITED)\b|^[\s*-]*[❌🚫⛔🛑]")


def strong_regex_label(item: ItemInput) -> str | None:
    if item.kind == "code":
        return "P"
    if STRONG_PROHIBITION.search(item.text or ""):
        return "C"
    return None


class CascadeClassifier:
    name = "cascade"

    def __init__(self, abstain_below: float = 0.40, llm_below: float = 0.60, llm=None, model=None):
        from aac.classifiers.trained import TrainedClassifier

        self.trained = TrainedClassifier(model, abstain_below=0.0)
        self.abstain_below = abstain_below
        self.llm_below = llm_below
        self.llm = llm  # any Classifier (e.g. LLMClassifier); None = no LLM stage

    @property
    def fingerprint(self) -> str:
        """Its thresholds and the fingerprints of its stages (an LLM stage without one makes it unknown)."""
        llm = None if self.llm is None else (fingerprint_of(self.llm) or "unknown")
        return make_fingerprint(self.name, VERSION, self.abstain_below, self.llm_below, self.trained.fingerprint, llm)

    def predict(self, items: Sequence[ItemInput]) -> list[Prediction]:
        out: list[Prediction | None] = [None] * len(items)
        rest = []
        for i, item in enumerate(items):
            label = strong_regex_label(item)
            if label is not None:
                out[i] = Prediction(label, one_hot(label, 0.9), 0.9, False, "cascade:regex")
            else:
                rest.append(i)
        if rest:
            for i, p in zip(rest, self.trained.predict([items[i] for i in rest])):
                out[i] = replace(p, source="cascade:trained")
        if self.llm is not None:
            unsure = [i for i in rest if out[i].confidence < self.llm_below]
            if unsure:
                for i, p in zip(unsure, self.llm.predict([items[i] for i in unsure])):
                    if failed(p):  # the check the item needed did not happen: keep the model's label, abstain
                        out[i] = replace(out[i], abstained=True, source="cascade:" + p.source)
                    elif not p.abstained:
                        out[i] = replace(p, source="cascade:" + p.source)
        return [replace(p, abstained=p.abstained or p.confidence < self.abstain_below) for p in out]
