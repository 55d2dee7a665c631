"""The shipped static sentence embedding (distilled from all-MiniLM-L6-v2 by :mod:`aac.classifiers.distill`).

A sentence vector is the mean of its WordPiece token vectors, unit-normalised: numpy plus the Rust
``tokenizers`` library, no torch, ~0.1 s to load. It gives the ``trained`` classifier word meaning that
generalises across wordings ("wipe" near "erase" near "purge").
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Sequence

import numpy as np


def shipped_static_dir() -> Path:
    return Path(str(resources.files("aac.classifiers").joinpath("models/static")))


class StaticEmbedding:
    def __init__(self, folder: str | Path | None = None, max_tokens: int = 64):
        from tokenizers import Tokenizer

        folder = Path(folder) if folder else shipped_static_dir()
        if not (folder / "embeddings.npy").exists():
            raise FileNotFoundError(f"static embedding not found in {folder} (run `python -m aac.classifiers.distill`)")
        self.vectors = np.load(folder / "embeddings.npy").astype(np.float32)
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.no_padding()
        self.tokenizer.no_truncation()
        self.max_tokens = max_tokens
        self.dims = self.vectors.shape[1]

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-length mean token vector per text (first ``max_tokens`` tokens; empty text -> zeros)."""
        encs = self.tokenizer.encode_batch([t or "" for t in texts], add_special_tokens=False)
        ids = [e.ids[: self.max_tokens] for e in encs]
        return unit_means(self.vectors, [t for i in ids for t in i], [len(i) for i in ids])


SUM_CHUNK = 256  # groups summed per step: their gathered rows stay in cache (4x faster than one big gather)


def segment_sums(table: np.ndarray, flat: Sequence[int], lens: Sequence[int]) -> np.ndarray:
    """Per group of consecutive ids in ``flat`` (``lens`` per group), the sum of those rows of ``table`` (an empty
    group -> zeros). Each group is summed on its own, so a group's row does not depend on the others in the batch.
    Also the sparse-binary-times-weights product of :func:`aac.classifiers.features.linear_scores`."""
    lens = np.asarray(lens, dtype=np.int64)
    out = np.zeros((len(lens), table.shape[1]), dtype=np.float32)
    if not len(flat):
        return out
    flat = np.asarray(flat, dtype=np.int64)
    ends = np.cumsum(lens)
    starts = ends - lens
    for a in range(0, len(lens), SUM_CHUNK):
        b = min(a + SUM_CHUNK, len(lens))
        nz = lens[a:b] > 0
        if nz.any():
            lo = starts[a]
            rows = table[flat[lo:ends[b - 1]]].astype(np.float32, copy=False)  # float16 weights sum in float32
            out[a:b][nz] = np.add.reduceat(rows, (starts[a:b] - lo)[nz], axis=0)
    return out


def unit_means(table: np.ndarray, flat: Sequence[int], lens: Sequence[int]) -> np.ndarray:
    """The direction of each group's mean row (:func:`segment_sums` scaled to unit length; empty group -> zeros)."""
    out = segment_sums(table, flat, lens)
    return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-9)
