#!/usr/bin/env python3
"""The partitioner on many seeds in seconds: the crawl engine driven in-process against the emulator's API object.

    python bench/crawl_sim.py [--files 50000] [--seeds 0-15] [--workers 2] [--order registry|reverse|shuffle:K]

``bench/crawl.py`` is the benchmark of record (real HTTP through PyGithub, rate limits, secondary limits, 5xx,
virtual waits); it takes about 75 s a seed, which is too slow to tell a change of 0.01 in the ratio from the
seed-to-seed noise (about +-0.02). This script keeps every pathology that shapes the partitioner's decisions -
undercounting ``total_count``, wide ranges that lose files, incomplete pages, best-match order - and drops those
that only cost waiting or retries (rate limits, secondary limits, 5xx, slow replies), so a seed takes about 5 s.
Exact file sizes come from the index, as the real crawl gets them from the raw route. It prints, per seed, recall
against the emulator's ground truth, search requests, the lower bound ceil(N/100), their ratio and where the
overhead went; then the mean and worst ratio, the lowest recall, and the mean split of the requests over the bound
(each query's own last partial page, further leaf pages and re-fetches, split probes, checks). Expect bench/crawl.py to read about 0.02-0.04
higher (it also counts refused requests and re-fetches after order changes during rate-limit waits).
``--order`` sweeps the queries in another order than the registry's, which ``aac crawl`` uses: the order decides
which leaves the loss model is first checked on and which queries the size prior is learned from (16 seeds,
2026-12-03, with partial checks: registry 1.302, reverse 1.291, shuffle:1/2/3 1.300 / 1.293 / 1.306; before them
1.322, 1.288, 1.320 / 1.291 / 1.322, when the low orders gained by starting with a query just under the size at
which ranges start losing files, whose single check pinned the loss model down at once). Choosing the order at run
time did not help (2026-12-04): every query's root probed first, then the rest swept in registry order, 1.309, or
smallest root estimate first, 1.334 (lowest recall 0.9991); so ``aac crawl`` sweeps one query at a time.
A first candidate of the smallest files (a share of the size prior's mass: 5 % / 10 %) instead of the root probe
saves half the split probes but costs more leaf pages, as no random sample of the query places its first leaves:
1.315 / 1.347.
``--seeded T`` seeds every query with ranges holding exactly T files by the emulator's index, as a refresh seeded
from a previous crawl nearly does: it measures the partitioner when every count is known (4 seeds, 2026-12-04):
T=490 1.084 (worst 1.092), T=460 1.152, against 1.302 for a fresh crawl. So a fresh crawl's overhead is not in
its paging, checking or splitting but in what it cannot know before asking: a candidate's count, predicted from
the query's own sizes below the sweep times the size prior's shape (learned from the other queries), misses by
13-15 % (median absolute error x 1.48, seeds 0-1; RMS 26-27 % with its tails), where Poisson noise alone is 5 %
and ``total_count`` (an undercount by a factor of 0.6-1.0) cannot narrow it. Most of the miss is the query's shape
differing from the other queries' (measured offline on seeds 0-1, the same sweep with each query's own smoothed
shape in place of the prior misses by 7-8 %; that smoothed shape puts ~400-file ranges within 5 % of their
counts, so copied templates add little). ``--own-shape`` gives every query that
oracle shape as its prior: 1.272 (worst 1.308) over seeds 0-15, so even a perfect estimate of each query's size
distribution would leave a fresh crawl near 1.27: with misses of 7 % a leaf still aims under a page boundary with a
margin (about 390 files, not 490), and the loss model still costs checks and each split query a root probe.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from bisect import bisect_left, bisect_right
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path
from urllib.parse import urlencode

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench._report import add_write_docs_flag, name_section, run_with_docs  # noqa: E402

from aac.collectors.clock import VirtualClock  # noqa: E402
from aac.collectors.collect import platform_queries  # noqa: E402
from aac.collectors.crawl import CrawlEngine, Hit, NullSink, Page  # noqa: E402
from aac.collectors.partition import MAX_INDEXED, SizePrior, SizeRange  # noqa: E402
from aac.collectors.emulator import generate_snapshot  # noqa: E402
from aac.collectors.emulator.api import EmulatorApi  # noqa: E402
from aac.collectors.emulator.profiles import GITHUB  # noqa: E402
from aac.collectors.emulator.query import parse_query  # noqa: E402
from bench.crawl import breakdown, overheads, per_query_ideal  # noqa: E402

# the github profile without the pathologies that cost only time or retries, never a partitioning decision
PROFILE = replace(GITHUB, name="github-sim", search_limit=None, core_limit=None, anonymous_core_limit=None,
                  secondary_rate=0.0, error_rate=0.0, slow_rate=0.0)


def ordered(queries: list[str], order: str) -> list[str]:
    """The queries in ``order``: ``registry``, ``reverse`` or ``shuffle:K`` (a permutation seeded by K)."""
    if order == "registry":
        return list(queries)
    if order == "reverse":
        return queries[::-1]
    kind, _, key = order.partition(":")
    if kind == "shuffle" and key.isdigit():
        return random.Random(int(key)).sample(queries, len(queries))
    raise SystemExit(f"--order: expected registry, reverse or shuffle:K, got {order!r}")


def exact_seeds(sizes: list[int], per_leaf: int) -> list[SizeRange]:
    """Ranges over [0, MAX_INDEXED) each holding ``per_leaf`` of the files whose exact ``sizes`` are given (the
    last one the rest; files of one size are never split): the leaves a crawl would ask if it knew every count."""
    sizes = sorted(sizes)
    cuts, start = [0], 0  # start: index of the current range's first file
    while start + per_leaf < len(sizes):
        cut = sizes[start + per_leaf]
        if cut <= cuts[-1]:  # more files of the range's first size than fit: they make the range alone
            after = bisect_right(sizes, cuts[-1])
            if after >= len(sizes):
                break
            cut = sizes[after]
        cuts.append(cut)
        start = bisect_left(sizes, cut)
    return [SizeRange(a, b) for a, b in zip(cuts, [*cuts[1:], MAX_INDEXED])]


def own_shape(sizes: list[int]) -> SizePrior:
    """A size prior holding the query's own exact sizes, smoothed (an oracle no crawl has)."""
    prior = SizePrior(default=not sizes)
    prior.KERNEL = OWN_SHAPE_KERNEL
    if sizes:
        prior.add_query([], sizes)
    return prior


