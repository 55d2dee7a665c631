"""Repository metadata asked across partitions (in memory, no HTTP): one call per batch of new repos, rows equal
to writing each partition at once, and a crawl stopped at any write resumes to the same rows, each once,
every artifact with its repo's licence."""

from __future__ import annotations

import math
import random

import pytest
from collector_memsearch import MemSearch, unit

from aac.collectors import collect
from aac.collectors.collect import crawl_queries_into, sink
from aac.collectors.partition import MAX_INDEXED
from aac.core.store import Corpus

QUERIES = [("claude", "q1"), ("cursor", "q2")]
LICENSES = ("MIT", "Apache-2.0", None)
ART = ["artifact_id", "repo", "path", "platform", "license_spdx", "status", "content"]
REPO = ["full_name", "license_spdx", "stars", "default_branch"]


def _files(n: int, seed: int) -> list[tuple[str, str, str, int]]:
    rnd = random.Random(seed)
    # ~700 repos holding several files each, some in both queries
    return [(rnd.choice(("q1", "q2")), f"o{k % 53}/r{k % 701}", f"CLAUDE{k}.md",
             min(int(rnd.lognormvariate(7.3, 1.1)), 500_000)) for k in range(n)]


class Meta:
    """fetch_repos / fetch_repo over a fixed table; repos whose hash is small are gone (None)."""

    def __init__(self):
        self.batches: list[list[str]] = []
        self.singles: list[str] = []

    @staticmethod
    def of(name: str) -> dict | None:
        if unit(name, "gone") < 0.05:
            return None
        return {"full_name": name, "stars": int(unit(name, "stars") * 1000), "forks": 0, "language": "Python",
                "license_spdx": LICENSES[int(unit(name, "lic") * 3)], "license_source": "api",
                "default_branch": "main", "pushed_at": None, "is_fork": False, "archived": False}

    def many(self, names):
        self.batches.append(list(names))
        return {n: self.of(n) for n in names}

    def one(self, name):
        self.singles.append(name)
        return self.of(name)


def _content(hit):
    return f"# {hit.repo} {hit.path}\n".encode() * 3


def _crawl(root, files, meta: Meta, batch: int, rest_only: bool = False):
    return crawl_queries_into(Corpus(root), MemSearch(files), QUERIES, _content, meta.one,
                              fetch_repos=None if rest_only else meta.many, repo_batch=batch)


def _rows(root) -> tuple[list[dict], list[dict]]:
    c = Corpus(root)
    return (c.sql(f"select {', '.join(ART)} from artifacts order by artifact_id").to_pylist(),
            c.sql(f"select {', '.join(REPO)} from repos order by full_name").to_pylist())


def _check_complete(root, files) -> None:
    arts, repos = _rows(root)
    assert {(a["repo"], a["path"]) for a in arts} == {(r, p) for _, r, p, s in files if s < MAX_INDEXED}
    assert len({a["artifact_id"] for a in arts}) == len(arts)  # each (repo, path) once
    for a in arts:  # every artifact carries its repo's licence
        assert a["license_spdx"] == (Meta.of(a["repo"]) or {}).get("license_spdx")
    live = {a["repo"] for a in arts if Meta.of(a["repo"]) is not None}
    assert [r["full_name"] for r in repos] == sorted(live)  # one repos row per live repo, gone ones none


@pytest.fixture(scope="module")
def files():
    return _files(4000, seed=3)


@pytest.fixture(scope="module")
def per_partition(files, tmp_path_factory):
    root = tmp_path_factory.mktemp("b1")
    meta = Meta()
    _, sink = _crawl(root, files, meta, batch=1)
    return root, meta, sink


def test_batched_across_partitions_asks_one_call_per_hundred_new_repos_for_the_same_rows(files, per_partition,
                                                                                       tmp_path):
    root1, meta1, sink1 = per_partition
    meta = Meta()
    _, sink = _crawl(tmp_path, files, meta, batch=100)
    repos = {r for _, r, _, s in files if s < MAX_INDEXED}
    asked = [n for b in meta.batches for n in b]
    assert len(asked) == len(set(asked)) == len(repos) and not meta.singles
    assert len(meta.batches) == math.ceil(len(repos) / 100)
    assert all(len(b) == 100 for b in meta.batches[:-1])
    # written one partition at a time, it takes about one call per partition
    assert len(meta1.batches) > 3 * len(meta.batches) and sink.totals.partitions == sink1.totals.partitions
    assert _rows(tmp_path) == _rows(root1)
    _check_complete(tmp_path, files)
    assert not sink._waiting and not sink._unknown


def test_rest_only_asks_each_repo_once_and_writes_the_same_rows(files, per_partition, tmp_path):
    root1, _, _ = per_partition
    meta = Meta()
    _crawl(tmp_path, files, meta, batch=100, rest_only=True)
    assert not meta.batches and len(meta.singles) == len(set(meta.singles))
    assert _rows(tmp_path) == _rows(root1)


class Killed(BaseException):
    """Stands for SIGKILL: nothing after it runs (not even the end-of-crawl flush)."""


@pytest.mark.parametrize("kill_at", [1, 2, 5, 13, 40, 77])
def test_a_crawl_killed_at_any_write_resumes_to_the_same_rows_and_reasks_no_stored_repo(
        files, per_partition, tmp_path, monkeypatch, kill_at):
    root1, _, _ = per_partition
    writes = {"n": 0}
    real = Corpus.write_part

    def dying(self, table, part, data):
        writes["n"] += 1
        if writes["n"] == kill_at:
            raise Killed
        return real(self, table, part, data)

    monkeypatch.setattr(Corpus, "write_part", dying)
    with pytest.raises(Killed):
        _crawl(tmp_path, files, Meta(), batch=100)
    monkeypatch.setattr(Corpus, "write_part", real)
    stored = {r["full_name"] for r in Corpus(tmp_path).read("repos", columns=["full_name"]).to_pylist()} \
        if Corpus(tmp_path).exists("repos") else set()
    kept = Corpus(tmp_path).read("artifacts", columns=["artifact_id"]).num_rows \
        if Corpus(tmp_path).exists("artifacts") else 0
    meta = Meta()
    _, sink = _crawl(tmp_path, files, meta, batch=100)
    assert not stored & {n for b in meta.batches for n in b}  # stored metadata is not asked again
    assert sink.totals.new_files == sink.totals.files - kept  # files stored before the kill are not "new"
    assert _rows(tmp_path) == _rows(root1)
    _check_complete(tmp_path, files)


def test_waiting_content_past_the_memory_bound_is_written_without_waiting_for_a_full_batch(
        files, per_partition, tmp_path, monkeypatch):
    root1, _, _ = per_partition
    monkeypatch.setattr(sink, "MAX_WAITING_BYTES", 2000)
    meta = Meta()
    _crawl(tmp_path, files, meta, batch=100)
    assert any(len(b) < 100 for b in meta.batches[:-1])
    assert _rows(tmp_path) == _rows(root1)


def test_repo_batch_must_be_positive(tmp_path):
    with pytest.raises(ValueError, match="repo_batch"):
        collect.CorpusSink(Corpus(tmp_path), {}, None, None, repo_batch=0)
