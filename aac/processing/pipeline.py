"""One ``process`` run: the stages in order, over the artifacts table, batch-wise so memory stays bounded.

1. **stage** — the crawler's new rows are merged into ``raw_artifacts`` (:mod:`aac.processing.staging`).
2. **pass 1** — the row steps (:data:`aac.processing.steps.ROW_STEPS`: platform, normalize, agent_file, license,
   tags, content_hash, redact, minhash) run over the raw rows whose input or step list changed, in worker
   processes (:mod:`aac.processing.executor`); the stored stage rows of the others are reused. Batches go to a
   staging folder.
3. **corpus steps** — :data:`aac.processing.steps.CORPUS_STEPS` (dedupe, template authorship) observe every
   staged batch, decide once, then rewrite each batch on its way into ``artifacts`` (atomically replaced); the
   content of duplicates (and of private files, unless ``keep_private``) is gone.
4. **items** — :class:`aac.processing.steps.items.Itemise` derives ``items`` from the finished ``artifacts``,
   reusing or re-typing what the previous run made; ``process_stage`` records which items it holds.

**Incremental** (default): pass 1's row per artifact is kept in ``process_stage`` with a key over its input and
the fingerprint of every row step (name, version, parameters, code digest) and the executor's code, so a new,
edited or removed step, or a changed setting, re-runs the stored rows on the next run without ``--full``; the
items' key holds the items step's fingerprint (the segmentation code), and the classifier that typed them is
tracked by its own. ``ProcessConfig(incremental=False)`` (``aac process --full``) recomputes everything.

Statuses: ``kept`` (publishable), ``private`` (licence not permissive: content only with ``keep_private``),
``dropped`` (:class:`aac.core.drop_reasons.DropReason`), ``removed`` (gone upstream).
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Iterator
from typing import TypeVar
from dataclasses import asdict, dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from aac.classifiers.base import fingerprint_of
from aac.core.schema import ARTIFACTS
from aac.core.store import Corpus
from aac.processing import item_record, staging, steps
from aac.processing.config import ProcessConfig
from aac.processing.executor import RowExecutor, StepCount, run_batch
from aac.processing.steps.base import CorpusStep
from aac.processing.steps.items import Itemise
from aac.processing.workers import ordered_map

T = TypeVar("T")
__all__ = ["ProcessConfig", "ProcessReport", "StepStat", "awaiting_processing", "processing_code",
           "processing_outdated", "run"]


@dataclass
class StepStat:
    name: str
    rows: int = 0
    seconds: float = 0.0
    peak_rss_mb: float = 0.0


@dataclass
class ProcessReport:
    processed: int = 0  # raw rows run through the row steps this run
    reused: int = 0  # raw rows whose stored pass-1 row and signature were reused
    items_reused: int = 0  # artifacts whose items were kept from the previous run
    items_retyped: int = 0  # artifacts whose stored items were re-typed: the classifier's fingerprint changed
    item_rows_retyped: int = 0  # the item rows of those artifacts
    items_itemised: int = 0  # artifacts segmented and classified this run
    classifier: str | None = None  # fingerprint of the classifier that typed the items (None: it has none)
    artifacts: int = 0
    kept: int = 0
    private: int = 0
    dropped: int = 0
    items: int = 0
    drop_reasons: dict[str, int] = field(default_factory=dict)
    steps: list[StepStat] = field(default_factory=list)  # the stages: rows, time and peak memory
    step_counts: list[StepCount] = field(default_factory=list)  # each row and corpus step: rows, drops, errors, time

    def to_dict(self) -> dict:
        """Plain JSON-able dict (steps as dicts): what the ``process`` flow returns and the refresh report holds."""
        return asdict(self)


def row_executor(cfg: ProcessConfig) -> RowExecutor:
    """Pass 1 of a run with ``cfg``: the registered row steps, read now (a step registered later counts next run)."""
    return RowExecutor(list(steps.ROW_STEPS), cfg)


def processing_code(cfg: ProcessConfig, before: dict | None = None) -> dict:
    """What the stored rows of a run with ``cfg`` depend on besides their inputs: pass 1's step fingerprints,
    and the items step's (carried over from ``before`` when this run makes no items)."""
    items = Itemise.from_config(cfg).fingerprint() if cfg.items else (before or {}).get("items")
    return {"stage": row_executor(cfg).fingerprint(), "items": items}


