"""Prefect flow ``refresh-corpus``: crawl -> merge as a new corpus version -> process -> (publish).

Thin: the job is :func:`aac.jobs.refresh.refresh`; the flow gives it Prefect stages (the ``crawl`` flow into the
run folder, a merge task, a retried process task) and reports the version as Prefect artifacts. Its parameters
are the fields of :class:`~aac.jobs.refresh.RefreshOptions`, then its own (publishing after the refresh).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from prefect import flow, task
from prefect.artifacts import create_markdown_artifact, create_table_artifact

from aac.core.config import Settings
from aac.flows.worker import worker_defaults
from aac.jobs.refresh import RefreshOptions, RefreshStages, merge_stage, process_stage
from aac.jobs.options import as_parameters, takes_fields_of
from aac.jobs.refresh import refresh as refresh_job


@task
def merge_task(corpus: str, incoming: str, source: str, platforms: list[str] | None = None) -> dict:
    return merge_stage(corpus, incoming, source, platforms)


@task(retries=1, retry_delay_seconds=[30])
def process_task(corpus: str) -> dict:
    return process_stage(corpus)


def crawl_subflow(options: RefreshOptions, settings: Settings, folder: Path, source: str) -> str:
    """The ``crawl`` flow into the refresh's run folder (one task per platform, each retried)."""
    from aac.flows.crawl import crawl

    rows = crawl(**as_parameters(options.crawl_options(folder, source)))
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
@takes_fields_of(RefreshOptions, document=True)
def refresh_corpus(options: RefreshOptions, publish: bool = False, out: str = "hub",
                   repo_id: str | None = None) -> dict:
    """Weekly refresh, then (``publish``) the ``publish-corpus`` flow into ``out``, uploaded to ``repo_id`` when
    there is one. ``api_url`` and ``repo_id`` default to the worker's ``AAC_GITHUB_API_URL`` (else api.github.com)
    and ``AAC_HF_REPO_ID``, as for the CLI."""
    api_url, repo_id = worker_defaults(options.api_url, repo_id)
    options = replace(options, api_url=api_url)
    stages = RefreshStages(crawl=crawl_subflow, merge=merge_task, process=process_task)
    result = refresh_job(options, stages=stages, say=print).to_dict()
    report_version(result)
    print(f"{version_title(result)}: +{result['added']} ~{result['changed']} -{result['removed']}"
          + (f"; not judged for removal: {', '.join(result['unjudged'])}" if result["unjudged"] else ""))
    if publish:
        from aac.flows.publish import publish_corpus

        result["publish"] = publish_corpus(corpus=options.corpus, out=out, repo_id=repo_id, upload=bool(repo_id))
    return result
