"""Dense word meaning for the constraint stage: an item's mean word vector in the shipped static embedding.

Hashed words know only the words seen in training; a harm the labelled items never named ("purge the bucket")
shares nothing with one they did ("delete the database"). Each word's vector is the mean of its WordPiece
vectors in :mod:`aac.classifiers.static_embed` (distilled from all-MiniLM-L6-v2), looked up once per distinct
word and cached, so an item costs a few dictionary lookups over the words the featuriser already split.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import numpy as np

from aac.classifiers.static_embed import StaticEmbedding, segment_sums, unit_means

MAX_WORDS = 48  # like the static embedding's 64-token window: the opening of an item carries its type
MAX_CACHED = 500_000


class WordVectors:
    def __init__(self, folder: str | Path | None = None, max_words: int = MAX_WORDS):
        self._embedding = StaticEmbedding(folder)
        self.dims = self._embedding.dims
        self.max_words = max_words
        self._row: dict[str, int] = {}
        self._table = np.zeros((1024, self.dims), dtype=np.float32)
        self._size = 1  # row 0 stays zero: numbers (and words without tokens) add nothing to the unit-length mean

    def forget(self) -> None:
        """Drop every cached word row (the embedding stays loaded): the next items start from a cold word table."""
        self._row.clear()
        self._size = 1

    def _add(self, words: list[str]) -> None:
        """Rows for words not seen before (one tokenizer batch); a word without tokens gets a zero row."""
        self._row.update((w, 0) for w in words if w.isdigit())
        words = [w for w in words if not w.isdigit()]
        if not words:
            return
        encs = self._embedding.tokenizer.encode_batch(words, add_special_tokens=False)
        need = self._size + len(words)
        if need > len(self._table):
            grown = np.zeros((max(need, 2 * len(self._table)), self.dims), dtype=np.float32)
            grown[: self._size] = self._table[: self._size]
            self._table = grown
        lens = np.asarray([len(e.ids) for e in encs], dtype=np.int64)
        sums = segment_sums(self._embedding.vectors, [t for e in encs for t in e.ids], lens)
        self._table[self._size: need] = sums / np.maximum(lens, 1)[:, None]
        self._row.update(zip(words, range(self._size, self._size + len(words))))
        self._size += len(words)

    def mean_vectors(self, word_lists: Sequence[Sequence[str]]) -> np.ndarray:
        """(n, dims) unit-length mean of each item's first ``max_words`` word vectors (no words: zeros)."""
        m = self.max_words
        lists = [ws if len(ws) <= m else ws[:m] for ws in word_lists]
        get = self._row.get
        rows = [get(w, -1) for ws in lists for w in ws]
        if -1 in rows:  # words never seen: one tokenizer batch, then look the rows up again
            new = list(dict.fromkeys(w for ws in lists for w in ws if w not in self._row))
            if len(self._row) + len(new) > MAX_CACHED:  # unbounded vocabularies (ids, hashes) must not grow memory:
                self.forget()  # start over with this batch's words only
                new = list(dict.fromkeys(w for ws in lists for w in ws))
            self._add(new)
            rows = [get(w) for ws in lists for w in ws]
        return unit_means(self._table, rows, [len(ws) for ws in lists])


_SHARED: WordVectors | None = None


def shared_word_vectors() -> WordVectors:
    """One cached instance per process (its word table is the cache)."""
    global _SHARED
    if _SHARED is None:
        _SHARED = WordVectors()
    return _SHARED


def forget_words() -> None:
    """Empty the shared instance's word table, if one was made (for cold-cache measurements)."""
    if _SHARED is not None:
        _SHARED.forget()
