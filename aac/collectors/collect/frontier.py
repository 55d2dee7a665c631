"""The crawl frontier (``crawl_queries``) read back: which leaves of each query are done, what they teach the loss
model, the ranges a re-crawl is seeded with, and which platforms a crawl swept whole (the only ones whose missing
files a refresh may call removed).
"""

from __future__ import annotations

from collections.abc import Iterable

from aac.collectors.partition import MAX_INDEXED, LossModel, SizeRange
from aac.core import platforms as platform_registry
from aac.core.store import Corpus


def frontier_rows(corpus: Corpus) -> dict[str, dict[str, dict]]:
    """A corpus' ``crawl_queries`` rows by query, then by query_id."""
    out: dict[str, dict[str, dict]] = {}
    for row in corpus.read("crawl_queries").to_pylist():
        out.setdefault(row["query"], {})[row["query_id"]] = row
    return out


def covered_platforms(corpus: Corpus) -> set[str] | None:
    """Platforms every registry query of which the corpus' crawl swept to the end (its finished leaves tile the
    size axis) and listed whole (no leaf left incomplete by search or saturated past its result cap): only there
    does a file the crawl did not meet say the file is gone. None when the corpus holds no crawl frontier (a
    collection of local checkouts reads every platform's files whole)."""
    if not corpus.exists("crawl_queries"):
        return None
    rows = frontier_rows(corpus)
    queries: dict[str, list[str]] = {}
    for platform, query in platform_queries():
        queries.setdefault(platform, []).append(query)
    def whole(q: str) -> bool:
        done = [r for r in rows.get(q, {}).values() if r["state"] == "done"]
        return covers_axis(done_leaves(rows.get(q, {}))) and not any(r.get("incomplete") or r.get("saturated") for r in done)

    return {p for p, qs in queries.items() if all(whole(q) for q in qs)}


def learn_model(rows: dict[str, dict[str, dict]], model: LossModel) -> None:
    """Feed stored checks and leaf counts into the loss model (order-independent aggregates)."""
    for by_id in rows.values():
        for r in by_id.values():
            if r.get("lost") is not None:
                model.record_check(int(r["fetched"] or 0), int(r["lost"]))
            if r["state"] == "done":
                model.record_ratio(r["reported_total"], int(r["fetched"] or 0))


def done_leaves(rows: dict[str, dict]) -> list[tuple[SizeRange, int]]:
    return [(SizeRange(r["size_lo"], r["size_hi"]), int(r["fetched"] or 0)) for r in rows.values()
            if r["state"] == "done"]


def seed_ranges(rows: dict[str, dict]) -> list[SizeRange]:
    """The previous crawl's final ranges of one query, finest known: a leaf whose check found files missing
    is replaced by the checked halves that found them (recursively), so a re-crawl asks ranges known to be
    complete instead of splitting the lossy leaf again. Empty unless the leaves tile the whole axis."""
    leaves = done_leaves(rows)
    if not covers_axis(leaves):
        return []
    checked = {(r["size_lo"], r["size_hi"]): r for r in rows.values() if r["state"] == "checked"}
    lost = {(r["size_lo"], r["size_hi"]): r["lost"] for r in rows.values() if r["state"] in ("done", "checked")}

    def finest(rng: SizeRange) -> list[SizeRange]:
        if not lost.get((rng.lo, rng.hi)):
            return [rng]
        for (lo, hi) in checked:
            if lo == rng.lo and hi < rng.hi and (hi, rng.hi) in checked:
                return finest(SizeRange(lo, hi)) + finest(SizeRange(hi, rng.hi))
        return [rng]

    return [r for rng, _ in sorted(leaves) for r in finest(rng)]


def platform_queries(names: Iterable[str] | None = None) -> list[tuple[str, str]]:
    """(platform, query) pairs for the chosen platforms (all by default), in registry order."""
    chosen = [platform_registry.get(n) for n in names] if names else list(platform_registry.PLATFORMS)
    return [(p.name, q) for p in chosen for q in p.queries]


def covers_axis(done: list[tuple[SizeRange, int]], hi: int = MAX_INDEXED) -> bool:
    """Whether finished leaves tile the size axis ``[0, hi)``: the query was swept to the end."""
    pos = 0
    for rng, _ in sorted(done):
        if rng.lo == pos:
            pos = rng.hi
    return pos >= hi
