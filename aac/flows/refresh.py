"""Prefect flow ``refresh-corpus``: crawl -> merge as a new corpus version -> process -> (publish).

Thin: the crawl is the collector's ``crawl`` flow run into a fresh folder per run (so a file it no longer
finds is a removal), the merge is aac.refresh.versioning, processing is aac.processing.pipeline, which
stages only the rows the merge marked ``collected``/``removed``.
"""

from __future__ import annotations


from prefect import flow, task
from prefect.artifacts import create_markdown_artifact, create_table_artifact


@task
def merge_task(corpus: str, incoming: str, source: str, platforms: list[str] | None = None) -> dict:
    from aac.refresh.versioning import merge_incoming
    from aac.store import Corpus

    from aac.refresh import mark_merged

    r = merge_incoming(Corpus(corpus), Corpus(incoming), process=None, source=source, platforms=platforms)
    mark_merged(incoming)
    return {"version": r.version, "recorded": r.recorded, "added": r.added, "changed": r.changed,
            "removed": r.removed, "unchanged": r.unchanged, "per_platform": r.per_platform,
            "unjudged": list(r.unjudged)}


@task(retries=1, retry_delay_seconds=[30])
def process_task(corpus: str) -> dict:
    from aac.processing.pipeline import run
    from aac.store import Corpus

    report = run(Corpus(corpus))
    return {"processed": report.processed, "reused": report.reused, "items_itemised": report.items_itemised,
            "items_reused": report.items_reused, "items_retyped": report.items_retyped,
            "item_rows_retyped": report.item_rows_retyped, **{s.name: s.rows for s in report.steps}}


@task
def processing_outdated_task(corpus: str) -> bool:
    from aac.processing.pipeline import processing_outdated
    from aac.store import Corpus

    return processing_outdated(Corpus(corpus))


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


def worker_defaults(api_url: str | None, repo_id: str | None) -> tuple[str, str | None]:
    """A deployment's unset parameters from the worker's environment, as the CLI reads them: the API from
    ``AAC_GITHUB_API_URL`` (else api.github.com; a GitHub Enterprise worker sets it), the Hub repo from
    ``AAC_HF_REPO_ID`` (else none: nothing is uploaded by default)."""
    import os

    from aac.config import Settings

    return api_url or Settings.from_env().github_api_url, repo_id or os.environ.get("AAC_HF_REPO_ID") or None


@flow(name="refresh-corpus", log_prints=True)
def refresh_corpus(corpus: str = "data", api_url: str | None = None, incoming: str | None = None,
                   platforms: list[str] | None = None, process: bool = True, publish: bool = False,
                   out: str = "hub", repo_id: str | None = None, graphql_batch: int | None = None) -> dict:
    """Weekly refresh. ``incoming`` = a folder already holding a crawl (skips crawling); ``graphql_batch``:
    repositories per GraphQL metadata request (default 100; 0 = REST only). ``api_url`` and ``repo_id`` default to
    the worker's ``AAC_GITHUB_API_URL`` (else api.github.com) and ``AAC_HF_REPO_ID``, as for the CLI."""
    api_url, repo_id = worker_defaults(api_url, repo_id)
    from aac.corpus_lock import corpus_lock
    from aac.store import Corpus

    Corpus(corpus).check_writable()  # a clear error now, not at the first write after the crawl

    with corpus_lock(corpus, "refresh-corpus flow"):  # a second refresh (a manual one beside the schedule) is refused
        crawled_now = incoming is None
        if crawled_now:
            from aac.flows.crawl import crawl

            from aac.refresh import run_folder

            folder, resumed = run_folder(corpus)  # a killed or failed run of the last day is resumed, not redone
            incoming = str(folder)
            if resumed:
                print(f"resuming the unfinished refresh crawl in {incoming}")
            crawl(api_url=api_url, corpus=incoming, platforms=platforms, previous=corpus, graphql_batch=graphql_batch)
        result = merge_task(corpus, incoming, source=api_url if crawled_now else incoming, platforms=platforms)
        changed = result["added"] or result["changed"] or result["removed"]
        # a new model or processing code, or artifacts an earlier run merged: redo stored work
        if process and (changed or processing_outdated_task(corpus)):
            result["process"] = process_task(corpus)
        report_version(result)
        print(f"{version_title(result)}: +{result['added']} ~{result['changed']} -{result['removed']}"
              + (f"; not judged for removal: {', '.join(result['unjudged'])}" if result["unjudged"] else ""))
        if publish:
            from aac.flows.publish import publish_corpus

            result["publish"] = publish_corpus(corpus=corpus, out=out, repo_id=repo_id, upload=bool(repo_id))
    return result
