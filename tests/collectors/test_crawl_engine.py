"""The crawl engine over an in-memory search: recall, request budget, checks, incomplete pages (aac.collectors.crawl)."""

import math
import random

from collector_memsearch import MemSearch
from tiling import assert_tiles_exactly

from aac.collectors.crawl import CrawlEngine, NullSink
from aac.collectors.partition.ranges import MAX_INDEXED, SizeRange


def _files(n: int, seed: int, queries=("q",)):
    rnd = random.Random(seed)
    out = []
    for k in range(n):
        size = int(rnd.lognormvariate(math.log(1200), 1.1))
        if rnd.random() < 0.1:  # template copies: many files of exactly the same size
            size = rnd.choice([512, 900, 1337, 2048])
        out.append((rnd.choice(queries), f"o{k % 997}/r{k}", f"CLAUDE{k}.md", size))
    return out


def test_engine_recovers_every_file_a_lossy_undercounting_search_hides_within_the_request_budget():
    files = _files(8000, seed=1, queries=("q1", "q2"))
    search = MemSearch(files, incomplete_every=37)
    engine = CrawlEngine(search)
    sink = NullSink()
    for q in ("q1", "q2"):
        engine.crawl_query(q, sink)
    want = {(r, p) for _, r, p, s in files if s < MAX_INDEXED}
    assert want <= set(sink.hits)
    assert engine.model.lossy_min is not None  # it learned that wide ranges lose files
    assert search.calls <= 1.8 * math.ceil(len(want) / 100)  # 8k files: learning the loss size is most of the overhead


def test_a_query_smaller_than_one_page_costs_one_request():
    search = MemSearch([("small", f"o/r{k}", "AGENTS.md", 100 + k) for k in range(40)])
    engine = CrawlEngine(search)
    sink = NullSink()
    engine.crawl_query("small", sink)
    assert len(sink.hits) == 40 and search.calls == 1


def test_a_single_size_with_more_files_than_the_cap_is_marked_saturated_not_looped():
    files = [("q", f"o/r{k}", "CLAUDE.md", 777) for k in range(1500)]
    engine = CrawlEngine(MemSearch(files, lossy_threshold=10**9))
    sink = NullSink()
    engine.crawl_query("q", sink)
    assert engine.stats.saturated == 1
    assert len(sink.hits) >= 1000  # the cap per query; other queries over the same size may list others


def test_engine_with_exact_sizes_recovers_every_file_and_tiles_each_query():
    files = _files(8000, seed=2, queries=("q1", "q2"))
    size_of = {(r, p): s for _, r, p, s in files}
    search = MemSearch(files, incomplete_every=37)
    asked: list[int] = []

    def file_sizes(hits):
        asked.append(len(hits))
        return {k: size_of[k] for k in hits}

    engine = CrawlEngine(search, file_sizes=file_sizes)
    sink = NullSink()
    plans = [engine.crawl_query(q, sink) for q in ("q1", "q2")]
    want = {(r, p) for _, r, p, s in files if s < MAX_INDEXED}
    assert want <= set(sink.hits) and asked
    for plan in plans:
        assert_tiles_exactly([r for r, _ in plan.leaves])
    assert engine.prior.learned
    assert search.calls <= 1.8 * math.ceil(len(want) / 100)


def _one_query(n: int) -> tuple[MemSearch, dict]:
    files = [("q", f"o/r{k}", "CLAUDE.md", 1000 + k) for k in range(n)]
    return MemSearch(files, lossy_threshold=500), {(r, p): s for _, r, p, s in files}


def test_a_partial_check_settles_a_clean_leaf_in_its_first_part():
    search, size_of = _one_query(450)
    engine = CrawlEngine(search, file_sizes=lambda hits: {k: size_of[k] for k in hits})
    engine.model.record_check(600, 12)
    leaf = SizeRange(1000, 1450)
    hits = engine.fetch_range("q", leaf).hits
    before, records = search.calls, []
    assert engine._verify("q", leaf, hits, records) == 0
    assert search.calls - before == 3 and len(records) == 1  # 3 pages instead of the whole check's 5
    assert engine.model.clean_max == 450 and engine.stats.partial_checks == 1


def test_a_partial_check_of_a_lossy_leaf_fetches_the_rest_and_recovers_every_file():
    search, size_of = _one_query(520)
    engine = CrawlEngine(search, file_sizes=lambda hits: {k: size_of[k] for k in hits})
    engine.model.record_check(480, 0)
    engine.model.record_check(600, 12)
    leaf = SizeRange(1000, 1520)
    hits = dict(engine.fetch_range("q", leaf).hits)
    shown = len(hits)
    assert shown < 520  # the wide range lost files
    records = []
    lost = engine._verify("q", leaf, hits, records)
    assert len(hits) == 520 and lost == 520 - shown and len(records) == 2
    assert engine.model.lossy_min == 520 and engine.stats.partial_checks == 0


def test_check_requests_count_every_request_of_nested_checks_once():
    files = _files(8000, seed=1, queries=("q1", "q2"))
    search = MemSearch(files)
    engine = CrawlEngine(search)
    depth, deepest, outer = 0, 0, 0
    verify = engine._verify

    def counting(*args, **kwargs):
        nonlocal depth, deepest, outer
        depth += 1
        deepest = max(deepest, depth)
        before = search.calls
        try:
            return verify(*args, **kwargs)
        finally:
            depth -= 1
            if depth == 0:
                outer += search.calls - before

    engine._verify = counting
    for q in ("q1", "q2"):
        engine.crawl_query(q, NullSink())
    assert deepest >= 2  # a check's part was itself checked
    assert engine.stats.check_requests == outer


def test_a_page_search_keeps_calling_incomplete_marks_its_leaf_so():
    from aac.collectors.crawl import Hit, Page

    def always_incomplete(q, page):  # 40 files exist; search returns 30 of them and says the answer is incomplete
        return Page([Hit(f"o/r{k}", "AGENTS.md", f"sha{k}") for k in range(30)], 40, True)

    engine = CrawlEngine(always_incomplete)
    sink = NullSink()
    engine.crawl_query("q", sink)
    leaves = [r for r in sink.records if r.role == "leaf"]
    assert leaves and all(r.incomplete for r in leaves) and engine.stats.incomplete == len(leaves)


def test_a_short_page_search_keeps_calling_incomplete_does_not_end_paging_and_tries_wait_on_the_clock():
    from aac.collectors.crawl import Hit, Page

    files = [Hit("o/r", f"d{i}/CLAUDE.md") for i in range(450)]
    asked: list[int] = []
    waits: list[float] = []

    def search(q, page):  # page 2 times out the same way every time: 3 of its files missing, flagged incomplete
        asked.append(page)
        items = files[(page - 1) * 100: page * 100]
        return Page(items[:97], 450, True) if page == 2 else Page(items, 450, False)

    engine = CrawlEngine(search, verify=False, pause=waits.append)
    sink = NullSink()
    engine.crawl_query("q", sink)
    assert asked == [1, 2, 2, 2, 3, 4, 5]  # the pages after the short incomplete one are still asked
    assert len(sink.hits) == 447
    assert waits == [5.0, 10.0]  # a growing pause before each new try, through the injected clock
    assert [r.incomplete for r in sink.records if r.role == "leaf"] == [True]
