"""A re-crawl seeded with the previous crawl's frontier: fewer searches, the same files, and grown leaves split."""

import random

from collector_memsearch import MemSearch

from aac.collectors.collect import crawl_queries_into, frontier_rows, seed_ranges
from aac.collectors.partition import MAX_INDEXED
from aac.core.store import Corpus

QUERIES = [("claude", "q1"), ("cursor", "q2")]


def _files(n: int, seed: int) -> list[tuple[str, str, str, int]]:
    rnd = random.Random(seed)
    return [(rnd.choice(("q1", "q2")), f"o{k % 997}/r{k}", f"CLAUDE{k}.md", min(int(rnd.lognormvariate(7.3, 1.1)), 500_000))
            for k in range(n)]


def _crawl(root, files, previous=None):
    search = MemSearch(files)
    engine, _ = crawl_queries_into(Corpus(root), search, QUERIES, None, None, previous=previous)
    found = {(r["repo"], r["path"]) for r in Corpus(root).read("artifacts", columns=["repo", "path"]).to_pylist()}
    return search.calls, engine, found


def _want(files):
    return {(r, p) for _, r, p, s in files if s < MAX_INDEXED}


def test_seeded_recrawl_of_an_unchanged_index_spends_fewer_searches_for_the_identical_set(tmp_path):
    files = _files(6000, seed=2)
    calls1, e1, found1 = _crawl(tmp_path / "a", files)
    assert found1 == _want(files) and e1.stats.splits + e1.stats.check_requests > 0
    calls2, e2, found2 = _crawl(tmp_path / "b", files, previous=Corpus(tmp_path / "a"))
    assert found2 == found1
    assert calls2 < calls1 and e2.stats.splits == 0


def test_a_seed_leaf_that_grew_past_the_cap_is_split_again_and_every_added_file_is_found(tmp_path):
    files = _files(6000, seed=2)
    _crawl(tmp_path / "a", files)
    seeds = seed_ranges(frontier_rows(Corpus(tmp_path / "a"))["q1"])
    fat = max(seeds, key=lambda r: r.width if r.hi < 50_000 else 0)
    added = [("q1", f"new/r{k}", f"AGENTS{k}.md", fat.lo + k % fat.width) for k in range(1500)]
    calls, engine, found = _crawl(tmp_path / "b", files + added, previous=Corpus(tmp_path / "a"))
    assert found == _want(files + added)
    assert engine.stats.splits > 0  # the seed now holds more than the cap: asked as is, it had to be narrowed


def test_the_sizes_the_partitioner_uses_come_from_the_contents_the_sink_stores_each_downloaded_once(tmp_path):
    files = _files(3000, seed=4)
    size_of = {(r, p): s for _, r, p, s in files}
    downloads: list[tuple[str, str]] = []

    def content(hit):
        downloads.append(hit.key)
        return b"x" * size_of[hit.key]

    search = MemSearch(files)
    engine, sink = crawl_queries_into(Corpus(tmp_path), search, QUERIES, content, None)
    rows = Corpus(tmp_path).read("artifacts", columns=["repo", "path", "size_bytes"]).to_pylist()
    assert {(r["repo"], r["path"]) for r in rows} == _want(files)
    assert all(r["size_bytes"] == size_of[(r["repo"], r["path"])] for r in rows)
    assert engine.file_sizes is not None and engine.prior.learned
    # a file met again by a later leaf (a check's union, a rechecked leaf) takes its stored size
    assert len(downloads) == len(set(downloads)) == len(rows)
