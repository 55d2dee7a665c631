"""File content a refresh need not download again: the previous corpus already holds it under the same blob sha.

A git blob sha names the exact bytes of a file, so a search hit whose (repo, path) was stored before with the same
``blob_sha`` has the stored content, whatever commit the hit is pinned to now. Stored rows are looked up in
``raw_artifacts`` (the crawler's original, once processing has run) and ``artifacts``; a row is reused only if its
text re-encodes to the stored ``content_sha256`` — so processed (normalised, redacted) text, and text whose bytes
were not clean UTF-8 (a BOM, replaced bytes), is never passed off as the file: those files are downloaded as before.

Memory: the index holds one 64-bit number per stored row (artifact id xor blob sha prefix), sorted for binary
search; content is read per leaf, only for the hits whose number is in the index (DuckDB over the part files).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable

import duckdb
import numpy as np
import pyarrow.compute as pc
import pyarrow.parquet as pq

from aac.collectors.crawl import Hit
from aac.core.ids import artifact_id
from aac.core.store import Corpus

TABLES = ("raw_artifacts", "artifacts")
_HEX = re.compile(r"^[0-9a-f]{16,}$")


def _key(aid: str, blob_sha: str) -> int:
    return int(aid[:16], 16) ^ int(blob_sha[:16], 16)


class PreviousContent:
    """Stored content of a previous corpus, by (artifact id, blob sha)."""

    def __init__(self, corpus: Corpus):
        self.files = [str(f) for t in TABLES for f in corpus.part_files(t)]
        keys: list[int] = []
        for f in self.files:
            t = pq.read_table(f, columns=["artifact_id", "blob_sha", "content_sha256"])
            ok = pc.and_(pc.is_valid(t.column("blob_sha")), pc.is_valid(t.column("content_sha256")))
            t = t.filter(ok)
            keys.extend(_key(a, b) for a, b in zip(t.column("artifact_id").to_pylist(), t.column("blob_sha").to_pylist())
                        if _HEX.match(a) and _HEX.match(b))
        self._keys = np.unique(np.array(keys, dtype=np.uint64))
        self._con: duckdb.DuckDBPyConnection | None = None
        self.reused = 0  # files served from the previous corpus
        self.rejected = 0  # candidates whose stored text is not the file's bytes (downloaded instead)

    def __len__(self) -> int:
        return len(self._keys)

    def _known(self, aid: str, blob_sha: str | None) -> bool:
        if not blob_sha or not _HEX.match(blob_sha) or not len(self._keys):
            return False
        k = np.uint64(_key(aid, blob_sha))
        i = int(np.searchsorted(self._keys, k))
        return i < len(self._keys) and self._keys[i] == k

    def lookup(self, hits: Iterable[Hit]) -> dict[str, bytes]:
        """artifact_id -> the file's bytes, for the hits whose blob sha the previous corpus stored with content."""
        want = {artifact_id(h.repo, h.path): h.blob_sha for h in hits}
        cand = sorted(a for a, sha in want.items() if self._known(a, sha))
        if not cand:
            return {}
        if self._con is None:
            self._con = duckdb.connect()
        ids = ", ".join(f"'{a}'" for a in cand)  # hex only (checked in _known): safe to inline
        rows = self._con.execute(
            "SELECT artifact_id, blob_sha, content, content_sha256 FROM read_parquet(?, union_by_name = true) "
            f"WHERE artifact_id IN ({ids}) AND content IS NOT NULL", [self.files]).fetchall()
        out: dict[str, bytes] = {}
        for aid, sha, content, digest in rows:
            if aid in out or sha != want[aid]:
                continue
            raw = content.encode("utf-8")
            if hashlib.sha256(raw).hexdigest() == digest:
                out[aid] = raw
        self.reused += len(out)
        self.rejected += len(cand) - len(out)
        return out

    def close(self) -> None:
        if self._con is not None:
            self._con.close()
            self._con = None
