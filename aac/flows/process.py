"""Prefect flow ``process``: the processing pass as one retried task, with its stage and step tables as Prefect artifacts.

Thin on purpose: the job is :func:`aac.jobs.process.process`; the flow owns retries and reporting.
The task is idempotent (a re-run recomputes the same tables from ``raw_artifacts``), so a retry is safe.
"""

from __future__ import annotations

from prefect import flow, task
from prefect.artifacts import create_table_artifact

from aac.jobs.process import ProcessOptions
from aac.jobs.process import process as process_job


def step_count_rows(report: dict) -> list[dict]:
    """The ``process-step-counts`` artifact: per processing step, what it did this run."""
    return [{"step": c["name"], "rows": c["rows"], "dropped": c["dropped"], "errors": c["errors"],
             "seconds": round(c["seconds"], 2)} for c in report["step_counts"]]


@task(retries=2, retry_delay_seconds=[5, 30])
def process_corpus(corpus: str, keep_private: bool, near_threshold: float, allow: str | None,
                   template_min_repos: int, workers: int, full: bool = False, classifier: str = "default") -> dict:
    options = ProcessOptions(corpus, keep_private, near_threshold, allow, template_min_repos, workers, full, classifier)
    return process_job(options).to_dict()


@flow(name="process", log_prints=True)
def process(corpus: str = "data", keep_private: bool = False, near_threshold: float = 0.85, allow: str | None = None,
            template_min_repos: int = 3, workers: int = 1, full: bool = False, classifier: str = "default") -> dict:
    """Normalise, dedupe, licence-filter, redact, tag and itemise the crawled artifacts; publishes a step table."""
    out = process_corpus(corpus, keep_private, near_threshold, allow, template_min_repos, workers, full, classifier)
    create_table_artifact(key="process-steps", table=[
        {"step": s["name"], "rows": s["rows"], "seconds": round(s["seconds"], 2), "peak_rss_mb": round(s["peak_rss_mb"])}
        for s in out["steps"]], description=f"AAC process of {corpus}: rows, time and peak memory per stage")
    create_table_artifact(key="process-step-counts", table=step_count_rows(out),
                          description=f"AAC process of {corpus}: per processing step, rows run, dropped, failed, seconds")
    print(f"process: {out['artifacts']} artifacts, {out['kept']} kept, {out['private']} private, "
          f"{out['dropped']} dropped, {out['items']} items ({out['items_retyped']} artifacts' items re-typed: "
          f"classifier changed)")
    return out
