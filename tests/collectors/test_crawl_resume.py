"""A crawl killed and resumed keeps every file it stored: search order changes between runs, so a range asked
again answers other files than the first time, and what the part held before must not vanish."""

from __future__ import annotations

import bisect
import random

import pytest
from collector_memsearch import _Q, MemSearch, unit

from aac.collectors.collect import crawl_queries_into
from aac.collectors.crawl import Hit, Page
from aac.core.store import Corpus


class Reordered(MemSearch):
    """The same index whose result order depends on ``salt`` (GitHub's order is not stable over time)."""

    salt = "first run"

    def __call__(self, q: str, page: int) -> Page:
        m = _Q.match(q)
        base, lo, hi = (m.group(1), int(m.group(2)), int(m.group(3) or m.group(2))) if m else (q, 0, 10**9)
        arr = self.by_query.get(base, [])
        match = arr[bisect.bisect_left(arr, (lo,)): bisect.bisect_left(arr, (hi + 1,))]
        ranked = sorted(match, key=lambda f: unit(f[1], f[2], "order", q, self.salt))[:1000]
        return Page([Hit(f[1], f[2]) for f in ranked[(page - 1) * 100: page * 100]], len(match), False)


class Killed(BaseException):
    pass


def _meta(name):
    return {"full_name": name, "stars": 1, "forks": 0, "language": None, "license_spdx": "MIT",
            "license_source": "api", "default_branch": "main", "pushed_at": None, "is_fork": False, "archived": False}


def test_a_split_range_asked_again_after_a_kill_keeps_the_files_its_first_answer_stored(tmp_path, monkeypatch):
    rnd = random.Random(3)
    files = [("q1", f"o{k % 53}/r{k % 701}", f"CLAUDE{k}.md", min(int(rnd.lognormvariate(7.3, 1.1)), 300_000))
             for k in range(2000)]
    real = Corpus.write_part

    def dying(self, table, part, data):  # the root probe's split is recorded, then the crawl dies
        real(self, table, part, data)
        if table == "crawl_queries":
            raise Killed

    monkeypatch.setattr(Corpus, "write_part", dying)
    with pytest.raises(Killed):
        crawl_queries_into(Corpus(tmp_path), Reordered(files), [("claude", "q1")], lambda h: b"# rules\n", _meta)
    monkeypatch.setattr(Corpus, "write_part", real)
    first = {(r["repo"], r["path"]) for r in Corpus(tmp_path).read("artifacts").to_pylist()}
    assert len(first) == 100

    later = Reordered(files)
    later.salt = "resumed later"
    crawl_queries_into(Corpus(tmp_path), later, [("claude", "q1")], lambda h: b"# rules\n", _meta)
    rows = Corpus(tmp_path).read("artifacts", columns=["repo", "path"]).to_pylist()
    stored = [(r["repo"], r["path"]) for r in rows]
    assert len(stored) == len(set(stored))  # each file once
    assert set(stored) == {(r, p) for _, r, p, _ in files}
    repos = Corpus(tmp_path).read("repos", columns=["full_name"]).column("full_name").to_pylist()
    assert sorted(repos) == sorted({r for r, _ in stored})  # every stored file's repository, once


def test_an_empty_answer_search_calls_incomplete_is_left_pending_and_asked_again_by_the_next_run(tmp_path):
    from aac.collectors.collect.frontier import covers_axis, done_leaves, frontier_rows

    files = [Hit("o/r", f"d{i}/CLAUDE.md") for i in range(250)]
    calls = {"n": 0}

    def search(q, page):  # the first three asks time out with nothing listed
        calls["n"] += 1
        if calls["n"] <= 3:
            return Page([], 0, True)
        return Page(files[(page - 1) * 100: page * 100], 250, False)

    queries = [("claude", "filename:CLAUDE.md")]
    engine, _ = crawl_queries_into(Corpus(tmp_path), search, queries, lambda h: b"# rules\n", _meta)
    frontier = Corpus(tmp_path).read("crawl_queries").to_pylist()
    assert [(r["state"], r["incomplete"]) for r in frontier] == [("pending", True)]  # not a done leaf of 0 files
    assert engine.stats.unanswered == 1
    assert engine.model.errors == [] and engine.model.ratios == []  # a timeout is no evidence about sizes
    assert not covers_axis(done_leaves(frontier_rows(Corpus(tmp_path))["filename:CLAUDE.md"]))  # the query is unfinished

    crawl_queries_into(Corpus(tmp_path), search, queries, lambda h: b"# rules\n", _meta)
    assert Corpus(tmp_path).read("artifacts").num_rows == 250
    frontier = Corpus(tmp_path).read("crawl_queries").to_pylist()
    assert "pending" not in {r["state"] for r in frontier}
    assert covers_axis(done_leaves(frontier_rows(Corpus(tmp_path))["filename:CLAUDE.md"]))


