"""Benchmark: generate N synthetic artifacts (the emulator's generator) and run ``process`` end to end.

Prints, per step, rows, seconds, rows/s and the peak RSS (MiB, this process + its workers, sampled with psutil),
then the totals against the targets: <= 10 minutes, peak RSS <= 4 GB for 396,934 artifacts (the paper's corpus).

    python bench/process.py                      # full size, 2 workers
    python bench/process.py --n 20000 --workers 1

``--baseline REV`` measures another commit beside the working tree in one run instead (issue 26: the redesign may
not be slower than the code before it, ce0402c): each side runs this bench in a child process, in the order
before, after, after, before (``--rounds 2``; more rounds repeat the pair); each round's after / before ratio
of CPU seconds (the child and its pass-1 workers; classification in the child itself) and of processing time is
taken from its two back-to-back runs, and the verdict is the median over the rounds.

    python bench/process.py --n 10000 --workers 1 --baseline ce0402c
    python bench/process.py --n 10000 --workers 1 --baseline ce0402c --after d35cdc9   # two commits
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench import _baseline  # noqa: E402
from bench._report import add_write_docs_flag, name_section, run_with_docs  # noqa: E402

import psutil  # noqa: E402
import pyarrow as pa  # noqa: E402

from aac.processing.dedupe import NearDupConfig  # noqa: E402
from aac.processing.pipeline import ProcessConfig, StepStat, run  # noqa: E402
from aac.processing.records import artifacts_from_records  # noqa: E402
from aac.core.store import Corpus  # noqa: E402

PAPER_N = 396_934
TARGET_SECONDS = 600
TARGET_RSS_MB = 4096
SLOWER_ALLOWED = 1.05  # after / before
# the classifier's pool of worker processes may outlive the child, and then its CPU time is counted nowhere:
# both sides classify in their own process, so the CPU figures are whole
ONE_CLASSIFY_PROCESS = {"AAC_CLASSIFY_WORKERS": "1"}
OUTCOME = re.compile(r"^process: ([\d,]+) artifacts in ([\d.]+) s.*?; ([\d,]+) items; (.*)$", re.M)


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


def _order(rounds: int) -> list[str]:
    """before, after, after, before, ...: a drift of the machine's load over the run weighs on both sides alike."""
    return [side for r in range(rounds) for side in (("before", "after") if r % 2 == 0 else ("after", "before"))]


def round_ratios(before: list[float], after: list[float]) -> list[float]:
    """after / before per round: the k-th run of each side belong to the same round (see ``_order``)."""
    if len(before) != len(after):
        raise ValueError(f"{len(before)} runs before, {len(after)} after: rounds need one of each")
    return [a / b for b, a in zip(before, after)]


