"""The ``demo`` job (``aac demo``): the whole pipeline offline — synthetic (or given) snapshot -> emulator over HTTP -> crawl ->
process -> classify -> ``data/`` — plus the numbers for a short report.

The emulator runs in a thread of this process on a virtual clock, so GitHub's rate-limit windows cost no real
time while the crawl still goes through PyGithub, HTTP, search partitioning and raw-content fetches.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from aac.jobs.options import corpus_option, option
from aac.jobs.process import ProcessOptions

if TYPE_CHECKING:
    from aac.processing.pipeline import ProcessReport

DEFAULT_FILES = 2000

EXAMPLE_QUERIES = (
    "select platform, count(*) as files, round(avg(size_bytes)) as avg_bytes from publishable_artifacts "
    "group by platform order by files desc",
    "select type, count(*) as items, round(avg(n_tokens), 1) as avg_tokens from publishable_items "
    "group by type order by items desc",
    "select repo, path, dup_cluster_size, dup_cluster_repos from artifacts where authorship = 'template_copy' "
    "and near_dup_of is null order by dup_cluster_repos desc limit 5",
)


@dataclass(frozen=True)
class DemoOptions:
    """What a demo may be told; the CLI options are these fields."""

    corpus: str | Path = corpus_option()
    snapshot: Path | None = option(None, "A JSON Lines snapshot to serve (default: generate one).", "--snapshot")
    files: int = option(DEFAULT_FILES, "Size of the generated snapshot.", "--files", min=1)
    seed: int = option(0, "Seed of the generator and the emulator.", "--seed")
    profile: str = option("github", "Emulator profile: github (hostile) or ideal.", "--profile")
    workers: int = option(1, "Processes for the per-artifact steps.", "--workers", min=1)


@dataclass
class DemoResult:
    snapshot_files: int
    crawl_line: str
    process: ProcessReport
    seconds: dict[str, float] = field(default_factory=dict)
    platforms: list[dict] = field(default_factory=list)
    types: list[dict] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"snapshot_files": self.snapshot_files, "crawl": self.crawl_line, "seconds": self.seconds,
                "process": self.process.to_dict(), "platforms": self.platforms, "types": self.types}


def _records(snapshot: Path | None, files: int, seed: int) -> list[dict]:
    if snapshot is not None:
        from aac.collectors.emulator import load_snapshot

        return load_snapshot(snapshot)
    from aac.collectors.emulator import generate_snapshot

    return list(generate_snapshot(files, seed))


def demo(options: DemoOptions, on_phase: Callable[[str], None] | None = None) -> DemoResult:
    """Generate/load, serve, crawl over HTTP, process + classify; returns the counts for the report (under the
    corpus lock throughout, see aac.core.corpus_lock)."""
    from aac.core.corpus_lock import corpus_lock

    with corpus_lock(options.corpus, "aac demo"):
        return _demo(options, on_phase)


def _demo(options: DemoOptions, on_phase: Callable[[str], None] | None) -> DemoResult:
    from aac.collectors.collect import run_github_crawl
    from aac.collectors.emulator import EmulatorServer
    from aac.core.store import Corpus
    from aac.processing.pipeline import run

    corpus = Corpus(options.corpus)
    say = on_phase or (lambda _msg: None)
    t: dict[str, float] = {}
    t0 = time.perf_counter()
    say("snapshot")
    records = _records(options.snapshot, options.files, options.seed)
    t["snapshot"] = time.perf_counter() - t0
    say("crawl")
    t0 = time.perf_counter()
    with EmulatorServer(records, profile=options.profile, seed=options.seed) as server:
        summary = run_github_crawl(corpus, server.url, ["demo-token"], clock=server.clock)
    t["crawl"] = time.perf_counter() - t0
    say("process + classify")
    t0 = time.perf_counter()
    report = run(corpus, ProcessOptions(corpus.root, workers=options.workers).config())
    t["process"] = time.perf_counter() - t0
    platforms = corpus.sql("select platform, status, count(*) as n from artifacts group by all order by all").to_pylist()
    types = corpus.sql("select type, count(*) as n from publishable_items group by type order by type").to_pylist()
    return DemoResult(len(records), summary.line(), report, t, platforms, types)