OWN_SHAPE_KERNEL = 0.15  # wide enough that the shape does not hold the exact counts of ~400-file ranges


def run_seed(seed: int, files: int, order: str = "registry", seeded: int = 0, oracle_shape: bool = False) -> dict:
    api = EmulatorApi(list(generate_snapshot(files, seed)), PROFILE, seed, VirtualClock())
    queries = ordered([q for _, q in platform_queries()], order)
    want = {(f.repo_lower, f.path) for q in queries for f in api.index.match(parse_query(q))}
    size_of = {(f.repo_lower, f.path): f.size for f in api.index.searchable}

    def search(query: str, page: int) -> Page:
        target = "/search/code?" + urlencode({"q": query, "page": page, "per_page": 100})
        resp = api.handle("GET", target, {"Authorization": "token crawl-sim"}, b"", "http://127.0.0.1")
        body = json.loads(resp.body)
        if resp.status != 200:
            raise RuntimeError(f"emulator answered {resp.status}: {body.get('message')}")
        return Page([Hit.from_item(it) for it in body["items"]], body["total_count"], body["incomplete_results"])

    def file_sizes(hits: dict) -> dict:
        return {k: size_of[(k[0].lower(), k[1])] for k in hits if (k[0].lower(), k[1]) in size_of}

    engine = CrawlEngine(search, file_sizes=file_sizes)
    sink = NullSink()
    t0 = time.time()
    for q in queries:
        sizes = [f.size for f in api.index.match(parse_query(q))]
        if oracle_shape:
            engine.prior = own_shape(sizes)
        engine.crawl_query(q, sink, seeds=exact_seeds(sizes, seeded) if seeded else None)
    got = {(repo.lower(), path) for repo, path in sink.hits}
    st, lb = engine.stats, math.ceil(len(want) / 100)
    ideal = per_query_ideal(api.index, queries)
    return {"seed": seed, "recall": len(got & want) / max(1, len(want)), "requests": st.requests, "bound": lb,
            "ratio": st.requests / lb, "secs": time.time() - t0,
            "note": f"{st.leaves} leaves, {st.splits} splits ({st.probes_wasted} req), {st.check_requests} check req "
                    f"({st.partial_checks} settled by one part), "
                    f"{st.refetches} re-fetches; learned clean<={engine.model.clean_max} "
                    f"lossy>={engine.model.lossy_min}", "parts": overheads(engine, ideal, lb, 0)}


