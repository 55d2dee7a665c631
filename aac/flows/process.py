"""Prefect flow ``process``: the processing pass with each stage its own retried task (a retry redoes that stage
only), its stage and step tables as Prefect artifacts; its parameters are the fields of
:class:`~aac.jobs.process.ProcessOptions`.

Thin on purpose: the job is :func:`aac.jobs.process.process`, which holds the corpus lock over every stage and
calls them in order; the flow only wraps each stage of :class:`~aac.processing.stages.ProcessStages` in a task.
A stage reads what the earlier ones left on disk and returns a new report (it never changes the one it got), so
running it again gives the same tables and counts nothing twice.
"""

from __future__ import annotations

from dataclasses import fields

from prefect import flow, task
from prefect.artifacts import create_table_artifact
from prefect.cache_policies import NO_CACHE

from aac.jobs.options import takes_fields_of
from aac.jobs.process import ProcessOptions
from aac.jobs.process import process as process_job
from aac.processing.stages import ProcessStages

RETRIES = 2
RETRY_DELAYS = (5, 30)


def step_count_rows(report: dict) -> list[dict]:
    """The ``process-step-counts`` artifact: per processing step, what it did this run."""
    return [{"step": c["name"], "rows": c["rows"], "dropped": c["dropped"], "errors": c["errors"],
             "seconds": round(c["seconds"], 2)} for c in report["step_counts"]]


def stage_tasks(stages: ProcessStages = ProcessStages(), retries: int = RETRIES,
                retry_delay_seconds: tuple[float, ...] = RETRY_DELAYS) -> ProcessStages:
    """``stages``, each as a Prefect task named ``process-<stage>`` retried ``retries`` times. Never cached: a
    stage writes the corpus, and its inputs (the corpus folder) are the same objects whatever it holds."""
    return ProcessStages(**{
        f.name: task(getattr(stages, f.name), name=f"process-{f.name.replace('_', '-')}", retries=retries,
                     retry_delay_seconds=list(retry_delay_seconds), cache_policy=NO_CACHE)
        for f in fields(ProcessStages)})


def process_with(options: ProcessOptions, stages: ProcessStages) -> dict:
    """The flow's body: the job over ``stages`` (Prefect tasks), then the report as Prefect artifacts."""
    out = process_job(options, stages=stages).to_dict()
    corpus = options.corpus
    create_table_artifact(key="process-steps", table=[
        {"step": s["name"], "rows": s["rows"], "seconds": round(s["seconds"], 2), "peak_rss_mb": round(s["peak_rss_mb"])}
        for s in out["steps"]], description=f"AAC process of {corpus}: rows, time and peak memory per stage")
    create_table_artifact(key="process-step-counts", table=step_count_rows(out),
                          description=f"AAC process of {corpus}: per processing step, rows run, dropped, failed, seconds")
    print(f"process: {out['artifacts']} artifacts, {out['kept']} kept, {out['private']} private, "
          f"{out['dropped']} dropped, {out['items']} items ({out['items_retyped']} artifacts' items re-typed: "
          f"classifier changed)")
    return out


@flow(name="process", log_prints=True)
@takes_fields_of(ProcessOptions, document=True)
def process(options: ProcessOptions) -> dict:
    """Normalise, dedupe, licence-filter, redact, tag and itemise the crawled artifacts, one retried task per
    stage; publishes a step table."""
    return process_with(options, stage_tasks())
