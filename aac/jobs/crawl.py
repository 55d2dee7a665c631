"""The ``crawl`` job: GitHub (or an emulator, or GitHub Enterprise) code search into a corpus, or local checkouts.

``aac crawl`` and the Prefect flow ``crawl`` both call :func:`crawl`. By default the crawl is one in-process run
over every chosen platform; the flow passes its retried per-platform task through :class:`CrawlStages`, and the
job then runs it once per platform (a retry redoes one platform; it resumes from the corpus frontier). Tokens are
read from the environment inside the stage, never passed as options.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from aac.core.config import DEFAULT_GITHUB_API, Settings
from aac.core.errors import InputError
from aac.jobs.options import corpus_option, option


def api_url_option(help: str = "REST API base: https://api.github.com (default), https://HOST/api/v3 (Enterprise) "
                               "or an emulator's URL.") -> str | None:
    return option(None, help, "--api-url", envvar="AAC_GITHUB_API_URL")


def platforms_option(help: str = "Only these platforms (repeatable).") -> tuple[str, ...] | None:
    return option(None, help, "--platform", "-p")


def fetch_workers_option() -> int | None:
    return option(None, "Parallel raw-content downloads per partition (default 8, or AAC_FETCH_WORKERS); files with "
                        "an unchanged blob sha are not downloaded.", "--fetch-workers", min=1)


def graphql_batch_option() -> int | None:
    return option(None, "Repositories per GraphQL metadata request, batched across partitions (default 100; 0 = one "
                        "REST request per repository).", "--graphql-batch", min=0)


@dataclass(frozen=True)
class CrawlOptions:
    """What a crawl may be told; the CLI options and the flow parameters are these fields."""

    corpus: str | Path = corpus_option()
    api_url: str | None = api_url_option()  # None: the settings' (AAC_GITHUB_API_URL, else api.github.com)
    platforms: tuple[str, ...] | None = platforms_option()
    local: str | Path | None = option(None, "Collect from a folder of local checkouts instead.", "--local")
    previous: str | Path | None = option(None, "A corpus to learn from, as a refresh does: frontier seeds, "
                                               "conditional-request validators, content of unchanged files.",
                                         "--previous")
    fetch_workers: int | None = fetch_workers_option()  # None: the settings' (AAC_FETCH_WORKERS, else 8)
    graphql_batch: int | None = graphql_batch_option()


class BadCrawlOption(InputError, ValueError):
    """An option names an unknown platform, a file as the corpus, a missing folder or a URL that is none."""


@dataclass
class CrawlWatch:
    """Progress callbacks of an in-process crawl (see :func:`aac.collectors.collect.run_github_crawl`)."""

    on_progress: Callable | None = None
    on_query: Callable[[str, str], None] | None = None
    on_wait: Callable[[float, str], None] | None = None


@dataclass
class CrawlReport:
    """What one crawl found; ``to_dict()`` is what a front end reports."""

    source: str  # the API crawled, or the local folder collected
    platforms: dict[str, int]  # files per platform
    summary: dict | None = None  # the in-process crawl's figures (CrawlSummary fields)
    rows: list[dict] = field(default_factory=list)  # per-platform runs: files and API usage each (--local: one row)
    local_files: int | None = None  # --local: agent files collected

    @property
    def files(self) -> int:
        return sum(self.platforms.values())

    def line(self) -> str:
        """One line for a log: the crawl summary of an in-process crawl, else the files over platforms."""
        if self.local_files is not None:
            return f"crawl --local: {self.local_files} agent files from {self.source}"
        if self.summary is not None:
            from aac.collectors.collect import CrawlSummary

            return CrawlSummary(**self.summary).line()
        return f"{self.files} files over {len(self.rows)} platforms"

    def to_dict(self) -> dict:
        return asdict(self)


def platform_stage(options: CrawlOptions, api_url: str, platform: str) -> dict:
    """Crawl one platform (tokens from the environment); its files and API usage as one row."""
    from aac.collectors.collect import run_github_crawl
    from aac.core.store import Corpus

    settings = Settings.from_env()
    summary = run_github_crawl(Corpus(options.corpus), api_url, settings.github_tokens, [platform],
                               previous=Corpus(options.previous) if options.previous else None,
                               fetch_workers=options.fetch_workers or settings.fetch_workers,
                               graphql_batch=options.graphql_batch)
    out = asdict(summary)
    out["platform"] = platform
    out["files"] = summary.platforms.get(platform, 0)
    out.pop("platforms")
    return out


@dataclass(frozen=True)
class CrawlStages:
    """``platform``: None crawls every platform in one run (with progress); the flow gives its retried task."""

    platform: Callable[[CrawlOptions, str, str], dict] | None = None


def api_url(options: CrawlOptions, settings: Settings | None = None) -> str:
    """The API a crawl searches: the option, else the settings' (AAC_GITHUB_API_URL, else api.github.com)."""
    url = options.api_url or (settings or Settings.from_env()).github_api_url or DEFAULT_GITHUB_API
    if not url.startswith(("http://", "https://")):
        raise BadCrawlOption(f"--api-url {url!r}: expected an http:// or https:// URL")
    return url


