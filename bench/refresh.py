"""Refresh merge at corpus scale: a crawl with ~1% edited, 0.5% removed and 0.5% new files merged as a version.

    python bench/refresh.py --artifacts 396934
Prints the plan counts, seconds and peak RSS of ``apply_refresh`` (synthetic text only).

    python bench/refresh.py --crawl 3000
Crawls a generated snapshot from the emulator (profile github), then re-crawls it unchanged (once without
content reuse, as before it existed) and after editing 1% of the files, each time with the corpus as ``previous``
(frontier seeds + conditional requests + content of unchanged blob shas), and prints the requests of each crawl
side by side as the client and the emulator counted them. A first crawl with repository metadata over REST
(one request per repo, ``graphql_batch=0``) shows what the GraphQL batches save.

    python bench/refresh.py --reuse 396934
Builds the content-reuse index of a previous corpus of that many rows and prints its size, build time and
peak traced memory, and the time to look up one leaf of 100 and of 1000 hits.

    python bench/refresh.py --fetch 1000 [--latency 0.05]
Crawls a generated snapshot from an emulator (profile ideal) that delays every response by ``--latency``
seconds, once with ``fetch_workers=1`` and once with 8, and prints both wall times, the raw requests and
whether the two corpora hold the same rows.

    python bench/refresh.py --process 1000
Processes a generated snapshot, merges a re-crawl with one file edited, processes again, and prints the rows
each run put through pass 1 and itemisation (and reused) with the seconds; then swaps in a changed default model
and prints what a plain re-run re-typed (and how many types changed) against a ``--full`` run.
"""

from __future__ import annotations

import argparse
import hashlib
import resource
import sys
import tempfile
import time
from pathlib import Path

import pyarrow as pa

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench._report import add_write_docs_flag, name_section, run_with_docs  # noqa: E402

from aac.core.ids import artifact_id  # noqa: E402
from aac.refresh.versioning import apply_refresh  # noqa: E402
from aac.core.schema import ARTIFACTS  # noqa: E402
from aac.core.store import Corpus  # noqa: E402


def rows(n: int, edit_every: int = 0, start: int = 0) -> list[dict]:
    out = []
    for k in range(start, start + n):
        content = f"- rule {k}\n" * 40 + ("- edited\n" if edit_every and k % edit_every == 0 else "")
        out.append(dict(artifact_id=artifact_id(f"o{k % 9000}/r{k}", "CLAUDE.md"), repo=f"o{k % 9000}/r{k}",
                        path="CLAUDE.md", platform="claude", status="kept", content=content,
                        blob_sha=hashlib.sha1(content.encode()).hexdigest()))
    return out


def crawl_bench(n: int) -> None:
    import json

    import requests

    from aac.collectors.collect import run_github_crawl
    from aac.collectors.emulator import EmulatorServer, generate_snapshot
    from aac.core.config import Secret
    from aac.refresh.versioning import merge_incoming

    records = list(generate_snapshot(n, 7))
    edited = [dict(r, content=r["content"] + "\n- edited\n") if k % 100 == 0 else r for k, r in enumerate(records)]
    with tempfile.TemporaryDirectory() as tmp, EmulatorServer(records, profile="github", seed=3) as srv:
        main_c = Corpus(Path(tmp) / "main")
        print(f"{'crawl':<22}{'files':>7}{'repos':>6}{'search':>8}{'core':>7}{'core 304':>9}{'graphql':>8}"
              f"{'search 304':>11}{'raw':>6}{'reused':>7}{'core quota':>11}{'emu 304':>8}{'secs':>7}")
        runs = [("first, REST metadata", Corpus(Path(tmp) / "rest"), None, None, True, 0),
                ("first", main_c, None, None, True, None),
                ("refresh, no reuse", Corpus(Path(tmp) / "r0"), main_c, None, False, None),
                ("refresh, unchanged", Corpus(Path(tmp) / "r1"), main_c, None, True, None),
                ("refresh, 1% edited", Corpus(Path(tmp) / "r2"), main_c, edited, True, None)]
        for name, target, previous, snapshot, reuse, batch in runs:
            if snapshot is not None:
                path = Path(tmp) / "v2.jsonl"
                path.write_text("".join(json.dumps(r) + "\n" for r in snapshot), encoding="utf-8")
                requests.post(f"{srv.url}/_emulator/snapshot", json={"path": str(path)}, timeout=60).raise_for_status()
            before = srv.stats
            t = time.perf_counter()
            s = run_github_crawl(target, srv.url, [Secret("bench-token")], clock=srv.clock, previous=previous,
                                 reuse_content=reuse, graphql_batch=batch)
            secs = time.perf_counter() - t
            emu = {k: srv.stats[k] - before[k] for k in ("not_modified",)}
            core304 = s.not_modified - s.search_not_modified
            repos = target.sql("select count(*) as n from repos").to_pylist()[0]["n"]
            print(f"{name:<22}{s.files:>7}{repos:>6}{s.search_requests:>8}{s.core_requests:>7}{core304:>9}"
                  f"{s.graphql_requests:>8}{s.search_not_modified:>11}{s.raw_requests:>6}{s.reused:>7}{s.core_requests - core304:>11}"
                  f"{emu['not_modified']:>8}{secs:>7.1f}")
            if previous is not None and reuse:
                r = merge_incoming(previous, target, source=name)
                print(f"{'':<22}merged as version {r.version}: +{r.added} ~{r.changed} -{r.removed} ={r.unchanged}")