def awaiting_processing(corpus: Corpus) -> int:
    """Artifacts a merge or crawl stored as ``collected`` that no processing run has judged yet (a refresh killed
    or failed after its merge leaves them; publishing holds them back until processed)."""
    if not corpus.exists("artifacts"):
        return 0
    return corpus.sql("SELECT count(*) AS n FROM artifacts WHERE status = 'collected'").to_pylist()[0]["n"]


def processing_outdated(corpus: Corpus, cfg: ProcessConfig = ProcessConfig()) -> bool:
    """Whether a run has work although no input changed since the last refresh: artifacts still wait as
    ``collected`` (an earlier run stopped after its merge), the classifier or its model changed (items re-typed),
    or a step did (its code, settings, or the step list: pass 1 or segmentation redone). Else False, and False
    before any run."""
    from aac.processing.items import resolve_classifier

    if awaiting_processing(corpus):
        return True
    if not corpus.exists("process_stage"):
        return False
    if cfg.items and item_record.types_outdated(corpus, fingerprint_of(resolve_classifier(cfg.classifier))):
        return True
    before = item_record.recorded_code(corpus)
    return before != processing_code(cfg, before)


def _peak_rss_mb() -> float:
    """Peak resident memory so far of this process and of its (finished) worker processes, in MiB."""
    import resource

    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return max(own, children) / 1024


def _staged(stage_dir: Path) -> Iterator[pa.Table]:
    for part in sorted(stage_dir.glob("part-*.parquet")):
        yield pq.read_table(part)


def _dropped(t: pa.Table) -> int:
    return pc.sum(pc.fill_null(pc.equal(t.column("status"), "dropped"), False).cast(pa.int64())).as_py() or 0


def _final_batches(stage_dir: Path, corpus_steps: list[CorpusStep], counts: list[StepCount], cfg: ProcessConfig,
                   report: ProcessReport) -> Iterator[pa.Table]:
    """The artifacts table: each staged part through the corpus steps, then the content of dropped rows (and of
    private ones, unless ``keep_private``) removed, counted into ``report``."""
    for t in _staged(stage_dir):
        for step, count in zip(corpus_steps, counts):
            t0, before = time.perf_counter(), _dropped(t)
            t = step.apply(t)
            count.seconds += time.perf_counter() - t0
            count.dropped += _dropped(t) - before
        status = t.column("status")
        gone = pc.equal(status, "dropped") if cfg.keep_private else pc.is_in(status, pa.array(["dropped", "private"]))
        content = pc.if_else(pc.fill_null(gone, False), pa.scalar(None, t.schema.field("content").type),
                             t.column("content"))
        t = t.set_column(t.schema.get_field_index("content"), "content", content)
        report.artifacts += t.num_rows
        for value in pc.value_counts(t.column("status")).to_pylist():
            if value["values"] in ("kept", "private", "dropped"):
                setattr(report, value["values"], getattr(report, value["values"]) + value["counts"])
        reasons = t.column("drop_reason").filter(pc.fill_null(pc.not_equal(t.column("status"), "kept"), True))
        for value in pc.value_counts(reasons.filter(pc.fill_null(pc.not_equal(reasons, ""), False))).to_pylist():
            report.drop_reasons[value["values"]] = report.drop_reasons.get(value["values"], 0) + value["counts"]
        yield t.select(ARTIFACTS.names).cast(ARTIFACTS)


def run(corpus: Corpus, cfg: ProcessConfig = ProcessConfig(),
        on_step: Callable[[StepStat], None] | None = None) -> ProcessReport:
    """The whole processing pass; atomic per table and idempotent (a re-run yields identical tables). Holds the
    corpus lock (:mod:`aac.core.corpus_lock`): a second run on the same corpus waits, then refuses."""
    from aac.core.corpus_lock import corpus_lock

    with corpus_lock(corpus.root, "aac process"):
        return _run(corpus, cfg, on_step)


