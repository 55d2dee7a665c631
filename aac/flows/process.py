"""Prefect flow ``process``: the processing pass as tasks (stage, per-artifact steps + dedupe + write, items).

Thin on purpose: every step is a pure function in ``aac.processing``; the flow owns retries and reporting.
Each task is idempotent (a re-run recomputes the same tables from ``raw_artifacts``), so a retry is safe.
"""

from __future__ import annotations

from prefect import flow, task
from prefect.artifacts import create_table_artifact

from aac.processing import pipeline
from aac.processing.dedupe import NearDupConfig
from aac.core.licenses import parse_allowlist
from aac.core.store import Corpus


def config(keep_private: bool = False, near_threshold: float = 0.85, allow: str | None = None,
           template_min_repos: int = 3, workers: int = 1, full: bool = False,
           classifier: str = "default") -> pipeline.ProcessConfig:
    """``classifier``: a registry name; ``default`` leaves it to the items step (and lets workers type items)."""
    clf = None
    if classifier != "default":
        from aac.classifiers import get_classifier

        clf = get_classifier(classifier)
    return pipeline.ProcessConfig(keep_private=keep_private, allow=parse_allowlist(allow),
                                  near=NearDupConfig(threshold=near_threshold), template_min_repos=template_min_repos,
                                  workers=workers, incremental=not full, classifier=clf)


@task(retries=2, retry_delay_seconds=[5, 30])
def process_corpus(corpus: str, keep_private: bool, near_threshold: float, allow: str | None,
                   template_min_repos: int, workers: int, full: bool = False, classifier: str = "default") -> dict:
    cfg = config(keep_private, near_threshold, allow, template_min_repos, workers, full, classifier)
    report = pipeline.run(Corpus(corpus), cfg)
    return {"artifacts": report.artifacts, "kept": report.kept, "private": report.private, "dropped": report.dropped,
            "items": report.items, "drop_reasons": report.drop_reasons, "processed": report.processed,
            "reused": report.reused, "items_itemised": report.items_itemised, "items_reused": report.items_reused,
            "items_retyped": report.items_retyped, "item_rows_retyped": report.item_rows_retyped,
            "classifier": report.classifier, "steps": [s.__dict__ for s in report.steps]}


@flow(name="process", log_prints=True)
def process(corpus: str = "data", keep_private: bool = False, near_threshold: float = 0.85, allow: str | None = None,
            template_min_repos: int = 3, workers: int = 1, full: bool = False, classifier: str = "default") -> dict:
    """Normalise, dedupe, licence-filter, redact, tag and itemise the crawled artifacts; publishes a step table."""
    out = process_corpus(corpus, keep_private, near_threshold, allow, template_min_repos, workers, full, classifier)
    create_table_artifact(key="process-steps", table=[
        {"step": s["name"], "rows": s["rows"], "seconds": round(s["seconds"], 2), "peak_rss_mb": round(s["peak_rss_mb"])}
        for s in out["steps"]], description=f"AAC process of {corpus}: rows, time and peak memory per step")
    print(f"process: {out['artifacts']} artifacts, {out['kept']} kept, {out['private']} private, "
          f"{out['dropped']} dropped, {out['items']} items ({out['items_retyped']} artifacts' items re-typed: "
          f"classifier changed)")
    return out
