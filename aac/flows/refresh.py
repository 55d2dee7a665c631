"""Prefect flow ``refresh-corpus``: crawl -> merge as a new corpus version -> process -> (publish).

Thin: the job is :func:`aac.jobs.refresh.refresh`; the flow gives it Prefect stages (the collector's ``crawl`` flow
into the run folder, a merge task, a retried process task) and reports the version as Prefect artifacts.
"""

from __future__ import annotations

from pathlib import Path

from prefect import flow, task
from prefect.artifacts import create_markdown_artifact, create_table_artifact

from aac.core.config import Settings
from aac.flows.worker import worker_defaults
from aac.jobs.refresh import RefreshOptions, RefreshStages, merge_stage, process_stage
from aac.jobs.refresh import refresh as refresh_job


@task
def merge_task(corpus: str, incoming: str, source: str, platforms: list[str] | None = None) -> dict:
    return merge_stage(corpus, incoming, source, platforms)


@task(retries=1, retry_delay_seconds=[30])
def process_task(corpus: str) -> dict:
    return process_stage(corpus)


def crawl_subflow(options: RefreshOptions, settings: Settings, folder: Path, source: str) -> str:
    """The collector's ``crawl`` flow into the refresh's run folder (one task per platform, each retried)."""
    from aac.flows.crawl import crawl

    rows = crawl(api_url=source, corpus=str(folder), platforms=list(options.platforms) if options.platforms else None,
                 previous=str(options.corpus), graphql_batch=options.graphql_batch)
    return f"{sum(r.get('files', 0) for r in rows)} files over {len(rows)} platforms"


def version_title(result: dict) -> str:
    """What the merge made of the corpus: a new version, or none (nothing changed upstream)."""
    if result.get("recorded", True):
        return f"Corpus version {result['version']}"
    return f"No change: the corpus stays at version {result['version']}"


def report_version(result: dict) -> None:
    create_table_artifact(key="refresh-changelog",
                          description=f"{version_title(result)}: changes per platform",
                          table=[{"platform": p, **c} for p, c in sorted(result["per_platform"].items())])
    create_markdown_artifact(key="refresh-summary", markdown=(
        f"# {version_title(result)}\n\n| added | changed | removed | unchanged |\n|---|---|---|---|\n"
        f"| {result['added']} | {result['changed']} | {result['removed']} | {result['unchanged']} |\n"))


@flow(name="refresh-corpus", log_prints=True)
def refresh_corpus(corpus: str = "data", api_url: str | None = None, incoming: str | None = None,
                   platforms: list[str] | None = None, process: bool = True, publish: bool = False,
                   out: str = "hub", repo_id: str | None = None, graphql_batch: int | None = None) -> dict:
    """Weekly refresh. ``incoming`` = a folder already holding a crawl (skips crawling); ``graphql_batch``:
    repositories per GraphQL metadata request (default 100; 0 = REST only). ``api_url`` and ``repo_id`` default to
    the worker's ``AAC_GITHUB_API_URL`` (else api.github.com) and ``AAC_HF_REPO_ID``, as for the CLI."""
    api_url, repo_id = worker_defaults(api_url, repo_id)
    options = RefreshOptions(corpus=corpus, api_url=api_url, incoming=incoming,
                             platforms=tuple(platforms) if platforms else None, process=process,
                             graphql_batch=graphql_batch)
    stages = RefreshStages(crawl=crawl_subflow, merge=merge_task, process=process_task)
    result = refresh_job(options, stages=stages, say=print).to_dict()
    report_version(result)
    print(f"{version_title(result)}: +{result['added']} ~{result['changed']} -{result['removed']}"
          + (f"; not judged for removal: {', '.join(result['unjudged'])}" if result["unjudged"] else ""))
    if publish:
        from aac.flows.publish import publish_corpus

        result["publish"] = publish_corpus(corpus=corpus, out=out, repo_id=repo_id, upload=bool(repo_id))
    return result
