"""docs/extending.md, followed once: a toy platform and a toy classifier, each added the way its checklist says."""

from __future__ import annotations

from collections.abc import Sequence

from aac.classifiers import base as classifiers
from aac.classifiers.base import ItemInput, Prediction, make_fingerprint, one_hot
from aac.collectors.collect import platform_queries
from aac.core import platforms
from aac.processing.tagging import function_of

TOY = platforms.Platform("toyagent", "Toy Agent", ("filename:TOYAGENT.md",), (r"(?:^|/)TOYAGENT\.md$",),
                         function="memory")


def test_toy_platform_is_crawled_recognised_and_tagged(monkeypatch):
    # checklist step 1: one entry in the registry (BY_NAME is the registry's own index of it)
    monkeypatch.setattr(platforms, "PLATFORMS", (TOY, *platforms.PLATFORMS))
    monkeypatch.setitem(platforms.BY_NAME, TOY.name, TOY)

    assert ("toyagent", "filename:TOYAGENT.md") in platform_queries()  # the crawl asks for it
    assert platform_queries(["toyagent"]) == [("toyagent", "filename:TOYAGENT.md")]
    assert platforms.platform_of("docs/TOYAGENT.md") == "toyagent"  # the processing platform step
    assert platforms.platform_of("docs/TOYAGENT.txt") is None
    assert function_of("TOYAGENT.md", "toyagent", "Always run the tests before committing.") == "memory"


class KeywordClassifier:
    """Types an item with the first label of TYPES when it starts with a verb of its list, else abstains."""

    name = "keyword"
    VERBS = ("run", "use", "never", "always")

    def __init__(self, confidence: float = 0.8):
        self.confidence = confidence
        self.fingerprint = make_fingerprint(self.name, 1, confidence)

    def predict(self, items: Sequence[ItemInput]) -> list[Prediction]:
        out = []
        for item in items:
            words = item.text.lower().split()
            hit = bool(words) and words[0] in self.VERBS
            label = classifiers.TYPES[0] if hit else classifiers.TYPES[-1]
            conf = self.confidence if hit else 0.3
            out.append(Prediction(label, one_hot(label, conf), conf, abstained=not hit, source=self.name))
        return out


def test_toy_classifier_is_built_by_name_and_types_items(monkeypatch):
    # checklist step 2: one REGISTRY line naming the class lazily
    monkeypatch.setitem(classifiers.REGISTRY, "keyword", f"{__name__}:KeywordClassifier")

    assert "keyword" in classifiers.available()
    clf = classifiers.get_classifier("keyword", confidence=0.7)
    assert classifiers.fingerprint_of(clf) == make_fingerprint("keyword", 1, 0.7)
    assert classifiers.fingerprint_of(clf) != classifiers.fingerprint_of(classifiers.get_classifier("keyword"))
    got = clf.predict([ItemInput("Run the tests before you push."), ItemInput("This repo is a Django app.")])
    assert [p.label for p in got] == [classifiers.TYPES[0], classifiers.TYPES[-1]]
    assert [p.abstained for p in got] == [False, True]
    assert abs(sum(got[0].proba) - 1.0) < 1e-9
