"""Dense text vectors from the bundled static embedding model (64-dim, no download, no torch).

Static embeddings are a lookup-and-average, so they are fast enough for a million-item store.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Sequence

import numpy as np


@lru_cache(maxsize=1)
def _model_dir() -> str:
    import static_model
    from static_model.download import ensure_model_ready
    from pathlib import Path

    return str(ensure_model_ready(Path(static_model.__file__).resolve().parent / "model"))


def embed_texts(texts: Sequence[str], batch: int = 4096) -> np.ndarray:
    """L2-normalised float32 vectors, one row per text."""
    from static_model._static_model import encode_batch

    if not len(texts):
        return np.zeros((0, 64), dtype=np.float32)
    rows = []
    for s in range(0, len(texts), batch):
        rows.append(np.asarray(encode_batch(_model_dir(), [str(t) for t in texts[s:s + batch]], 512), dtype=np.float32))
    v = np.vstack(rows)
    n = np.linalg.norm(v, axis=1, keepdims=True)
    return v / np.where(n == 0, 1.0, n)
