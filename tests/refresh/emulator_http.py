"""Helpers of the refresh tests over real HTTP to the emulator: counted crawls and a temporarily served snapshot."""

from __future__ import annotations

import json
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import requests

from aac.collectors.collect import run_github_crawl
from aac.core.config import Secret
from aac.core.store import Corpus


def counted_crawl(srv, corpus: Corpus, token: str, platform: str, previous: Corpus | None = None, **kw):
    """(crawl summary, what the emulator counted during the crawl: requests, 304s, errors, ...)."""
    before = srv.stats
    summary = run_github_crawl(corpus, srv.url, [Secret(token)], [platform], clock=srv.clock, previous=previous, **kw)
    return summary, {k: v - before.get(k, 0) for k, v in srv.stats.items() if k != "routes"}


@contextmanager
def serving(srv, snapshot: list[dict], folder: Path, restore: list[dict]) -> Iterator[None]:
    """The emulator serves ``snapshot`` (over its HTTP control route) inside the block, ``restore`` after it."""
    path = folder / "served.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in snapshot), encoding="utf-8")
    try:
        requests.post(f"{srv.url}/_emulator/snapshot", json={"path": str(path)}, timeout=30).raise_for_status()
        yield
    finally:
        srv.load_snapshot(restore)
