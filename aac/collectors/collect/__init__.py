"""A resumable crawl into a corpus: the engine's leaves become ``artifacts``, ``repos`` and ``crawl_queries`` rows.

One module per concern: ``rows`` (the row shapes a collector writes, with drop reasons), ``sink`` (a completed
partition written durably, metadata batched across partitions; the kill/resume argument lives there),
``frontier`` (the stored frontier read back: done leaves, seeds, swept platforms), ``crawl_into`` (queries crawled
into a corpus, any transport), ``github_crawl`` (the GitHub crawl with its client and summary). The names other
packages use are re-exported here.
"""

from aac.collectors.collect.crawl_into import crawl_queries_into
from aac.collectors.collect.frontier import covered_platforms, frontier_rows, platform_queries, seed_ranges
from aac.collectors.collect.github_crawl import CrawlSummary, run_github_crawl
from aac.collectors.collect.rows import artifact_row, decode_content, repo_row
from aac.collectors.collect.sink import CorpusSink, CrawlTotals

__all__ = [
    "CorpusSink", "CrawlSummary", "CrawlTotals", "artifact_row", "covered_platforms", "crawl_queries_into",
    "decode_content", "frontier_rows", "platform_queries", "repo_row", "run_github_crawl", "seed_ranges",
]
