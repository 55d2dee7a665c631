"""Prefect flow ``publish-corpus``: build + validate the Hub folder, optionally upload, report the figures.

Thin by design: the steps live in aac.hub; the flow owns retries (uploads) and reporting (Prefect artifacts).
"""

from __future__ import annotations

from pathlib import Path

from prefect import flow, task
from prefect.artifacts import create_markdown_artifact, create_table_artifact


@task
def build_task(corpus: str, out: str, repo_id: str | None, optout: str | None) -> dict:
    from aac.hub.policy import OptOut
    from aac.hub.publish import build_hub_folder
    from aac.core.store import Corpus

    optout_path = optout or OptOut.default_path(corpus)  # the same default as `aac publish`
    result = build_hub_folder(Corpus(corpus), Path(out), repo_id=repo_id, optout=OptOut.load(optout_path))
    return {"rows": result.report.rows, "held_back": result.report.held_back,
            "per_platform": [list(r) for r in result.summary["per_platform"]],
            "per_type": [list(r) for r in result.summary["per_type"]]}


@task(retries=2, retry_delay_seconds=[30, 120])
def upload_task(out: str, repo_id: str) -> str:
    from aac.core.config import Settings
    from aac.hub.upload import upload_hub_folder

    settings = Settings.from_env()
    if not settings.hf_token:
        raise RuntimeError("HF_TOKEN is not set in the worker's environment")
    up = upload_hub_folder(Path(out), repo_id, settings.hf_token, endpoint=settings.hf_endpoint)
    return up.commit_url or repo_id


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
def publish_corpus(corpus: str = "data", out: str = "hub", repo_id: str | None = None, upload: bool = False,
                   optout: str | None = None) -> dict:
    """Publish the corpus: Hub folder of the publishable rows, validated offline; uploaded when ``upload``.
    ``optout`` defaults to ``<corpus>/optout.txt``, then ``./optout.txt``, as for `aac publish`; ``repo_id`` to the
    worker's ``AAC_HF_REPO_ID``."""
    from aac.flows.refresh import worker_defaults

    repo_id = worker_defaults(None, repo_id)[1]
    if upload and not repo_id:
        raise ValueError("upload=True needs repo_id (or AAC_HF_REPO_ID in the worker's environment)")
    figures = build_task(corpus, out, repo_id, optout)
    if upload:
        figures["commit"] = upload_task(out, repo_id)
    report_figures(figures, f"AAC release from {corpus}")
    print(f"published rows: {figures['rows']}; held back: {figures['held_back']}")
    return figures
