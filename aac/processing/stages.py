"""The stages of one processing run, each a function of what the earlier stages left on disk.

A stage takes ``(corpus, cfg, report)`` and returns a new report with its own figures added (it never changes
the one it was given), so any one stage can be run again alone (a Prefect task retry) with the same result:

1. :func:`stage_raw` — the crawler's new rows merged into ``raw_artifacts``.
2. :func:`pass1` — the row steps over the raw rows whose input or step list changed (stored rows of the others
   reused), written as part files to the run's staging folder (:func:`stage_dir`), which it empties first.
3. :func:`corpus_steps` — the corpus steps observe every staged part, decide once, and write each part as they
   rewrite it to ``stage_dir/decided``.
4. :func:`write_artifacts` — ``artifacts`` replaced by the decided parts, content of dropped (and private) rows
   gone. The record of which items ``items`` holds is saved to the staging folder first, and distrusted in the
   corpus until :func:`record` is done (:func:`aac.processing.item_record.begin_rewrite`): a run that stops in
   between leaves the next run to make its items again, never to trust a stale record.
5. :func:`items` — ``items`` derived from the new ``artifacts`` (reusing what the saved record allows); the new
   record saved to the staging folder.
6. :func:`record` — ``process_stage`` (pass 1's rows plus the record) replaced, the record trusted again, the
   staging folder removed, the catalog refreshed.

The staging folder lives as long as one run, which holds the corpus lock over all its stages
(:func:`aac.processing.pipeline.run`); a new run's lock removes what a killed one left.
"""

from __future__ import annotations

import copy
import shutil
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, fields
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from aac.core.schema import ARTIFACTS
from aac.core.store import Corpus
from aac.processing import item_record, staging, steps
from aac.processing.config import ProcessConfig
from aac.processing.executor import RowExecutor, StepCount, run_batch
from aac.processing.report import ProcessReport, StepStat
from aac.processing.steps.items import Itemise
from aac.processing.workers import ordered_map

Stage = Callable[[Corpus, ProcessConfig, ProcessReport], ProcessReport]

_DECIDED = "decided"
_RECORD_BEFORE = "items-record-before.parquet"  # which items ``items`` held when the run began
_RECORD_AFTER = "items-record-after.parquet"  # which items the run's items stage made


def stage_dir(corpus: Corpus) -> Path:
    """The run's staging folder (a fixed name: :meth:`aac.core.store.Corpus.remove_stale_temps` knows it)."""
    return corpus.root / "tmp" / "process-stage"


def row_executor(cfg: ProcessConfig) -> RowExecutor:
    """Pass 1 of a run with ``cfg``: the registered row steps, read now (a step registered later counts next run)."""
    return RowExecutor(list(steps.ROW_STEPS), cfg)


def processing_code(cfg: ProcessConfig, before: dict | None = None) -> dict:
    """What the stored rows of a run with ``cfg`` depend on besides their inputs: pass 1's step fingerprints,
    and the items step's (carried over from ``before`` when this run makes no items)."""
    items_fp = Itemise.from_config(cfg).fingerprint() if cfg.items else (before or {}).get("items")
    return {"stage": row_executor(cfg).fingerprint(), "items": items_fp}


def _peak_rss_mb() -> float:
    """Peak resident memory so far of this process and of its (finished) worker processes, in MiB."""
    import resource

    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return max(own, children) / 1024


def _parts(folder: Path) -> Iterator[pa.Table]:
    for part in sorted(folder.glob("part-*.parquet")):
        yield pq.read_table(part)


def _dropped(t: pa.Table) -> int:
    return pc.sum(pc.fill_null(pc.equal(t.column("status"), "dropped"), False).cast(pa.int64())).as_py() or 0


def _timed(report: ProcessReport, name: str, t0: float, rows: int) -> None:
    report.steps.append(StepStat(name, rows, time.perf_counter() - t0, _peak_rss_mb()))


def stage_raw(corpus: Corpus, cfg: ProcessConfig, report: ProcessReport) -> ProcessReport:
    """The crawler's new rows in ``artifacts`` merged into ``raw_artifacts`` (new rows win)."""
    report, t0 = copy.deepcopy(report), time.perf_counter()
    _timed(report, "stage", t0, staging.stage_raw(corpus))
    return report


def pass1(corpus: Corpus, cfg: ProcessConfig, report: ProcessReport) -> ProcessReport:
    """The row steps over what changed, the stored rows of the rest: part files in an emptied staging folder."""
    report, t0 = copy.deepcopy(report), time.perf_counter()
    folder = stage_dir(corpus)
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    executor = row_executor(cfg)
    counts = [StepCount(s.name) for s in executor.step_types]
    repos = staging.repos_lookup(corpus)
    reuse: set[str] = set()
    batches = staging.changed_batches(corpus, executor, cfg.batch_size, repos,
                                      staging.stored_keys(corpus, cfg.incremental), reuse)
    i = 0
    for tbl, batch_counts in ordered_map(run_batch, batches, cfg.workers):
        staging.write_part(folder / f"part-{i:06d}.parquet", tbl)
        i += 1
        for total, part in zip(counts, batch_counts):
            total.add(part)
        report.processed += tbl.num_rows
    for tbl in staging.reused_batches(corpus, reuse, repos):
        staging.write_part(folder / f"part-{i:06d}.parquet", tbl)
        i += 1
        report.reused += tbl.num_rows
    report.step_counts += counts
    _timed(report, "pass 1: " + "+".join(s.name for s in executor.step_types), t0, report.processed + report.reused)
    return report


