"""Prefect flow ``process``: the processing pass as one retried task, with its stage and step tables as Prefect
artifacts; its parameters are the fields of :class:`~aac.jobs.process.ProcessOptions`.

Thin on purpose: the job is :func:`aac.jobs.process.process`; the flow owns retries and reporting.
The task is idempotent (a re-run recomputes the same tables from ``raw_artifacts``), so a retry is safe.
"""

from __future__ import annotations

from prefect import flow, task
from prefect.artifacts import create_table_artifact

from aac.jobs.process import ProcessOptions
from aac.jobs.process import process as process_job
from aac.jobs.options import takes_fields_of


def step_count_rows(report: dict) -> list[dict]:
    """The ``process-step-counts`` artifact: per processing step, what it did this run."""
    return [{"step": c["name"], "rows": c["rows"], "dropped": c["dropped"], "errors": c["errors"],
             "seconds": round(c["seconds"], 2)} for c in report["step_counts"]]


@task(retries=2, retry_delay_seconds=[5, 30])
def process_corpus(options: ProcessOptions) -> dict:
    return process_job(options).to_dict()


@flow(name="process", log_prints=True)
@takes_fields_of(ProcessOptions, document=True)
def process(options: ProcessOptions) -> dict:
    """Normalise, dedupe, licence-filter, redact, tag and itemise the crawled artifacts; publishes a step table."""
    out = process_corpus(options)
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
