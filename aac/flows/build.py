"""Prefect flow ``build``: crawl + process + classify as one flow (items are typed by the default classifier
inside ``process``, through ``aac.classifiers.get_classifier("default")``)."""

from __future__ import annotations

from prefect import flow

from aac.flows.crawl import crawl
from aac.flows.process import process


@flow(name="build", log_prints=True)
def build(api_url: str = "https://api.github.com", corpus: str = "data", platforms: list[str] | None = None,
          keep_private: bool = False, near_threshold: float = 0.85, workers: int = 1) -> dict:
    """The whole corpus build: the ``crawl`` and ``process`` flows as subflows."""
    crawled = crawl(api_url=api_url, corpus=corpus, platforms=platforms)
    processed = process(corpus=corpus, keep_private=keep_private, near_threshold=near_threshold, workers=workers)
    return {"crawl": crawled, "process": processed}
