"""Prefect flow ``crawl``: the crawl job (:func:`aac.jobs.crawl.crawl`) with one retried task per platform.

The flow owns retries and reporting only. A retried task resumes from the corpus frontier (completed
partitions are not searched again), and tasks share what the crawl learned (loss model, size prior) through
the stored ``crawl_queries`` rows. Tokens are read from the environment inside the task, never passed as
parameters, so they never reach Prefect's parameter or result storage. The parameters are the fields of
:class:`~aac.jobs.crawl.CrawlOptions`.
"""

from __future__ import annotations

from prefect import flow, task
from prefect.artifacts import create_table_artifact

from aac.jobs.crawl import CrawlOptions, CrawlStages, platform_stage
from aac.jobs.crawl import crawl as crawl_job
from aac.jobs.options import takes_fields_of


@task(retries=2, retry_delay_seconds=[5, 30], task_run_name="crawl-{platform}")
def crawl_platform(options: CrawlOptions, api_url: str, platform: str) -> dict:
    return platform_stage(options, api_url, platform)


def summary_rows(rows: list[dict]) -> list[dict]:
    """The ``crawl-summary`` artifact: per platform, files and API usage."""
    return [{"platform": r["platform"], "files": r["files"], "partitions": r["partitions"],
             "search_requests": r["search_requests"], "core_requests": r["core_requests"],
             "graphql_requests": r["graphql_requests"], "raw_requests": r["raw_requests"],
             "not_modified": r["not_modified"], "rate_limit_waits": r["rate_limit_waits"],
             "waited_hours": round(r["waited_seconds"] / 3600, 3)} for r in rows]


@flow(name="crawl", log_prints=True)
@takes_fields_of(CrawlOptions, document=True)
def crawl(options: CrawlOptions) -> list[dict]:
    """Crawl every (or the chosen) platform, a task each; publishes a table artifact of per-platform counts and
    API usage and returns those rows (``local``: one row, the files collected)."""
    report = crawl_job(options, stages=CrawlStages(platform=crawl_platform))
    if report.local_files is not None:
        return report.rows
    create_table_artifact(key="crawl-summary", table=summary_rows(report.rows),
                          description=f"AAC crawl of {report.source}: files and API usage per platform")
    return report.rows
