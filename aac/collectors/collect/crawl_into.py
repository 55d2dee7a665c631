"""Crawl a list of queries into a corpus, whatever the transport: wires the engine to the sink and seeds it from the
corpus' own frontier (resume) and from a ``previous`` corpus (refresh).

A refresh crawls into a fresh folder but learns from the ``previous`` corpus: the previous leaves seed each
query's sweep (no probing and splitting from scratch, see ``partition``), the stored checks rebuild the loss
model, and (``reuse_content``) its stored files give the content of hits whose blob sha did not change.
"""

from __future__ import annotations

from collections.abc import Callable

from aac.collectors.collect.frontier import covers_axis, done_leaves, frontier_rows, learn_model, seed_ranges
from aac.collectors.collect.sink import CorpusSink, CrawlTotals
from aac.collectors.crawl import CrawlEngine, Hit, SearchFn
from aac.collectors.partition import SizeRange
from aac.collectors.reuse import PreviousContent
from aac.core.store import Corpus


def crawl_queries_into(corpus: Corpus, search: SearchFn, queries: list[tuple[str, str]],
                       fetch_content: Callable[[Hit], bytes | None] | None,
                       fetch_repo: Callable[[str], dict | None] | None,
                       reserve: Callable[[int], None] | None = None,
                       on_progress: Callable[[CrawlTotals], None] | None = None,
                       on_query: Callable[[str, str], None] | None = None,
                       previous: Corpus | None = None, reuse_content: bool = True,
                       fetch_workers: int = 1,
                       fetch_repos: Callable[[list[str]], dict[str, dict | None]] | None = None,
                       repo_batch: int = 1,
                       pause: Callable[[float], None] | None = None) -> tuple[CrawlEngine, CorpusSink]:
    """Crawl ``queries`` into ``corpus``, resuming from its ``crawl_queries`` frontier; a ``previous`` corpus'
    finished leaves seed each query's sweep, its checks the loss model, and (``reuse_content``) its stored
    files the content of hits whose blob sha did not change. ``repo_batch``: repos asked per ``fetch_repos``
    call, across partitions (see :class:`CorpusSink`). ``pause(seconds)``: the wait between tries of a page
    search calls incomplete (the client's clock)."""
    other = previous is not None and previous.root.resolve() != corpus.root.resolve()
    reuse = PreviousContent(previous) if other and reuse_content else None
    sink = CorpusSink(corpus, {q: p for p, q in queries}, fetch_content, fetch_repo, on_progress,
                      reuse=reuse, fetch_workers=fetch_workers, fetch_repos=fetch_repos, repo_batch=repo_batch)
    # exact file sizes (from the contents the sink downloads anyway) sharpen the partitioner's predictions
    engine = CrawlEngine(search, reserve=reserve, file_sizes=sink.sizes if fetch_content is not None else None,
                         pause=pause)
    sink.rebuild_model(engine.model)
    sink.refetch_unavailable()
    seeds: dict[str, list[SizeRange]] = {}
    if other:
        before = frontier_rows(previous)
        learn_model(before, engine.model)
        for query, by_id in before.items():
            seeds[query] = seed_ranges(by_id)
            if seeds[query] and query not in sink.rows:  # a finished query of the previous crawl
                engine.prior.add_query(done_leaves(by_id))
    sink.totals.queries = len(queries)
    for query in sink.rows:  # finished queries (of any earlier run or task) shape the size prior
        done = sink.done_leaves(query)
        if covers_axis(done):
            engine.prior.add_query(done)
    try:
        for platform, query in queries:
            if on_query:
                on_query(platform, query)
            done = sink.done_leaves(query)
            if not covers_axis(done):
                engine.crawl_query(query, sink, done=done, seeds=seeds.get(query))
            sink.totals.queries_done += 1
            if on_progress:
                on_progress(sink.totals)
        sink.flush()  # partitions still waiting for repository metadata (after an error they are crawled again)
    finally:
        if reuse is not None:
            reuse.close()
    return engine, sink
