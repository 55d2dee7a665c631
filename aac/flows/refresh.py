"""Prefect flow ``refresh-corpus``: (crawl) -> merge as a new corpus version -> (process) -> (publish).

The crawl step runs the collector's own command (``aac crawl --api-url URL --corpus DIR``) into a fresh
folder per run, so what it did not find this time is a removal; the merge is aac.refresh.versioning.
"""

from __future__ import annotations

import datetime as dt
import subprocess
import sys
from pathlib import Path

from prefect import flow, task
from prefect.artifacts import create_markdown_artifact, create_table_artifact


@task(retries=2, retry_delay_seconds=[60, 300])
def crawl_task(incoming: str, api_url: str | None) -> str:
    cmd = [sys.executable, "-m", "aac", "crawl", "--corpus", incoming] + (["--api-url", api_url] if api_url else [])
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        from aac.config import scrub

        raise RuntimeError(scrub(f"crawl failed ({proc.returncode}): {proc.stderr[-2000:]}"))
    return incoming


@task
def merge_task(corpus: str, incoming: str, source: str) -> dict:
    from aac.refresh.versioning import apply_refresh
    from aac.store import Corpus

    fresh = Corpus(incoming)
    if not fresh.exists("artifacts"):
        raise FileNotFoundError(f"no artifacts under {incoming}")
    target = Corpus(corpus)
    r = apply_refresh(target, fresh.read("artifacts"), process=None, source=source)
    target.refresh_catalog()
    return {"version": r.version, "added": r.added, "changed": r.changed, "removed": r.removed,
            "unchanged": r.unchanged, "per_platform": r.per_platform}


@flow(name="refresh-corpus", log_prints=True)
def refresh_corpus(corpus: str = "data", incoming: str | None = None, api_url: str | None = None,
                   publish: bool = False, out: str = "hub", repo_id: str | None = None) -> dict:
    """Weekly refresh: crawl (unless ``incoming`` already holds a crawl), merge as a version, report, publish."""
    if incoming is None:
        stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
        incoming = str(Path(corpus) / "refresh-runs" / stamp)
        crawl_task(incoming, api_url)
    result = merge_task(corpus, incoming, source=api_url or incoming)
    create_table_artifact(key="refresh-changelog", description=f"corpus version {result['version']}: changes per platform",
                          table=[{"platform": p, **c} for p, c in sorted(result["per_platform"].items())])
    create_markdown_artifact(key="refresh-summary", markdown=(
        f"# Corpus version {result['version']}\n\n| added | changed | removed | unchanged |\n|---|---|---|---|\n"
        f"| {result['added']} | {result['changed']} | {result['removed']} | {result['unchanged']} |\n"))
    print(f"version {result['version']}: +{result['added']} ~{result['changed']} -{result['removed']}")
    if publish:
        from aac.flows.publish import publish_corpus

        result["publish"] = publish_corpus(corpus=corpus, out=out, repo_id=repo_id, upload=bool(repo_id))
    return result