def corpus_steps(corpus: Corpus, cfg: ProcessConfig, report: ProcessReport) -> ProcessReport:
    """The corpus steps (dedupe, template authorship): observe every staged part, decide once, then rewrite each
    part into ``decided/`` (the staged parts stay as they are: ``process_stage`` is made from them)."""
    report, t0 = copy.deepcopy(report), time.perf_counter()
    folder = stage_dir(corpus)
    decided = folder / _DECIDED
    shutil.rmtree(decided, ignore_errors=True)
    decided.mkdir()
    chosen = [s.from_config(cfg) for s in steps.CORPUS_STEPS]
    counts = [StepCount(s.name) for s in chosen]
    observing = [(s, c) for s, c in zip(chosen, counts) if s.observes != ()]
    wanted = None if any(s.observes is None for s, _ in observing) else sorted({n for s, _ in observing
                                                                                for n in s.observes})
    for part in sorted(folder.glob("part-*.parquet")) if observing else []:
        t = pq.read_table(part, columns=wanted)
        for step, count in observing:
            t1 = time.perf_counter()
            step.observe(t)
            count.seconds += time.perf_counter() - t1
    for step, count in zip(chosen, counts):
        t1 = time.perf_counter()
        count.rows = step.decide()
        count.seconds += time.perf_counter() - t1
    for part in sorted(folder.glob("part-*.parquet")):
        t = pq.read_table(part)
        for step, count in zip(chosen, counts):
            t1, before = time.perf_counter(), _dropped(t)
            t = step.apply(t)
            count.seconds += time.perf_counter() - t1
            count.dropped += _dropped(t) - before
        staging.write_part(decided / part.name, t)
    report.step_counts += counts
    _timed(report, "corpus steps: " + "+".join(s.name for s in chosen), t0, max((c.rows for c in counts), default=0))
    return report


def _final(tables: Iterator[pa.Table], cfg: ProcessConfig, report: ProcessReport) -> Iterator[pa.Table]:
    """The decided parts as ``artifacts`` rows: content of dropped rows (and of private ones, unless
    ``keep_private``) removed, statuses and drop reasons counted into ``report``."""
    for t in tables:
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


def write_artifacts(corpus: Corpus, cfg: ProcessConfig, report: ProcessReport) -> ProcessReport:
    """``artifacts`` replaced by the decided parts; the items record saved first, then distrusted in the corpus."""
    report, t0 = copy.deepcopy(report), time.perf_counter()
    folder = stage_dir(corpus)
    saved = folder / _RECORD_BEFORE
    if not saved.exists():  # a retry keeps what the first attempt read, before it distrusted the record
        item_record.save(item_record.stored(corpus), saved)
    item_record.begin_rewrite(corpus)
    corpus.replace("artifacts", _final(_parts(folder / _DECIDED), cfg, report))
    _timed(report, "write artifacts", t0, report.artifacts)
    return report


def items(corpus: Corpus, cfg: ProcessConfig, report: ProcessReport) -> ProcessReport:
    """``items`` segmented and typed from the new ``artifacts``, reusing what the record saved at the start of the
    run allows (everything is made again with ``incremental=False``); the new record saved for :func:`record`."""
    report, t0 = copy.deepcopy(report), time.perf_counter()
    folder = stage_dir(corpus)
    itemise = Itemise.from_config(cfg)
    outcome = itemise.run(corpus, item_record.load(folder / _RECORD_BEFORE) if cfg.incremental else {})
    item_record.save({a: (k, outcome.classifier) for a, k in outcome.typed.items()}, folder / _RECORD_AFTER)
    report.items = outcome.items
    report.items_reused, report.items_retyped = outcome.reused, outcome.retyped
    report.items_itemised, report.item_rows_retyped = outcome.itemised, outcome.rows_retyped
    report.classifier = outcome.classifier
    _timed(report, "items+classify", t0, outcome.items)
    report.step_counts.append(StepCount(itemise.name, outcome.itemised + outcome.retyped + outcome.reused,
                                        seconds=report.steps[-1].seconds))
    return report


def record(corpus: Corpus, cfg: ProcessConfig, report: ProcessReport) -> ProcessReport:
    """``process_stage`` replaced by pass 1's rows with the items record (this run's, or the one it began with
    when it made no items: ``items`` is then untouched), the record trusted again, the staging folder removed."""
    report = copy.deepcopy(report)
    folder = stage_dir(corpus)
    held = item_record.load(folder / (_RECORD_AFTER if cfg.items else _RECORD_BEFORE))
    code = processing_code(cfg, item_record.recorded_code(corpus))
    corpus.replace("process_stage", item_record.with_record(_parts(folder), held))
    item_record.finish_rewrite(corpus, code)
    shutil.rmtree(folder, ignore_errors=True)
    corpus.refresh_catalog()
    return report


@dataclass(frozen=True)
class ProcessStages:
    """The stages in their order; the ``process`` flow swaps in retried Prefect tasks, the CLI keeps these."""

    stage_raw: Stage = stage_raw
    pass1: Stage = pass1
    corpus_steps: Stage = corpus_steps
    write_artifacts: Stage = write_artifacts
    items: Stage = items
    record: Stage = record

    def in_order(self, cfg: ProcessConfig) -> list[tuple[str, Stage]]:
        """(name, stage) of the stages a run with ``cfg`` runs, in order (no items stage when ``cfg.items`` is
        off: ``items`` and its record are then left as they are)."""
        return [(f.name, getattr(self, f.name)) for f in fields(self) if cfg.items or f.name != "items"]
