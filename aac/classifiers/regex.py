"""The regex stage: four hand-written pattern families tried in order; a match resolves the item.

Precision-tuned by design (the paper's Table 9 row "regex"): constraint markers first, then procedural,
episodic and preference markers. Items no family matches fall back to Belief with low confidence and are
marked as not resolved (``abstained``) so that a cascade can hand them to a stronger stage.
"""

from __future__ import annotations

from typing import Sequence

import regex as re

from aac.classifiers.base import ItemInput, Prediction, make_fingerprint, one_hot

VERSION = 1  # bump when a pattern or the order of the families changes (part of the fingerprint)

CONSTRAINT = re.compile(
    r"\b(never|must\s+not|mustn't|do\s+not|don't|shall\s+not|cannot|can't|forbidden|prohibited|not\s+allowed)\b"
    r"|\b(IMPORTANT|CRITICAL|WARNING|NEVER|MUST)\b"
    r"|\b(always|ensure|require[sd]?)\b.{0,40}\b(must|shall|required)\b",
    re.IGNORECASE | re.V1,
)
CONSTRAINT_CASE = re.compile(r"\b(IMPORTANT|CRITICAL|WARNING|NEVER|MUST|DO NOT)\b")
PROCEDURAL = re.compile(
    r"^\s*(?:\d+[.)]\s*)?(run|install|build|execute|deploy|start|launch|create|add|open|cd|use\s+`)\b"
    r"|\b(npm|pnpm|yarn|pip|uv|poetry|cargo|go|make|docker|git|pytest|npx|bun|dotnet|mvn|gradle)\s+[a-z-]+",
    re.IGNORECASE | re.V1,
)
EPISODIC = re.compile(
    r"\b(yesterday|last\s+(week|month|year|sprint)|recently|currently|as\s+of|\b20\d\d-\d\d(-\d\d)?\b|"
    r"(we|i)\s+(migrated|moved|switched|added|removed|fixed)|status:|done:|completed|in\s+progress)\b",
    re.IGNORECASE | re.V1,
)
PREFERENCE = re.compile(r"\b(prefer|preferably|ideally|favou?r|avoid|try\s+to|where\s+possible|when\s+possible|keep\s+\w+\s+(small|short|simple))\b",
                        re.IGNORECASE | re.V1)

FAMILIES = (("C", CONSTRAINT), ("P", PROCEDURAL), ("E", EPISODIC), ("F", PREFERENCE))


def regex_label(item: ItemInput) -> str | None:
    """The first family that matches, or None when no pattern fires."""
    if item.kind == "code":
        return "P"
    text = item.text
    if CONSTRAINT_CASE.search(text):
        return "C"
    for label, pattern in FAMILIES:
        if pattern.search(text):
            return label
    return None


class RegexClassifier:
    name = "regex"

    def __init__(self, match_confidence: float = 0.9, fallback_confidence: float = 0.35):
        self.match_confidence = match_confidence
        self.fallback_confidence = fallback_confidence
        self.fingerprint = make_fingerprint(self.name, VERSION, match_confidence, fallback_confidence)

    def predict(self, items: Sequence[ItemInput]) -> list[Prediction]:
        out = []
        for item in items:
            label = regex_label(item)
            if label is None:
                out.append(Prediction("B", one_hot("B", self.fallback_confidence), self.fallback_confidence, True, self.name))
            else:
                out.append(Prediction(label, one_hot(label, self.match_confidence), self.match_confidence, False, self.name))
        return out
