"""The ``encoder`` classifier: cosine to per-type prototype centroids of our own labelled examples.

The prototypes are the examples in ``data/examples.jsonl`` (written for this package, ≥10 per type), embedded
with the section headings appended; a softmax over cosines (temperature ``tau``) gives the probabilities.
"""

from __future__ import annotations

import hashlib
from typing import Sequence

import numpy as np

from aac.classifiers.base import ItemInput, Prediction, make_fingerprint
from aac.classifiers.datasets import own_examples
from aac.core.labels import TYPES


VERSION = 1  # bump when _text or the softmax over cosines changes (part of the fingerprint)


def _text(item: ItemInput) -> str:
    return item.text if not item.section else f"{item.text} ({' / '.join(item.section[-2:])})"


class EncoderClassifier:
    name = "encoder"

    def __init__(self, backend: str = "static", tau: float = 0.05, abstain_below: float = 0.40):
        from aac.classifiers.embeddings import get_backend

        self.backend = get_backend(backend)
        self.tau = tau
        self.abstain_below = abstain_below
        examples = own_examples()
        E = self.backend.encode([_text(e.item) for e in examples])
        labels = np.asarray([TYPES.index(e.label) for e in examples])
        missing = [t for k, t in enumerate(TYPES) if not (labels == k).any()]
        if missing:
            raise ValueError(f"no prototype examples for types {missing}")
        cent = np.stack([E[labels == k].mean(axis=0) for k in range(len(TYPES))])
        self.centroids = cent / np.linalg.norm(cent, axis=1, keepdims=True)
        # the centroids digest both the prototype examples and the embedding weights that encoded them
        digest = hashlib.sha256(np.ascontiguousarray(self.centroids, dtype=np.float32).tobytes()).hexdigest()
        self.fingerprint = make_fingerprint(self.name, VERSION, backend, tau, abstain_below, digest)

    def proba(self, items: Sequence[ItemInput]) -> np.ndarray:
        sims = self.backend.encode([_text(i) for i in items]) @ self.centroids.T
        s = sims / self.tau
        s -= s.max(axis=1, keepdims=True)
        e = np.exp(s)
        return e / e.sum(axis=1, keepdims=True)

    def predict(self, items: Sequence[ItemInput]) -> list[Prediction]:
        if not items:
            return []
        out = []
        for row in self.proba(items):
            k = int(row.argmax())
            conf = float(row[k])
            out.append(Prediction(TYPES[k], tuple(float(x) for x in row), conf, conf < self.abstain_below, self.name))
        return out
