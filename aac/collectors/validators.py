"""Validators of earlier API answers, so a re-crawl asks "changed since?" instead of paying for the answer again.

Per request (path + parameters, hashed) the ``ETag`` and ``Last-Modified`` GitHub sent are kept with the parsed
answer the collector made of it (repository metadata, or a search page's hits). A re-crawl sends them back as
``If-None-Match`` / ``If-Modified-Since``; a ``304 Not Modified`` (which GitHub does not count against the rate
limit of an authenticated request) is answered from the stored payload. Stored in the corpus table
``http_cache``; no request header, token or response header other than the two validators is kept.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

import pyarrow as pa

from aac.core.schema import HTTP_CACHE
from aac.core.store import Corpus


def request_key(path: str, params: dict | None = None) -> str:
    """A stable key for one GET: the path and its parameters in sorted order (never headers)."""
    query = "&".join(f"{k}={params[k]}" for k in sorted(params or {}))
    return hashlib.sha256(f"GET {path}?{query}".encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Validated:
    etag: str | None
    last_modified: str | None
    payload: Any

    def conditional_headers(self) -> dict[str, str]:
        h = {}
        if self.etag:
            h["If-None-Match"] = self.etag
        if self.last_modified:
            h["If-Modified-Since"] = self.last_modified
        return h


class ValidatorCache:
    """In memory during a crawl, loaded from and saved to a corpus' ``http_cache`` table."""

    def __init__(self, corpus: Corpus | None = None):
        self.corpus = corpus
        self._entries: dict[str, Validated] = {}
        self._dirty: dict[str, dict] = {}
        if corpus is not None and corpus.exists("http_cache"):
            for r in corpus.read("http_cache", columns=["key", "etag", "last_modified", "payload"]).to_pylist():
                self._entries[r["key"]] = Validated(r["etag"], r["last_modified"], json.loads(r["payload"]))

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: str) -> Validated | None:
        return self._entries.get(key)

    def put(self, key: str, resource: str, etag: str | None, last_modified: str | None, payload: Any) -> None:
        """Remember an answer; one without a validator cannot be revalidated and is not kept."""
        if not etag and not last_modified:
            return
        self._entries[key] = Validated(etag, last_modified, payload)
        self._dirty[key] = dict(key=key, resource=resource, etag=etag, last_modified=last_modified,
                                payload=json.dumps(payload, separators=(",", ":"), ensure_ascii=False),
                                fetched_at=datetime.now(timezone.utc))

    def save(self) -> int:
        """Upsert the answers learned since the last save; returns how many."""
        if self.corpus is None or not self._dirty:
            return 0
        n = len(self._dirty)
        self.corpus.upsert("http_cache", pa.Table.from_pylist(list(self._dirty.values()), schema=HTTP_CACHE))
        self._dirty.clear()
        return n
