"""One ``process`` run: the stages of :mod:`aac.processing.stages` in order, under the corpus lock, batch-wise so
memory stays bounded.

1. **stage** — the crawler's new rows are merged into ``raw_artifacts`` (:mod:`aac.processing.staging`).
2. **pass 1** — the row steps (:data:`aac.processing.steps.ROW_STEPS`: platform, normalize, agent_file, license,
   tags, content_hash, redact, minhash) run over the raw rows whose input or step list changed, in worker
   processes (:mod:`aac.processing.executor`); the stored stage rows of the others are reused. Batches go to a
   staging folder.
3. **corpus steps** — :data:`aac.processing.steps.CORPUS_STEPS` (dedupe, template authorship) observe every
   staged batch, decide once, then rewrite each batch (to the staging folder).
4. **write artifacts** — the rewritten batches replace ``artifacts`` (atomically); the content of duplicates (and
   of private files, unless ``keep_private``) is gone.
5. **items** — :class:`aac.processing.steps.items.Itemise` derives ``items`` from the finished ``artifacts``,
   reusing or re-typing what the previous run made.
6. **record** — ``process_stage`` records pass 1's rows and which items ``items`` holds; the catalog is refreshed.

Each stage reads what the earlier ones left on disk, so the ``process`` flow runs each as its own retried task
(:class:`aac.processing.stages.ProcessStages`); ``aac process`` runs them as plain calls in one process.

**Incremental** (default): pass 1's row per artifact is kept in ``process_stage`` with a key over its input and
the fingerprint of every row step (name, version, parameters, code digest) and the executor's code, so a new,
edited or removed step, or a changed setting, re-runs the stored rows on the next run without ``--full``; the
items' key holds the items step's fingerprint (the segmentation code), and the classifier that typed them is
tracked by its own. ``ProcessConfig(incremental=False)`` (``aac process --full``) recomputes everything.

Statuses: ``kept`` (publishable), ``private`` (licence not permissive: content only with ``keep_private``),
``dropped`` (:class:`aac.core.drop_reasons.DropReason`), ``removed`` (gone upstream).
"""

from __future__ import annotations

from collections.abc import Callable

from aac.classifiers.base import fingerprint_of
from aac.core.store import Corpus
from aac.processing import item_record
from aac.processing.config import ProcessConfig
from aac.processing.report import ProcessReport, StepStat
from aac.processing.stages import ProcessStages, processing_code, row_executor

__all__ = ["ProcessConfig", "ProcessReport", "ProcessStages", "StepStat", "awaiting_processing", "processing_code",
           "processing_outdated", "row_executor", "run"]


def awaiting_processing(corpus: Corpus) -> int:
    """Artifacts a merge or crawl stored as ``collected`` that no processing run has judged yet (a refresh killed
    or failed after its merge leaves them; publishing holds them back until processed)."""
    if not corpus.exists("artifacts"):
        return 0
    return corpus.sql("SELECT count(*) AS n FROM artifacts WHERE status = 'collected'").to_pylist()[0]["n"]


def processing_outdated(corpus: Corpus, cfg: ProcessConfig = ProcessConfig()) -> bool:
    """Whether a run has work although no input changed since the last refresh: artifacts still wait as
    ``collected`` (an earlier run stopped after its merge), a run stopped between its stages (its items record is
    distrusted), the classifier or its model changed (items re-typed), or a step did (its code, settings, or the
    step list: pass 1 or segmentation redone). Else False, and False before any run."""
    from aac.processing.items import resolve_classifier

    if awaiting_processing(corpus) or item_record.unfinished(corpus):  # a run stopped between its stages
        return True
    if not corpus.exists("process_stage"):
        return False
    if cfg.items and item_record.types_outdated(corpus, fingerprint_of(resolve_classifier(cfg.classifier))):
        return True
    before = item_record.recorded_code(corpus)
    return before != processing_code(cfg, before)


def run(corpus: Corpus, cfg: ProcessConfig = ProcessConfig(), on_step: Callable[[StepStat], None] | None = None,
        stages: ProcessStages = ProcessStages()) -> ProcessReport:
    """The whole processing pass, ``stages`` in order; atomic per table and idempotent (a re-run yields identical
    tables). Holds the corpus lock (:mod:`aac.core.corpus_lock`) over every stage: a second run on the same corpus
    waits, then refuses, and the staging folder the stages share is nobody else's. ``on_step`` hears each stage's
    figures as it ends."""
    from aac.core.corpus_lock import corpus_lock

    report = ProcessReport()
    with corpus_lock(corpus.root, "aac process"):
        for _, stage in stages.in_order(cfg):
            seen = len(report.steps)
            report = stage(corpus, cfg, report)
            for stat in report.steps[seen:]:
                if on_step:
                    on_step(stat)
    return report
