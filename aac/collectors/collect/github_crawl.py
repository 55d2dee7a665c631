"""The whole GitHub crawl of the chosen platforms: a GitHub client (tokens, limits, validators, raw downloads) under
:func:`~aac.collectors.collect.crawl_into.crawl_queries_into`, holding the corpus lock, summed up in one line.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable
from contextlib import ExitStack
from dataclasses import dataclass

import pyarrow.compute as pc

from aac.collectors.collect.crawl_into import crawl_queries_into
from aac.collectors.collect.frontier import platform_queries
from aac.collectors.crawl import Hit
from aac.collectors.github import GRAPHQL_BATCH, GitHubClient, GitHubError
from aac.collectors.validators import ValidatorCache
from aac.core.config import DEFAULT_FETCH_WORKERS
from aac.core.corpus_lock import corpus_lock
from aac.core.store import Corpus

log = logging.getLogger(__name__)


@dataclass
class CrawlSummary:
    platforms: dict[str, int]
    files: int
    new_files: int  # files the corpus did not hold (a refresh: not live in the previous corpus)
    partitions: int
    splits: int
    checks: int
    search_requests: int
    core_requests: int
    raw_requests: int
    rate_limit_waits: int
    waited_seconds: float
    secondary_limits: int
    server_errors: int
    not_modified: int = 0  # conditional requests answered 304 (no quota spent), search ones included
    search_not_modified: int = 0
    reused: int = 0  # files whose content came from the previous corpus (blob sha unchanged)
    graphql_requests: int = 0  # batched repository metadata (up to 100 repos per request)
    incomplete_ranges: int = 0  # leaves search kept calling incomplete: their platforms are not judged for removals
    private_skipped: int = 0  # results in private repositories the token could see: left out

    def line(self) -> str:
        return (f"crawl: {self.files} files ({self.new_files} new) from {self.partitions} partitions "
                f"({self.splits} split, {self.checks} checks); {self.search_requests} search requests, "
                f"{self.core_requests} core, {self.graphql_requests} graphql, {self.raw_requests} raw "
                f"({self.reused} files reused), "
                f"{self.not_modified} not modified (304); "
                f"{self.rate_limit_waits} rate-limit waits "
                f"({self.waited_seconds / 3600:.2f} h), {self.secondary_limits} secondary limits, "
                f"{self.server_errors} server errors"
                + (f"; {self.incomplete_ranges} ranges stayed incomplete (files there may be missing)"
                   if self.incomplete_ranges else "")
                + (f"; {self.private_skipped} results in private repositories left out" if self.private_skipped
                   else ""))


def _new_since(previous: Corpus, found) -> int:
    """Files of a refresh crawl that ``previous`` does not hold live: new to the corpus, not merely to the fresh
    folder the crawl wrote (where every file is new)."""
    if not previous.exists("artifacts"):
        return len(found)
    t = previous.read("artifacts", columns=["artifact_id", "removed_at"])
    live = set(pc.filter(t.column("artifact_id"), pc.is_null(t.column("removed_at"))).to_pylist())
    return sum(1 for aid in found if aid not in live)


def run_github_crawl(corpus: Corpus, api_url: str, tokens, platforms: Iterable[str] | None = None,
                     clock=None, on_progress=None, on_query=None, on_wait=None,
                     previous: Corpus | None = None, conditional: bool = True, reuse_content: bool = True,
                     fetch_workers: int = DEFAULT_FETCH_WORKERS, graphql_batch: int | None = None) -> CrawlSummary:
    """The whole GitHub crawl of the chosen platforms into ``corpus`` (resumable; see module docstring).

    ``previous``: the corpus a refresh crawl learns from (frontier seeds, loss model, validators, and — with
    ``reuse_content`` — the content of files whose blob sha is unchanged); the validators live in ``previous``
    (else ``corpus``) and are updated there. ``conditional=False`` sends no validators. ``fetch_workers``: raw
    downloads of one partition run in this many threads (the raw route spends no quota; latency dominates).
    A file whose download fails for good is kept with drop reason ``content_unavailable`` (and downloaded again
    by the next crawl into the same corpus, see :meth:`CorpusSink.refetch_unavailable`). Repository metadata
    is asked ``graphql_batch`` repos per GraphQL request, across partitions (default 100; 0 = one REST request
    per repo, each partition written as soon as it completes).
    ``on_progress(totals, client_stats)`` is called after every partition."""
    with ExitStack() as locks:  # the corpus it writes, and the previous corpus whose validators it updates
        locks.enter_context(corpus_lock(corpus.root, "aac crawl"))
        if previous is not None:
            locks.enter_context(corpus_lock(previous.root, "aac crawl (refresh)"))
        return _run_github_crawl(corpus, api_url, tokens, platforms, clock, on_progress, on_query, on_wait, previous,
                                 conditional, reuse_content, fetch_workers, graphql_batch)


def _run_github_crawl(corpus: Corpus, api_url: str, tokens, platforms, clock, on_progress, on_query, on_wait,
                      previous: Corpus | None, conditional: bool, reuse_content: bool, fetch_workers: int,
                      graphql_batch: int | None) -> CrawlSummary:
    validators = ValidatorCache(previous or corpus) if conditional else None
    client = GitHubClient(tokens, api_url=api_url, clock=clock, on_wait=on_wait, validators=validators,
                          graphql_batch=GRAPHQL_BATCH if graphql_batch is None else graphql_batch)
    api = threading.Lock()  # the API side of the client (tokens, limits) is used by one thread at a time
    try:
        def content(hit: Hit) -> bytes | None:
            ref = hit.ref
            if not ref:  # (search results carry their commit; else the default branch, cached per repo)
                with api:
                    meta = client.repo_meta(hit.repo)
                ref = (meta or {}).get("default_branch") or "HEAD"
            try:
                return client.raw(hit.repo, ref, hit.path)
            except GitHubError as exc:
                log.warning("content of %s/%s not fetched: %s", hit.repo, hit.path, client.scrub(str(exc)))
                return None

        progress = (lambda t: on_progress(t, client.stats)) if on_progress else None
        engine, sink = crawl_queries_into(corpus, client.search_code, platform_queries(platforms), content,
                                          client.repo_meta, reserve=lambda n: client.reserve("search", n),
                                          on_progress=progress, on_query=on_query, previous=previous,
                                          reuse_content=reuse_content, fetch_workers=fetch_workers,
                                          fetch_repos=client.repo_meta_many, repo_batch=max(client.graphql_batch, 1),
                                          pause=client.pause)
        st = client.stats
        t = sink.totals
        counts = {r["platform"]: r["n"] for r in corpus.sql(
            "select platform, count(*) as n from artifacts where status = 'collected' group by platform").to_pylist()}
        new_files = t.new_files if previous is None else _new_since(previous, sink.owner)
        return CrawlSummary(dict(sorted(counts.items())), len(sink.owner), new_files, t.partitions,
                            t.splits, t.checks, st.search_requests, st.core_requests, st.raw_requests,
                            st.rate_limit_waits, st.waited_seconds, st.secondary_limits, st.server_errors,
                            st.not_modified, st.search_not_modified, t.reused, st.graphql_requests,
                            engine.stats.incomplete, t.private_skipped)
    finally:
        if validators is not None:
            validators.save()
        client.close()
