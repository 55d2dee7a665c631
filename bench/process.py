"""Benchmark: generate N synthetic artifacts (the emulator's generator) and run ``process`` end to end.

Prints, per step, rows, seconds, rows/s and the peak RSS (MiB, this process + its workers, sampled with psutil),
then the totals against the targets: <= 10 minutes, peak RSS <= 4 GB for 396,934 artifacts (the paper's corpus).

    python bench/process.py                      # full size, 2 workers
    python bench/process.py --n 20000 --workers 1
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import psutil  # noqa: E402
import pyarrow as pa  # noqa: E402

from aac.processing.dedupe import NearDupConfig  # noqa: E402
from aac.processing.pipeline import ProcessConfig, StepStat, run  # noqa: E402
from aac.processing.records import artifacts_from_records  # noqa: E402
from aac.core.store import Corpus  # noqa: E402

PAPER_N = 396_934
TARGET_SECONDS = 600
TARGET_RSS_MB = 4096


class RssSampler:
    """Peak resident memory of this process plus its children, sampled every 0.2 s; reset per step."""

    def __init__(self) -> None:
        self.proc = psutil.Process()
        self.peak = 0.0
        self.overall = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def _rss(self) -> float:
        total = 0
        for p in [self.proc, *self.proc.children(recursive=True)]:
            try:
                total += p.memory_info().rss
            except psutil.Error:
                pass
        return total / 2**20

    def _loop(self) -> None:
        while not self._stop.wait(0.2):
            r = self._rss()
            self.peak = max(self.peak, r)
            self.overall = max(self.overall, r)

    def start(self) -> "RssSampler":
        self._thread.start()
        return self

    def take(self) -> float:
        peak, self.peak = max(self.peak, self._rss()), 0.0
        return peak

    def stop(self) -> None:
        self._stop.set()


def _cpu_seconds() -> float:
    """User + system CPU of this process and of its finished worker processes."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def load(corpus: Corpus, n: int, seed: int, chunk: int = 20_000) -> tuple[int, int]:
    """Write generated records into artifacts/repos as a crawl would (a part per chunk, streaming)."""
    from aac.collectors.emulator import generate_snapshot

    buf: list[dict] = []
    part = 0
    written = 0
    seen_repos: set[str] = set()

    def flush() -> None:
        nonlocal part, written
        arts, repos = artifacts_from_records(buf)
        new = pa.array([r not in seen_repos for r in repos.column("full_name").to_pylist()])
        seen_repos.update(repos.column("full_name").to_pylist())
        corpus.write_part("artifacts", f"gen-{part:05d}", arts)
        corpus.write_part("repos", f"gen-{part:05d}", repos.filter(new))
        written += arts.num_rows
        part += 1
        buf.clear()

    for rec in generate_snapshot(n, seed):
        buf.append(rec)
        if len(buf) >= chunk:
            flush()
    if buf:
        flush()
    return written, len(seen_repos)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=PAPER_N)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--batch-size", type=int, default=2000)
    ap.add_argument("--near-threshold", type=float, default=0.85)
    ap.add_argument("--no-items", action="store_true", help="Skip items + classification.")
    ap.add_argument("--corpus", type=Path, default=None, help="Where to write (default: a temporary folder, removed).")
    args = ap.parse_args()

    root = args.corpus or Path(tempfile.mkdtemp(prefix="aac-bench-process-"))
    corpus = Corpus(root)
    sampler = RssSampler().start()
    print(f"bench/process.py: n={args.n:,} seed={args.seed} workers={args.workers} cpus={psutil.cpu_count()} "
          f"(shared machine: other jobs may be running) corpus={root}")
    print(f"{'step':<42}{'rows':>12}{'seconds':>10}{'rows/s':>12}{'peak RSS MiB':>14}{'CPU s':>9}")
    cpu_mark = [_cpu_seconds()]

    def show(stat: StepStat) -> None:
        rate = stat.rows / stat.seconds if stat.seconds else 0.0
        cpu_now = _cpu_seconds()
        cpu, cpu_mark[0] = cpu_now - cpu_mark[0], cpu_now
        print(f"{stat.name:<42}{stat.rows:>12,}{stat.seconds:>10.1f}{rate:>12,.0f}{sampler.take():>14,.0f}{cpu:>9.1f}",
              flush=True)

    t_all = time.perf_counter()
    t0 = time.perf_counter()
    n, n_repos = load(corpus, args.n, args.seed)
    show(StepStat(f"generate + write artifacts ({n_repos:,} repos)", n, time.perf_counter() - t0))
    cfg = ProcessConfig(workers=args.workers, batch_size=args.batch_size, items=not args.no_items,
                        near=NearDupConfig(threshold=args.near_threshold))
    t_proc = time.perf_counter()
    report = run(corpus, cfg, on_step=show)
    proc_s = time.perf_counter() - t_proc
    total_s = time.perf_counter() - t_all
    sampler.stop()
    peak = sampler.overall
    print(f"process: {report.artifacts:,} artifacts in {proc_s:.1f} s = {report.artifacts / proc_s:,.0f} artifacts/s; "
          f"{report.items:,} items; kept {report.kept:,}, private {report.private:,}, dropped {report.dropped:,}")
    print("drop reasons: " + ", ".join(f"{k} {v:,}" for k, v in sorted(report.drop_reasons.items(), key=lambda kv: -kv[1])))
    scale = PAPER_N / max(1, n)
    print(f"total (generate + process): {total_s:.1f} s vs target {TARGET_SECONDS} s -> "
          f"{total_s / TARGET_SECONDS:.2f}x of budget"
          + (f" (extrapolated to {PAPER_N:,}: ~{total_s * scale:.0f} s)" if n != PAPER_N else ""))
    print(f"CPU time (this process + workers): {_cpu_seconds():.0f} s over {total_s:.0f} s wall on "
          f"{psutil.cpu_count()} cores; load average now {os.getloadavg()[0]:.1f} (other jobs share the machine)")
    print(f"peak RSS: {peak:,.0f} MiB vs target {TARGET_RSS_MB:,} MiB -> {peak / TARGET_RSS_MB:.2f}x of budget")
    if args.corpus is None:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