def check(options: CrawlOptions, settings: Settings | None = None) -> None:
    """Refuse, before any work (and before a flow starts), unknown platforms, a file as the corpus, a --local
    that is not a folder and an API URL that is none."""
    from aac.core import platforms as registry

    for name in options.platforms or ():
        try:
            registry.get(name)
        except KeyError as exc:
            raise BadCrawlOption(exc.args[0]) from None
    corpus = Path(options.corpus)
    if corpus.exists() and not corpus.is_dir():
        raise BadCrawlOption(f"--corpus {corpus}: a file, not a folder")
    if options.local is not None and not Path(options.local).is_dir():
        raise BadCrawlOption(f"--local {options.local}: not a folder")
    if options.local is None:
        api_url(options, settings)


def crawl(options: CrawlOptions, settings: Settings | None = None, stages: CrawlStages = CrawlStages(),
          watch: CrawlWatch | None = None) -> CrawlReport:
    """Crawl into ``options.corpus`` under its writer lock (resumable: a rerun after a kill continues) and refresh
    its catalog. Raises :class:`BadCrawlOption` before any work; the crawl's own errors (``GitHubError``, ...)
    propagate, the corpus keeping what was committed."""
    from aac.core.corpus_lock import corpus_lock
    from aac.core.store import Corpus

    settings = settings or Settings.from_env()
    check(options, settings)
    c = Corpus(options.corpus)
    with corpus_lock(c.root, "aac crawl" + (" --local" if options.local is not None else "")):
        if options.local is not None:
            report = _local(c, options)
        else:
            report = _github(c, options, settings, stages, watch or CrawlWatch())
        c.refresh_catalog()
    return report


def _local(c, options: CrawlOptions) -> CrawlReport:
    from aac.collectors.local import collect_local

    n = collect_local(c, Path(options.local), list(options.platforms) if options.platforms else None)
    return CrawlReport(source=str(options.local), platforms={}, rows=[{"local": str(options.local), "files": n}],
                       local_files=n)


def _github(c, options: CrawlOptions, settings: Settings, stages: CrawlStages, watch: CrawlWatch) -> CrawlReport:
    from aac.core import platforms as registry

    url = api_url(options, settings)
    if stages.platform is not None:
        names = list(options.platforms or [p.name for p in registry.PLATFORMS])
        rows = [stages.platform(options, url, name) for name in names]
        return CrawlReport(source=url, platforms={r["platform"]: r["files"] for r in rows}, rows=rows)
    from aac.collectors.collect import run_github_crawl
    from aac.core.store import Corpus

    summary = run_github_crawl(c, url, settings.github_tokens, list(options.platforms) if options.platforms else None,
                               on_progress=watch.on_progress, on_query=watch.on_query, on_wait=watch.on_wait,
                               previous=Corpus(options.previous) if options.previous else None,
                               fetch_workers=options.fetch_workers or settings.fetch_workers,
                               graphql_batch=options.graphql_batch)
    return CrawlReport(source=url, platforms=dict(summary.platforms), summary=asdict(summary))