def parse_seeds(text: str) -> list[int]:
    out: list[int] = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out.extend(range(int(lo), int(hi) + 1) if hi else [int(lo)])
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--files", type=int, default=50_000)
    ap.add_argument("--seeds", default="0-15", help="e.g. 0-15 or 0,3,7")
    ap.add_argument("--workers", type=int, default=2, help="seeds run in this many processes")
    ap.add_argument("--order", default="registry", help="query order: registry, reverse or shuffle:K")
    ap.add_argument("--seeded", type=int, default=0, metavar="T",
                    help="seed every query with ranges holding exactly T files by the emulator's index (what the "
                         "partitioner costs when every count is known; 0: a fresh crawl, as aac crawl runs)")
    ap.add_argument("--own-shape", action="store_true",
                    help="give every query a size prior made of its own exact sizes (smoothed): what a perfect "
                         "estimate of each query's size distribution would buy a fresh crawl")
    add_write_docs_flag(ap)
    args = ap.parse_args()
    variant = [f"order-{args.order.replace(':', '')}"] if args.order != "registry" else []
    variant += [f"seeded-{args.seeded}"] * bool(args.seeded) + ["own-shape"] * args.own_shape
    name_section("-".join(["crawl_sim", *variant]))
    seeds = parse_seeds(args.seeds)
    ordered([], args.order)  # a bad --order fails before any seed runs
    print(f"{args.files} generated files a seed, profile {PROFILE.name} (github minus rate limits, secondary limits, "
          f"5xx), {len(seeds)} seeds, query order {args.order}"
          + (f", every query seeded with ranges of {args.seeded} files" if args.seeded else "")
          + (", every query's own size shape as its prior" if args.own_shape else ""))
    print(f"{'seed':>4} {'recall':>8} {'requests':>9} {'bound':>6} {'ratio':>6} {'s':>4}  notes")
    rows = []
    with ProcessPoolExecutor(max_workers=max(1, args.workers)) as pool:
        for r in pool.map(run_seed, seeds, [args.files] * len(seeds), [args.order] * len(seeds),
                          [args.seeded] * len(seeds), [args.own_shape] * len(seeds)):
            rows.append(r)
            print(f"{r['seed']:>4} {r['recall']:>8.5f} {r['requests']:>9} {r['bound']:>6} {r['ratio']:>6.3f} "
                  f"{r['secs']:>4.0f}  {r['note']}", flush=True)
    ratios = [r["ratio"] for r in rows]
    print(f"over {len(rows)} seeds: ratio mean {sum(ratios) / len(ratios):.3f} worst {max(ratios):.3f}; "
          f"recall lowest {min(r['recall'] for r in rows):.5f}")
    print("mean " + breakdown({k: sum(r["parts"][k] for r in rows) / len(rows) for k in rows[0]["parts"]}))


if __name__ == "__main__":
    run_with_docs(main)