def test_files_whose_download_failed_are_downloaded_again_by_the_next_run(tmp_path):
    files = [Hit("o/r", f"d{i}/CLAUDE.md", f"{i:040x}") for i in range(150)]

    def search(q, page):
        return Page(files[(page - 1) * 100: page * 100], 150, False)

    queries = [("claude", "filename:CLAUDE.md")]
    throttled = {"on": True}

    def fetch(hit):  # raw throttled for a third of the files in the first run
        return None if throttled["on"] and hit.path.startswith("d1") else b"# rules\n"

    crawl_queries_into(Corpus(tmp_path), search, queries, fetch, _meta)
    rows = Corpus(tmp_path).read("artifacts").to_pylist()
    dropped = {r["path"] for r in rows if r["drop_reason"] == "content_unavailable"}
    assert dropped and all(r["status"] == "dropped" for r in rows if r["path"] in dropped)

    throttled["on"] = False
    asked = []
    crawl_queries_into(Corpus(tmp_path), lambda q, p: asked.append(q) or search(q, p), queries, fetch, _meta)
    rows = Corpus(tmp_path).read("artifacts").to_pylist()
    assert not asked  # the query is finished: nothing is searched again
    assert len(rows) == 150 and all(r["status"] == "collected" and r["content"] == "# rules\n" for r in rows)


def test_a_leaf_rewritten_after_its_check_downloads_only_new_files_and_keeps_collected_rows(tmp_path):
    from aac.collectors.collect import CorpusSink
    from aac.collectors.crawl import LeafRecord
    from aac.collectors.partition import SizeRange

    query, rng = "filename:CLAUDE.md", SizeRange(0, 1000)
    downloads: list[str] = []
    throttled = {"on": False}

    def fetch(hit):
        downloads.append(hit.path)
        return None if throttled["on"] else b"# rules\n"

    sink = CorpusSink(Corpus(tmp_path), {query: "claude"}, fetch, _meta)
    hits = {("o/r", f"d{i}/CLAUDE.md"): Hit("o/r", f"d{i}/CLAUDE.md", "a" * 40, "c" * 40) for i in range(150)}
    sink.leaf_done(query, [LeafRecord(query, rng, "leaf", 150, 2, 150)], hits)
    downloads.clear()
    throttled["on"] = True  # raw is throttled when the check's union comes back
    more = dict(hits)
    more[("o/r", "x/CLAUDE.md")] = Hit("o/r", "x/CLAUDE.md", "b" * 40, "c" * 40)
    more[("o/r", "d0/CLAUDE.md")] = Hit("o/r", "d0/CLAUDE.md", "e" * 40, "f" * 40)  # changed since
    sink.leaf_done(query, [LeafRecord(query, rng, "leaf", 150, 2, 150, lost=1)], more)  # what _recheck does
    rows = {r["path"]: r for r in Corpus(tmp_path).read("artifacts").to_pylist()}
    assert downloads == ["d0/CLAUDE.md", "x/CLAUDE.md"]  # only the changed file and the one the check found
    assert sink.totals.new_files == 151
    assert all(rows[f"d{i}/CLAUDE.md"]["status"] == "collected" for i in range(150))
    assert rows["d0/CLAUDE.md"]["blob_sha"] == "a" * 40  # its new version failed: the stored one stays
    assert rows["x/CLAUDE.md"]["drop_reason"] == "content_unavailable"
