"""An in-memory code-search index with GitHub's result pathologies, for engine tests without HTTP.

Not a stand-in for the emulator (the HTTP tests use that); it lets property tests drive the partitioner and
engine through thousands of searches in milliseconds, with every count the oracle chooses.
"""

from __future__ import annotations

import bisect
import hashlib
import re

from aac.collectors.crawl import Hit, Page

_Q = re.compile(r"^(.*) size:(\d+)(?:\.\.(\d+))?$")


def unit(*parts) -> float:
    return int(hashlib.sha1("|".join(map(str, parts)).encode()).hexdigest()[:8], 16) / 2**32


class MemSearch:
    """files: (query, repo, path, size). Wide queries (> lossy_threshold matches) drop files deterministically."""

    def __init__(self, files, lossy_threshold: int = 500, lossy_rate: float = 0.02, undercount=(0.6, 1.0),
                 incomplete_every: int = 0, cap: int = 1000):
        self.by_query: dict[str, list[tuple[int, str, str]]] = {}
        for q, repo, path, size in files:
            if size < 384 * 1024:
                self.by_query.setdefault(q, []).append((size, repo, path))
        for v in self.by_query.values():
            v.sort()
        self.threshold, self.rate, self.undercount = lossy_threshold, lossy_rate, undercount
        self.incomplete_every, self.cap = incomplete_every, cap
        self.calls = 0

    def __call__(self, q: str, page: int) -> Page:
        self.calls += 1
        m = _Q.match(q)
        base, lo, hi = (m.group(1), int(m.group(2)), int(m.group(3) or m.group(2))) if m else (q, 0, 10**9)
        arr = self.by_query.get(base, [])
        match = arr[bisect.bisect_left(arr, (lo,)): bisect.bisect_left(arr, (hi + 1,))]
        if len(match) > self.threshold:
            match = [f for f in match if unit(f[1], f[2], q) >= self.rate]
        ranked = sorted(match, key=lambda f: unit(f[1], f[2], "order", q))[: self.cap]
        items = ranked[(page - 1) * 100: page * 100]
        incomplete = bool(self.incomplete_every) and self.calls % self.incomplete_every == 0
        if incomplete:
            items = items[:-3]
        lo_u, hi_u = self.undercount
        total = int(len(match) * (lo_u + (hi_u - lo_u) * unit(q, "total")))
        return Page([Hit(f[1], f[2]) for f in items], total, incomplete)
