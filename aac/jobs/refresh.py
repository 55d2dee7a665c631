"""The ``refresh`` job: crawl into a fresh run folder, merge it as a new corpus version, process what changed.

``aac refresh`` and the Prefect flow ``refresh-corpus`` both call :func:`refresh`. The flow passes its own stages
(the ``crawl`` flow, retried merge and process tasks) through :class:`RefreshStages`, so a retry redoes one stage;
the order, the lock, the resumable run folder and the "process or not" rule live here once.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

from aac.core.errors import RunError
from aac.core.config import DEFAULT_GITHUB_API, Settings
from aac.jobs.crawl import CrawlOptions, api_url_option, fetch_workers_option, graphql_batch_option, platforms_option
from aac.jobs.options import corpus_option, option


@dataclass(frozen=True)
class RefreshOptions:
    """What a refresh may be told; the CLI options and the flow parameters are these fields."""

    corpus: str | Path = corpus_option()
    # None: the settings' (AAC_GITHUB_API_URL, else api.github.com)
    api_url: str | None = api_url_option("Crawl this REST API (GitHub, Enterprise or an emulator) into a fresh folder.")
    incoming: str | Path | None = option(None, "Use a crawl already written to this corpus folder (e.g. by `aac crawl "
                                               "--corpus DIR`) instead of crawling.", "--incoming")
    platforms: tuple[str, ...] | None = platforms_option("Only these platforms (repeatable); files of other platforms "
                                                         "are left as they are, never marked removed.")
    process: bool = option(True, "Process what changed right after merging.", "--process/--no-process")
    fetch_workers: int | None = fetch_workers_option()  # None: the settings' (AAC_FETCH_WORKERS, else 8)
    graphql_batch: int | None = graphql_batch_option()

    def crawl_options(self, folder: str | Path, source: str) -> CrawlOptions:
        """The crawl of this refresh: ``source`` into the run folder, learning from the corpus."""
        return CrawlOptions(corpus=folder, api_url=source, platforms=self.platforms, previous=self.corpus,
                            fetch_workers=self.fetch_workers, graphql_batch=self.graphql_batch)


class RefreshCrawlFailed(RunError, RuntimeError):
    """The crawl stage failed; its progress is kept in ``folder`` and the next refresh within a day resumes it."""

    def __init__(self, folder: Path, cause: BaseException):
        super().__init__(f"crawl failed: {type(cause).__name__} (its progress is kept in {folder})")
        self.folder = folder
        self.cause = cause


@dataclass
class RefreshReport:
    """What one refresh did; ``to_dict()`` is what the flow returns."""

    version: int
    recorded: bool  # False: nothing changed upstream, the corpus stays at ``version``
    added: int
    changed: int
    removed: int
    unchanged: int
    per_platform: dict[str, dict[str, int]]
    unjudged: list[str]  # platforms the crawl did not sweep whole: nothing removed there
    source: str  # the API crawled, or the incoming folder merged
    crawled_into: str | None = None  # the run folder of this refresh's crawl (None: --incoming)
    crawl: str | None = None  # the crawl's one-line summary
    awaiting: int = 0  # artifacts an earlier run merged that still waited for processing
    process: dict | None = None  # the process report's to_dict() when processing ran
    extra: dict = field(default_factory=dict)  # what a front end adds (the flow: its publish figures)

    @property
    def any_change(self) -> bool:
        return bool(self.added or self.changed or self.removed)

    def to_dict(self) -> dict:
        d = asdict(self)
        d.update(d.pop("extra"))
        return d


def crawl_stage(options: RefreshOptions, settings: Settings, folder: Path, source: str) -> str:
    """Crawl GitHub (or an emulator) into ``folder``, learning from the corpus; returns the summary line."""
    from aac.jobs.crawl import crawl

    return crawl(options.crawl_options(folder, source), settings).line()


def merge_stage(corpus: str, incoming: str, source: str, platforms: list[str] | None) -> dict:
    """Merge the crawl in ``incoming`` as a new version of ``corpus`` (a dict of the version report), mark it merged."""
    from aac.core.store import Corpus
    from aac.refresh import mark_merged
    from aac.refresh.versioning import merge_incoming

    r = merge_incoming(Corpus(corpus), Corpus(incoming), process=None, source=source, platforms=platforms)
    mark_merged(incoming)
    return {"version": r.version, "recorded": r.recorded, "added": r.added, "changed": r.changed,
            "removed": r.removed, "unchanged": r.unchanged, "per_platform": r.per_platform,
            "unjudged": list(r.unjudged)}


def process_stage(corpus: str) -> dict:
    """Process what the merge marked (default options); the process report as a dict."""
    from aac.jobs.process import ProcessOptions, process

    return process(ProcessOptions(corpus)).to_dict()


@dataclass(frozen=True)
class RefreshStages:
    """The three stages; the flow swaps in its Prefect flow and tasks, the CLI keeps these plain functions."""

    crawl: Callable[[RefreshOptions, Settings, Path, str], str] = crawl_stage
    merge: Callable[[str, str, str, list[str] | None], dict] = merge_stage
    process: Callable[[str], dict] = process_stage


def refresh(options: RefreshOptions, settings: Settings | None = None, stages: RefreshStages = RefreshStages(),
            say: Callable[[str], None] = lambda _: None) -> RefreshReport:
    """One refresh under the corpus lock (:mod:`aac.core.corpus_lock`: a second refresh, or any other writer, waits
    then is refused with ``CorpusLocked``; the processing it runs takes the same lock again, re-entrantly).

    Raises OSError when the corpus is not writable (before crawling), :class:`RefreshCrawlFailed` when the crawl
    fails, FileNotFoundError when ``incoming`` holds no crawl. ``say`` hears progress lines (resuming a run folder,
    the crawl summary, artifacts still waiting for processing)."""
    from aac.core.corpus_lock import corpus_lock
    from aac.core.store import Corpus
    from aac.processing.pipeline import awaiting_processing, processing_outdated
    from aac.refresh import run_folder

    settings = settings or Settings.from_env()
    target = Corpus(options.corpus)
    target.check_writable()  # a clear error now, not at the first write after the crawl
    platforms = list(options.platforms) if options.platforms else None
    with corpus_lock(target.root, "aac refresh"):
        crawled_into = crawl_line = None
        if options.incoming is None:
            source = options.api_url or settings.github_api_url or DEFAULT_GITHUB_API
            folder, resumed = run_folder(target.root)  # a killed or failed run of the last day is resumed
            if resumed:
                say(f"resuming the unfinished refresh crawl in {folder}")
            try:
                crawl_line = stages.crawl(options, settings, folder, source)
            except Exception as exc:  # noqa: BLE001 - the folder keeps the progress; the caller says so
                raise RefreshCrawlFailed(folder, exc) from exc
            say(f"crawled into {folder}: {crawl_line}")
            incoming, crawled_into = str(folder), str(folder)
        else:
            incoming = source = str(options.incoming)
        merged = stages.merge(str(target.root), incoming, source, platforms)
        report = RefreshReport(**merged, source=source, crawled_into=crawled_into, crawl=crawl_line)
        # a new model or processing code, or artifacts an earlier run merged: redo stored work
        if options.process and (report.any_change or processing_outdated(target)):
            if not report.any_change:
                report.awaiting = awaiting_processing(target)
                if report.awaiting:
                    say(f"{report.awaiting} artifacts an earlier run merged still wait for processing: "
                        "processing them now")
            report.process = stages.process(str(target.root))
    return report
