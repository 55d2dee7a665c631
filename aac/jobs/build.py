"""The ``build`` job: crawl, then process (items are typed by the default classifier inside processing).

``aac build`` and the Prefect flow ``build`` both call :func:`build`; the flow passes the ``crawl`` and ``process``
flows as its :class:`BuildStages` (a task per platform, a retried processing task), so a retry redoes one stage.
Its options are those of the two jobs, declared there once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from aac.jobs.crawl import CrawlOptions, CrawlStages, platform_stage
from aac.jobs.options import project
from aac.jobs.process import ProcessOptions


@dataclass(frozen=True)
class BuildOptions(ProcessOptions, CrawlOptions):
    """What a build may be told: the crawl's options, then the processing's (one ``corpus``)."""

    def crawl_options(self) -> CrawlOptions:
        return project(self, CrawlOptions)

    def process_options(self) -> ProcessOptions:
        return project(self, ProcessOptions)


@dataclass
class BuildReport:
    """What one build did; ``to_dict()`` is what the flow returns."""

    crawl: list[dict]  # per platform: files and API usage
    process: dict  # the process report's to_dict()

    def to_dict(self) -> dict:
        return {"crawl": self.crawl, "process": self.process}


def crawl_stage(options: CrawlOptions) -> list[dict]:
    """The crawl, platform by platform in this process: a row of files and API usage each."""
    from aac.jobs.crawl import crawl

    return crawl(options, stages=CrawlStages(platform=platform_stage)).rows


def process_stage(options: ProcessOptions) -> dict:
    from aac.jobs.process import process

    return process(options).to_dict()


@dataclass(frozen=True)
class BuildStages:
    """The two stages; the flow swaps in the ``crawl`` and ``process`` flows."""

    crawl: Callable[[CrawlOptions], list[dict]] = crawl_stage
    process: Callable[[ProcessOptions], dict] = process_stage


def build(options: BuildOptions, stages: BuildStages = BuildStages()) -> BuildReport:
    """Crawl then process ``options.corpus`` under its writer lock, held throughout (each stage takes it again,
    re-entrantly). Raises :class:`~aac.jobs.crawl.BadCrawlOption` before any work, and the stages' errors."""
    from aac.core.corpus_lock import corpus_lock
    from aac.jobs.crawl import check

    check(options.crawl_options())
    with corpus_lock(options.corpus, "aac build"):
        rows = stages.crawl(options.crawl_options())
        return BuildReport(crawl=rows, process=stages.process(options.process_options()))
