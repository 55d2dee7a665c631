"""Prefect flow ``crawl``: one task per platform over the resumable crawl steps in ``aac.collectors.collect``.

The flow owns retries and reporting only. A retried task resumes from the corpus frontier (completed
partitions are not searched again), and tasks share what the crawl learned (loss model, size prior) through
the stored ``crawl_queries`` rows. Tokens are read from the environment inside the task, never passed as
parameters, so they never reach Prefect's parameter or result storage.
"""

from __future__ import annotations

from dataclasses import asdict

from prefect import flow, task
from prefect.artifacts import create_table_artifact

from aac.core import platforms as registry
from aac.collectors.collect import run_github_crawl
from aac.core.config import Settings
from aac.core.store import Corpus


@task(retries=2, retry_delay_seconds=[5, 30], task_run_name="crawl-{platform}")
def crawl_platform(corpus: str, api_url: str, platform: str, previous: str | None = None,
                   fetch_workers: int | None = None, graphql_batch: int | None = None) -> dict:
    settings = Settings.from_env()
    summary = run_github_crawl(Corpus(corpus), api_url, settings.github_tokens, [platform],
                               previous=Corpus(previous) if previous else None,
                               fetch_workers=fetch_workers or settings.fetch_workers, graphql_batch=graphql_batch)
    out = asdict(summary)
    out["platform"] = platform
    out["files"] = summary.platforms.get(platform, 0)
    out.pop("platforms")
    return out


@flow(name="crawl", log_prints=True)
def crawl(api_url: str = "https://api.github.com", corpus: str = "data", platforms: list[str] | None = None,
          previous: str | None = None, fetch_workers: int | None = None,
          graphql_batch: int | None = None) -> list[dict]:
    """Crawl every (or the chosen) platform; publishes a table artifact of per-platform counts and API usage.
    ``previous``: the corpus a refresh learns from (frontier seeds, conditional-request validators, content of
    unchanged files). ``fetch_workers``: parallel raw downloads (default: AAC_FETCH_WORKERS, else 8).
    ``graphql_batch``: repositories per GraphQL metadata request (default 100; 0 = REST, one per repo)."""
    names = platforms or [p.name for p in registry.PLATFORMS]
    rows = [crawl_platform(corpus, api_url, name, previous, fetch_workers, graphql_batch) for name in names]
    table = [{"platform": r["platform"], "files": r["files"], "partitions": r["partitions"],
              "search_requests": r["search_requests"], "core_requests": r["core_requests"],
              "graphql_requests": r["graphql_requests"], "raw_requests": r["raw_requests"], "not_modified": r["not_modified"],
              "rate_limit_waits": r["rate_limit_waits"],
              "waited_hours": round(r["waited_seconds"] / 3600, 3)} for r in rows]
    create_table_artifact(key="crawl-summary", table=table,
                          description=f"AAC crawl of {api_url}: files and API usage per platform")
    Corpus(corpus).refresh_catalog()
    return rows