def process_bench(n: int) -> None:
    from aac.collectors.emulator import generate_snapshot
    from aac.processing.pipeline import run
    from aac.processing.records import artifacts_from_records, load_records

    records = list(generate_snapshot(n, 21))
    with tempfile.TemporaryDirectory() as tmp:
        corpus = Corpus(Path(tmp) / "c")
        load_records(corpus, records)
        t = time.perf_counter()
        first = run(corpus)
        t1 = time.perf_counter() - t
        arts = corpus.read("artifacts").to_pylist()
        target = next(a for a in arts if a["status"] == "kept")
        edited = [dict(r, content=r["content"] + "\n- edited\n") if (r["repo"], r["path"]) == (target["repo"], target["path"])
                  else r for r in records]
        crawled, repos = artifacts_from_records(edited)
        corpus.upsert("repos", repos)
        v = apply_refresh(corpus, crawled)
        t = time.perf_counter()
        second = run(corpus)
        t2 = time.perf_counter() - t
        print(f"first process: pass 1 on {first.processed} rows, {first.items_itemised} artifacts itemised, {t1:.1f}s")
        print(f"after a refresh with {v.changed} changed: pass 1 on {second.processed} rows ({second.reused} reused), "
              f"{second.items_itemised} itemised ({second.items_reused} reused), {t2:.1f}s")
        model_change(corpus, Path(tmp))


def model_change(corpus: Corpus, tmp: Path) -> None:
    """A retrained default model (the shipped one with its constraint bias moved) seen by a plain re-run,
    against ``--full`` with the same model: items re-typed from their stored segmentation vs re-made."""
    import os
    from dataclasses import replace

    from aac.classifiers.linear import LinearModel
    from aac.classifiers.trained import MODEL_ENV, shipped_model_path
    from aac.processing.items import _default_classifier
    from aac.processing.pipeline import ProcessConfig, run

    before = {r["item_id"]: r["type"] for r in corpus.read("items", columns=["item_id", "type"]).to_pylist()}
    m = LinearModel.load(shipped_model_path())
    os.environ[MODEL_ENV] = str(replace(m, c_bias=m.c_bias + 1.0).save(tmp / "retrained.npz"))
    _default_classifier.cache_clear()
    try:
        t = time.perf_counter()
        r = run(corpus)
        t_inc = time.perf_counter() - t
        after = {x["item_id"]: x["type"] for x in corpus.read("items", columns=["item_id", "type"]).to_pylist()}
        changed = sum(after[k] != v for k, v in before.items())
        t = time.perf_counter()
        full = run(corpus, ProcessConfig(incremental=False))
        t_full = time.perf_counter() - t
    finally:
        os.environ.pop(MODEL_ENV, None)
        _default_classifier.cache_clear()
    print(f"after a model change: pass 1 on {r.processed} rows ({r.reused} reused), {r.items_itemised} itemised, "
          f"{r.items_retyped} re-typed ({r.item_rows_retyped} items, {changed} changed type), {r.items_reused} reused, "
          f"{t_inc:.1f}s (items step {_step_s(r, 'items'):.2f}s); the same with --full: {full.items_itemised} itemised, "
          f"{t_full:.1f}s (items step {_step_s(full, 'items'):.2f}s)")


def _step_s(report, prefix: str) -> float:
    return sum(s.seconds for s in report.steps if s.name.startswith(prefix))