def compare(args: argparse.Namespace) -> None:
    """Run this bench on the ``--baseline`` commit and on the working tree (or ``--after``), interleaved, and print
    after / before."""
    after_part = "-" + re.sub(r"[^A-Za-z0-9_.-]", "-", args.after) if args.after else ""
    name_section("process-vs-baseline" + after_part + ("-no-items" if args.no_items else ""))
    child = ["bench/process.py", "--n", str(args.n), "--seed", str(args.seed), "--workers", str(args.workers),
             "--batch-size", str(args.batch_size), "--near-threshold", str(args.near_threshold)]
    child += ["--no-items"] if args.no_items else []
    commit = _baseline.resolve(args.baseline)
    after = _baseline.resolve(args.after) if args.after else None
    trees = {"before": _baseline.export(commit), "after": _baseline.export(after) if after else _baseline.REPO}
    after_name = f"{after[:12]} ({args.after})" if after else "the working tree"
    print(f"bench/process.py before = {commit[:12]} ({args.baseline}), after = {after_name}; n={args.n:,} "
          f"seed={args.seed} workers={args.workers}; {args.rounds} rounds, order {', '.join(_order(args.rounds))}; "
          f"{psutil.cpu_count()} cores shared with other jobs")
    print(f"{'run':<4}{'side':<8}{'load':>6}{'process s':>11}{'CPU s':>8}{'wall s':>8}  outcome")
    seen: dict[str, list[tuple[float, float]]] = {"before": [], "after": []}
    outcomes: dict[str, set[str]] = {"before": set(), "after": set()}
    try:
        for i, side in enumerate(_order(args.rounds), 1):
            load_now = os.getloadavg()[0]
            res = _baseline.run(trees[side], child, env=ONE_CLASSIFY_PROCESS)
            m = OUTCOME.search(res.stdout)
            if m is None:
                raise SystemExit(f"{side}: no 'process: ...' line in the bench's output:\n{res.stdout[-2000:]}")
            outcome = f"{m.group(1)} artifacts, {m.group(3)} items; {m.group(4)}"
            seen[side].append((float(m.group(2)), res.cpu))
            outcomes[side].add(outcome)
            print(f"{i:<4}{side:<8}{load_now:>6.1f}{float(m.group(2)):>11.1f}{res.cpu:>8.1f}{res.wall:>8.1f}  {outcome}",
                  flush=True)
    finally:
        for tree in trees.values():
            _baseline.remove(tree)
    med = {side: (statistics.median(p for p, _ in runs), statistics.median(c for _, c in runs))
           for side, runs in seen.items()}
    for side in ("before", "after"):
        print(f"median {side}: process {med[side][0]:.1f} s, CPU {med[side][1]:.1f} s")
    # round r's two runs ran back to back: their ratio is untouched by the load drifting between rounds, so the
    # verdict is the median of the per-round ratios, not the ratio of the two sides' medians
    cpu_pairs = round_ratios([c for _, c in seen["before"]], [c for _, c in seen["after"]])
    proc_pairs = round_ratios([p for p, _ in seen["before"]], [p for p, _ in seen["after"]])
    cpu_ratio, proc_ratio = statistics.median(cpu_pairs), statistics.median(proc_pairs)
    print("CPU after / before per round: " + ", ".join(f"{r:.3f}" for r in cpu_pairs)
          + " (their spread is the noise of the measure)")
    verdict = "within" if cpu_ratio <= SLOWER_ALLOWED else "OVER"
    print(f"after / before, median of the rounds: CPU {cpu_ratio:.3f}, process wall {proc_ratio:.3f} -> {verdict} "
          f"the {SLOWER_ALLOWED - 1:.0%} allowed (CPU: wall times follow the other jobs' load); load average now "
          f"{os.getloadavg()[0]:.1f}")
    same = outcomes["before"] == outcomes["after"] and len(outcomes["after"]) == 1
    print("outcome (artifacts, items, kept/private/dropped): " + ("identical on both sides" if same else
          f"DIFFERS: before {sorted(outcomes['before'])}, after {sorted(outcomes['after'])}"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=PAPER_N)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--batch-size", type=int, default=2000)
    ap.add_argument("--near-threshold", type=float, default=0.85)
    ap.add_argument("--no-items", action="store_true", help="Skip items + classification.")
    ap.add_argument("--corpus", type=Path, default=None, help="Where to write (default: a temporary folder, removed).")
    ap.add_argument("--baseline", metavar="REV", help="compare with this commit in one run (e.g. ce0402c)")
    ap.add_argument("--rounds", type=int, default=2, help="with --baseline: before/after pairs, alternating order")
    ap.add_argument("--after", metavar="REV", help="with --baseline: this commit instead of the working tree")
    add_write_docs_flag(ap)
    args = ap.parse_args()
    if args.baseline:
        if args.corpus is not None:
            ap.error("--corpus and --baseline: each side of a comparison writes its own temporary corpus")
        compare(args)
        return
    if args.after:
        ap.error("--after needs --baseline")

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
    run_with_docs(main)
