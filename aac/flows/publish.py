"""Prefect flow ``publish-corpus``: build + validate the Hub folder, optionally upload, report the figures.

Thin by design: the job is :func:`aac.jobs.publish.publish`; the flow owns retries (uploads) and reporting
(Prefect artifacts).
"""

from __future__ import annotations

from dataclasses import replace

from prefect import flow, task
from prefect.artifacts import create_markdown_artifact, create_table_artifact

from aac.flows.worker import worker_defaults
from aac.jobs.publish import PublishOptions, PublishStages, build_stage, upload_stage
from aac.jobs.options import takes_fields_of
from aac.jobs.publish import publish as publish_job


@task
def build_task(corpus: str, out: str, repo_id: str | None, optout: str | None, force: bool = False) -> dict:
    return build_stage(corpus, out, repo_id, optout, force)


@task(retries=2, retry_delay_seconds=[30, 120])
def upload_task(out: str, repo_id: str, private: bool = False) -> dict:
    return upload_stage(out, repo_id, private)


def report_figures(figures: dict, title: str) -> None:
    """Table + markdown artifacts with this run's figures (visible in the Prefect UI per run)."""
    create_table_artifact(key="publish-rows", description=f"{title}: rows per config",
                          table=[{"config": k, "rows": v} for k, v in figures["rows"].items()])
    lines = [f"# {title}", "", "| platform | artifacts | items | repos |", "|---|---|---|---|"]
    lines += [f"| {p} | {a} | {i} | {r} |" for p, a, i, r in figures["per_platform"]]
    lines += ["", "| type | items |", "|---|---|"] + [f"| {t} | {n} |" for t, n in figures["per_type"]]
    lines += ["", "| held back | artifacts |", "|---|---|"] + [f"| {k} | {v} |" for k, v in figures["held_back"].items()]
    create_markdown_artifact(key="publish-summary", markdown="\n".join(lines), description=title)


@flow(name="publish-corpus", log_prints=True)
@takes_fields_of(PublishOptions, document=True)
def publish_corpus(options: PublishOptions) -> dict:
    """Publish the corpus: Hub folder of the publishable rows, validated offline; uploaded when ``upload``.
    ``optout`` defaults to ``<corpus>/optout.txt``, then ``./optout.txt``, as for `aac publish`; ``repo_id`` to the
    worker's ``AAC_HF_REPO_ID``."""
    options = replace(options, repo_id=worker_defaults(None, options.repo_id)[1])
    figures = publish_job(options, PublishStages(build=build_task, upload=upload_task)).to_dict()
    report_figures(figures, f"AAC release from {options.corpus}")
    print(f"published rows: {figures['rows']}; held back: {figures['held_back']}")
    return figures