def reuse_bench(n: int) -> None:
    import random
    import tracemalloc

    from aac.collectors.crawl import Hit
    from aac.collectors.reuse import PreviousContent

    previous = rows(n)
    for r in previous:
        raw = r["content"].encode("utf-8")
        r["content_sha256"], r["size_bytes"] = hashlib.sha256(raw).hexdigest(), len(raw)
    with tempfile.TemporaryDirectory() as tmp:
        corpus = Corpus(Path(tmp))
        corpus.replace("raw_artifacts", pa.Table.from_pylist(previous, schema=ARTIFACTS))
        tracemalloc.start()
        t = time.perf_counter()
        index = PreviousContent(corpus)
        secs = time.perf_counter() - t
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        print(f"reuse index of {n} rows: {len(index)} keys, {index._keys.nbytes / 2**20:.1f} MiB held, built in "
              f"{secs:.2f} s (peak traced {peak / 2**20:.0f} MiB)")
        rng = random.Random(0)
        for k in (100, 1000):
            hits = [Hit(r["repo"], r["path"], r["blob_sha"]) for r in rng.sample(previous, k)]
            t = time.perf_counter()
            got = index.lookup(hits)
            print(f"lookup of a {k}-hit leaf: {(time.perf_counter() - t) * 1000:.0f} ms, {len(got)} reused")
        index.close()


def fetch_bench(n: int, latency: float) -> None:
    from dataclasses import replace

    from aac.collectors.collect import run_github_crawl
    from aac.collectors.emulator import EmulatorServer, generate_snapshot
    from aac.collectors.emulator.profiles import IDEAL
    from aac.core.config import Secret

    slow = replace(IDEAL, name="ideal+latency", slow_rate=1.0, slow_seconds=latency)  # every response waits
    records = list(generate_snapshot(n, 7))
    cols = "artifact_id, blob_sha, commit_sha, content_sha256, status, drop_reason, content"
    with tempfile.TemporaryDirectory() as tmp, EmulatorServer(records, profile=slow, seed=3) as srv:
        out = {}
        print(f"{n} generated files, every response delayed {latency:.3f} s (search and repo requests too)")
        for workers in (1, 8):
            target = Corpus(Path(tmp) / f"w{workers}")
            t = time.perf_counter()
            s = run_github_crawl(target, srv.url, [Secret("bench-token")], clock=srv.clock, fetch_workers=workers)
            secs = time.perf_counter() - t
            out[workers] = (secs, target.sql(f"select {cols} from artifacts order by 1").to_pylist())
            print(f"fetch_workers={workers}: {secs:6.1f} s wall, {s.files} files, {s.raw_requests} raw, "
                  f"{s.search_requests} search, {s.core_requests} core requests")
        print(f"speed-up x{out[1][0] / out[8][0]:.2f}; same rows: {out[1][1] == out[8][1]}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--artifacts", type=int, default=50_000)
    ap.add_argument("--crawl", type=int, default=0, help="files of a generated snapshot to crawl and re-crawl")
    ap.add_argument("--process", type=int, default=0, help="files of a generated snapshot to process twice")
    ap.add_argument("--fetch", type=int, default=0, help="files of a generated snapshot to crawl with 1 and 8 "
                    "fetch workers")
    ap.add_argument("--latency", type=float, default=0.05, help="seconds every emulator response is delayed")
    ap.add_argument("--reuse", type=int, default=0, help="rows of a previous corpus to index for content reuse")
    add_write_docs_flag(ap)
    args = ap.parse_args()
    # each mode measures something else: its own section of docs/benchmarks.md
    mode = next((m for m in ("reuse", "fetch", "process", "crawl") if getattr(args, m)), "merge")
    name_section(f"refresh-{mode}")
    if args.reuse:
        reuse_bench(args.reuse)
        return
    if args.fetch:
        fetch_bench(args.fetch, args.latency)
        return
    if args.process:
        process_bench(args.process)
        return
    if args.crawl:
        crawl_bench(args.crawl)
        return
    n = args.artifacts
    with tempfile.TemporaryDirectory() as tmp:
        corpus = Corpus(Path(tmp) / "c")
        corpus.replace("artifacts", pa.Table.from_pylist(rows(n), schema=ARTIFACTS))
        gone = n // 200
        crawl = rows(n - gone, edit_every=100, start=gone) + rows(n // 200, start=n)  # drop first 0.5%, add 0.5%
        crawled = pa.Table.from_pylist(crawl, schema=ARTIFACTS)
        t = time.perf_counter()
        r = apply_refresh(corpus, crawled)
        secs = time.perf_counter() - t
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"refresh of {n} artifacts: +{r.added} ~{r.changed} -{r.removed} ={r.unchanged} in {secs:.1f}s "
              f"({n / secs:,.0f} artifacts/s); peak RSS {rss:.0f} MiB")


if __name__ == "__main__":
    run_with_docs(main)
