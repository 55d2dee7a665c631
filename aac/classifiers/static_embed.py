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
        lens = np.fromiter((len(i) for i in ids), dtype=np.int64, count=len(ids))
        out = np.zeros((len(ids), self.dims), dtype=np.float32)
        if lens.sum() == 0:
            return out
        flat = np.fromiter((t for i in ids for t in i), dtype=np.int64, count=int(lens.sum()))
        starts = np.concatenate([[0], np.cumsum(lens)[:-1]])
        nz = lens > 0
        out[nz] = np.add.reduceat(self.vectors[flat], starts[nz], axis=0)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.maximum(norms, 1e-9)
