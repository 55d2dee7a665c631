"""Crawl benchmark: AAC's adaptive size partitioner vs two peer strategies on the same hostile emulator.

    python bench/crawl.py [--files 50000] [--seed 0 | --seeds 0,1,2,3] [--stratum 1024] [--chunk 1024]
                          [--only aac,strata,chunk]

A generated snapshot (``aac emulator generate`` shape) is served by the GitHub emulator under profile
``github`` (undercounting total_count, wide ranges that silently lose files, unstable order, incomplete pages,
secondary limits, 5xx) on a virtual clock. Every strategy runs every platform query of the registry through the
same PyGithub client (own token each). File contents come from the raw route, which costs no search quota:
``aac`` downloads every hit once there, as the real crawl does, because the exact file sizes sharpen its
partitioning (``--no-sizes``: search-only, partitioning from leaf counts alone); the peers never need contents,
so they run search-only. Ground truth is the emulator's own index (every indexable file matching a query,
without pathologies); the raw downloads read only what a client can read.

Strategies:
- ``aac``: :mod:`aac.collectors.partition` (sweep, probe = page 1, verify by halves, learned loss model, exact
  sizes from the raw route).
- ``strata``: fixed narrow size strata over [0, 384 KB), every page of each, as ipa-lab/github-searcher does
  (its default stratum is 1 byte, i.e. 393,216 queries per search; we use ``--stratum`` bytes, 1024 by default).
- ``chunk``: halve/double chunk scan as thekevinscott/github-data-file-fetcher: probe a size chunk, halve it
  while total_count > 1000, else page it fully and double the chunk when total_count < 500; trusts total_count.

Printed per strategy: recall, search requests (as counted by the emulator, refusals included), the lower bound
ceil(N/100), the ratio to it, probe overhead (AAC: pages of split candidates + verification pages +
re-fetches), and crawl hours at 10 search requests/min; the notes add the requests the emulator refused
(secondary limits, 5xx) and the client retried. Under AAC's row a line splits the requests over the bound: each
query's own last partial page (what a crawl that knew every count would still pay: the bound pools all queries'
files), further leaf pages and re-fetches, split probes, checks and refused requests.
Target for AAC: recall >= 0.999, ratio <= 1.3.
With ``--seeds`` every seed is a new snapshot and emulator; the last lines give each strategy's mean and worst
ratio and its lowest recall (request counts vary by a few percent from seed to seed).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench._report import add_write_docs_flag, run_with_docs  # noqa: E402

from aac.collectors.collect import platform_queries  # noqa: E402
from aac.collectors.crawl import CrawlEngine, Hit, NullSink  # noqa: E402
from aac.collectors.emulator import EmulatorServer, generate_snapshot  # noqa: E402
from aac.collectors.emulator.query import parse_query  # noqa: E402
from aac.collectors.github import GitHubClient, GitHubError  # noqa: E402
from aac.collectors.partition import MAX_INDEXED, SizeRange  # noqa: E402


def truth(srv: EmulatorServer, queries: list[str]) -> set[tuple[str, str]]:
    want: set[tuple[str, str]] = set()
    for q in queries:
        for f in srv.api.index.match(parse_query(q)):
            want.add((f.repo.full_name, f.path))
    return want


class RawSizes:
    """Exact file sizes for the partitioner, from each hit's content on the raw route, as the real crawl
    downloads it anyway (no search quota; each file once, in ``workers`` threads like ``fetch_workers``)."""

    def __init__(self, client: GitHubClient, workers: int = 8):
        self.client = client
        self.known: dict[tuple[str, str], int | None] = {}
        self.pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="bench-raw")
        self.downloads = 0

    def _size(self, hit: Hit) -> int | None:
        try:
            data = self.client.raw(hit.repo, hit.ref or "HEAD", hit.path)
        except GitHubError:
            return None
        return None if data is None else len(data)

    def __call__(self, hits: dict[tuple[str, str], Hit]) -> dict[tuple[str, str], int]:
        todo = [h for k, h in hits.items() if k not in self.known]
        for h, size in zip(todo, self.pool.map(self._size, todo)):
            self.known[h.key] = size
        self.downloads += len(todo)
        return {k: self.known[k] for k in hits if self.known.get(k) is not None}


def per_query_ideal(index, queries: list[str]) -> int:
    """Search requests a crawl that knew every count would need: each query's files (in the emulator's ``index``)
    in full pages, plus its last partial page (the bound ceil(N/100) pools all queries' files, which no crawl can)."""
    return sum(max(1, math.ceil(len(index.match(parse_query(q))) / 100)) for q in queries)


def overheads(engine: CrawlEngine, ideal: int, bound: int, refused: int) -> dict[str, float]:
    """Where the requests over the bound went (re-fetches inside splits and checks count with those)."""
    st = engine.stats
    return {"bound": bound, "last pages": ideal - bound,
            "leaf pages": st.requests - st.probes_wasted - st.check_requests - ideal, "re-fetches": st.refetches,
            "split probes": st.probes_wasted, "checks": st.check_requests, "refused": refused}


def breakdown(parts: dict[str, float]) -> str:
    """:func:`overheads` as one line (averages print with one decimal)."""
    def f(x: float) -> str:
        return f"{x:.0f}" if float(x).is_integer() else f"{x:.1f}"

    return (f"over the bound {f(parts['bound'])}: +{f(parts['last pages'])} per-query last pages, "
            f"+{f(parts['leaf pages'])} more leaf pages and re-fetches ({f(parts['re-fetches'])} re-fetches in all), "
            f"+{f(parts['split probes'])} split probes, +{f(parts['checks'])} checks, +{f(parts['refused'])} refused")


def run_aac(engine: CrawlEngine, queries: list[str]) -> dict:
    sink = NullSink()
    for q in queries:
        engine.crawl_query(q, sink)
    st = engine.stats
    return {"hits": set(sink.hits), "overhead": st.probes_wasted + st.check_requests + st.refetches,
            "note": f"{st.leaves} leaves, {st.splits} splits ({st.probes_wasted} req), {st.check_requests} check req "
                    f"({st.partial_checks} settled by one part), "
                    f"{st.refetches} re-fetches; learned clean<={engine.model.clean_max} lossy>={engine.model.lossy_min}"}


def run_strata(engine: CrawlEngine, queries: list[str], width: int) -> dict:
    hits: set = set()
    for q in queries:
        for lo in range(0, MAX_INDEXED, width):
            hits.update(engine.fetch_range(q, SizeRange(lo, min(MAX_INDEXED, lo + width))).hits)
    return {"hits": hits, "overhead": engine.stats.refetches, "note": f"stratum {width} B"}


def run_chunk(engine: CrawlEngine, queries: list[str], start: int) -> dict:
    hits: set = set()
    probes = 0
    for q in queries:
        lo, chunk = 0, start
        while lo < MAX_INDEXED:
            rng = SizeRange(lo, min(MAX_INDEXED, lo + chunk))
            first = engine._page(f"{q} {rng.qualifier()}", 1)
            total = first.total_count or 0
            if total > 1000 and chunk > 1:
                probes += 1
                chunk = max(1, chunk // 2)
                continue
            res = engine.fetch_range(q, rng)  # the peer pages from 1 again
            probes += 1
            hits.update(res.hits)
            lo = rng.hi
            if total < 500:
                chunk *= 2
    return {"hits": hits, "overhead": probes + engine.stats.refetches, "note": f"start chunk {start} B"}


def run_seed(args, seed: int) -> dict[str, tuple[float, float]]:
    t0 = time.time()
    records = list(generate_snapshot(args.files, seed))
    queries = [q for _, q in platform_queries()]
    out_rows: dict[str, tuple[float, float]] = {}
    with EmulatorServer(records, profile="github", seed=seed) as srv:
        want = truth(srv, queries)
        n = len(want)
        lb = math.ceil(n / 100)
        print(f"snapshot: {args.files} files (seed {seed}), {len(queries)} platform queries, N = {n} indexable "
              f"matching files, lower bound ceil(N/100) = {lb} search requests; profile github; "
              f"{'search-only' if args.no_sizes else 'aac downloads each hit from the raw route for its size'} "
              f"(raw content costs no search quota)  [setup {time.time() - t0:.0f} s]")
        print(f"{'strategy':<8} {'recall':>8} {'requests':>9} {'bound':>6} {'ratio':>6} {'overhead':>9} "
              f"{'hours@10/min':>12} {'wall s':>7}  notes")
        for name in args.only.split(","):
            client = GitHubClient([f"bench-token-{name}"], api_url=srv.url, clock=srv.clock)
            before = srv.stats["search_requests"]
            sizes = RawSizes(client) if name == "aac" and not args.no_sizes else None
            engine = CrawlEngine(client.search_code, reserve=lambda k, c=client: c.reserve("search", k),
                                 file_sizes=sizes)
            t1 = time.time()
            if name == "aac":
                out = run_aac(engine, queries)
                if sizes is not None:
                    out["note"] += f"; {sizes.downloads} raw downloads for sizes"
                    sizes.pool.shutdown()
            elif name == "strata":
                out = run_strata(engine, queries, args.stratum)
            elif name == "chunk":
                out = run_chunk(engine, queries, args.chunk)
            else:
                raise SystemExit(f"unknown strategy {name}")
            reqs = srv.stats["search_requests"] - before
            out["note"] += f"; {reqs - engine.stats.requests} refused (limits, 5xx) and retried"
            recall = len(out["hits"] & want) / max(1, n)
            print(f"{name:<8} {recall:>8.5f} {reqs:>9} {lb:>6} {reqs / lb:>6.2f} {out['overhead']:>9} "
                  f"{reqs / 600:>12.1f} {time.time() - t1:>7.0f}  {out['note']}", flush=True)
            if name == "aac":
                print(f"{'':<8} {breakdown(overheads(engine, per_query_ideal(srv.api.index, queries), lb, reqs - engine.stats.requests))}")
            out_rows[name] = (recall, reqs / lb)
            client.close()
    return out_rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--files", type=int, default=50_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--seeds", default=None, help="comma-separated seeds (overrides --seed)")
    ap.add_argument("--stratum", type=int, default=1024)
    ap.add_argument("--chunk", type=int, default=1024)
    ap.add_argument("--only", default="aac,strata,chunk")
    ap.add_argument("--no-sizes", action="store_true",
                    help="aac without file sizes (search-only: partition from leaf counts alone)")
    add_write_docs_flag(ap)
    args = ap.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")] if args.seeds else [args.seed]
    results = [run_seed(args, seed) for seed in seeds]
    if len(seeds) > 1:
        for name in args.only.split(","):
            ratios = [r[name][1] for r in results]
            recalls = [r[name][0] for r in results]
            print(f"{name:<8} over {len(seeds)} seeds: ratio mean {sum(ratios) / len(ratios):.2f} "
                  f"worst {max(ratios):.2f}; recall lowest {min(recalls):.5f}")


if __name__ == "__main__":
    run_with_docs(main)