def _run(corpus: Corpus, cfg: ProcessConfig, on_step: Callable[[StepStat], None] | None) -> ProcessReport:
    report = ProcessReport()

    def stage(name: str, fn: Callable[[], T], rows: Callable[[T], int] = int) -> T:
        t0 = time.perf_counter()
        result = fn()
        stat = StepStat(name, rows(result), time.perf_counter() - t0, _peak_rss_mb())
        report.steps.append(stat)
        if on_step:
            on_step(stat)
        return result

    stage("stage", lambda: staging.stage_raw(corpus))
    stage_dir = corpus.root / "tmp" / "process-stage"
    shutil.rmtree(stage_dir, ignore_errors=True)
    stage_dir.mkdir(parents=True)
    executor = row_executor(cfg)
    row_counts = [StepCount(s.name) for s in executor.step_types]
    corpus_steps = [s.from_config(cfg) for s in steps.CORPUS_STEPS]
    corpus_counts = [StepCount(s.name) for s in corpus_steps]
    report.step_counts = row_counts + corpus_counts

    def keep(i: int, tbl: pa.Table) -> None:
        staging.write_part(stage_dir / f"part-{i:06d}.parquet", tbl)
        for step, count in zip(corpus_steps, corpus_counts):
            t0 = time.perf_counter()
            step.observe(tbl)
            count.seconds += time.perf_counter() - t0

    def pass1() -> int:
        repos = staging.repos_lookup(corpus)
        reuse: set[str] = set()
        batches = staging.changed_batches(corpus, executor, cfg.batch_size, repos,
                                          staging.stored_keys(corpus, cfg.incremental), reuse)
        i = 0
        for tbl, batch_counts in ordered_map(run_batch, batches, cfg.workers):
            keep(i, tbl)
            i += 1
            for total, part in zip(row_counts, batch_counts):
                total.add(part)
            report.processed += tbl.num_rows
        for tbl in staging.reused_batches(corpus, reuse, repos):
            keep(i, tbl)
            i += 1
            report.reused += tbl.num_rows
        return report.processed + report.reused

    stage("pass 1: " + "+".join(s.name for s in executor.step_types), pass1)

    def decide() -> int:
        rows = 0
        for step, count in zip(corpus_steps, corpus_counts):
            t0 = time.perf_counter()
            count.rows = step.decide()
            count.seconds += time.perf_counter() - t0
            rows = max(rows, count.rows)
        return rows

    stage("corpus steps: " + "+".join(s.name for s in corpus_steps), decide)
    record = item_record.stored(corpus)  # which items ``items`` holds: read before either table is rewritten
    stage("write artifacts", lambda: corpus.replace(
        "artifacts", _final_batches(stage_dir, corpus_steps, corpus_counts, cfg, report)))
    code = processing_code(cfg, item_record.recorded_code(corpus))
    with item_record.rewriting_items(corpus, code=code):  # the record is distrusted until both tables are written
        if cfg.items:
            itemise = Itemise.from_config(cfg)
            outcome = stage("items+classify", lambda: itemise.run(corpus, record if cfg.incremental else {}),
                            rows=lambda o: o.items)
            report.items = outcome.items
            report.items_reused, report.items_retyped = outcome.reused, outcome.retyped
            report.items_itemised, report.item_rows_retyped = outcome.itemised, outcome.rows_retyped
            report.classifier = outcome.classifier
            report.step_counts.append(StepCount(itemise.name, outcome.itemised + outcome.retyped + outcome.reused,
                                                seconds=report.steps[-1].seconds))
            record = {a: (k, outcome.classifier) for a, k in outcome.typed.items()}
        # without items this run, ``items`` is untouched and its (trusted) record carries over
        corpus.replace("process_stage", item_record.with_record(_staged(stage_dir), record))
    shutil.rmtree(stage_dir, ignore_errors=True)
    corpus.refresh_catalog()
    return report
