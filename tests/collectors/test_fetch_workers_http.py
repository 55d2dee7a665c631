"""Parallel raw-content downloads over real HTTP to the emulator: the same corpus as one worker, and a file that
cannot be fetched becomes its own drop reason without stopping its partition."""

from __future__ import annotations

import logging
from dataclasses import replace

import pytest

from aac.collectors import github as gh
from aac.collectors.collect import run_github_crawl
from aac.collectors.emulator import EmulatorServer, generate_snapshot
from aac.collectors.emulator.profiles import IDEAL
from aac.core.config import Secret, Settings
from aac.core.store import Corpus

TOKEN = "ghp_fetchWorkersToken0123456789abcdef"
PLATFORM = "claude"
COLS = "artifact_id, repo, path, platform, blob_sha, commit_sha, size_bytes, content_sha256, license_spdx, " \
       "status, drop_reason, content"
# search answers are deterministic under ideal; 5xx on raw (and API) requests exercise retries inside threads
FLAKY = replace(IDEAL, name="ideal+5xx", error_rate=0.05)


def _rows(corpus: Corpus) -> list[dict]:
    return corpus.sql(f"select {COLS} from artifacts order by artifact_id").to_pylist()


@pytest.fixture(scope="module")
def served():
    with EmulatorServer(list(generate_snapshot(1200, 4)), profile=FLAKY, seed=2) as srv:
        yield srv


@pytest.fixture(scope="module")
def one_worker(served, tmp_path_factory):
    corpus = Corpus(tmp_path_factory.mktemp("w1"))
    summary = run_github_crawl(corpus, served.url, [Secret(TOKEN)], [PLATFORM], clock=served.clock, fetch_workers=1)
    return corpus, summary


def test_four_workers_store_exactly_the_rows_of_one(served, one_worker, tmp_path):
    c1, s1 = one_worker
    c4 = Corpus(tmp_path / "w4")
    s4 = run_github_crawl(c4, served.url, [Secret(TOKEN)], [PLATFORM], clock=served.clock, fetch_workers=4)
    rows = _rows(c1)
    assert len(rows) > 100 and all(r["status"] == "collected" for r in rows)
    assert _rows(c4) == rows
    assert s4.files == s1.files and s4.raw_requests >= len(rows)
    # each part file lists its rows in the same order as the single-worker crawl
    for f in c1.part_files("artifacts"):
        other = c4.table_dir("artifacts") / f.name
        assert Corpus(c1.root).sql(f"select artifact_id from '{f}'").to_pylist() == \
            Corpus(c4.root).sql(f"select artifact_id from '{other}'").to_pylist()


def test_a_file_that_cannot_be_fetched_is_dropped_and_its_partition_completes(served, one_worker, tmp_path,
                                                                             monkeypatch, caplog):
    c1, _ = one_worker
    rows = _rows(c1)
    broken = rows[len(rows) // 2]
    real_raw = gh.GitHubClient.raw

    def raw(self, full_name, ref, path):
        if (full_name, path) == (broken["repo"], broken["path"]):
            raise gh.GitHubError(f"raw {full_name}/{path}@{ref}: HTTP 403", 403)
        return real_raw(self, full_name, ref, path)

    monkeypatch.setattr(gh.GitHubClient, "raw", raw)
    c = Corpus(tmp_path / "broken")
    with caplog.at_level(logging.WARNING, logger="aac.collectors.collect"):
        run_github_crawl(c, served.url, [Secret(TOKEN)], [PLATFORM], clock=served.clock, fetch_workers=4)
    got = {r["artifact_id"]: r for r in _rows(c)}
    assert set(got) == {r["artifact_id"] for r in rows}
    dropped = got.pop(broken["artifact_id"])
    assert (dropped["status"], dropped["drop_reason"], dropped["content"]) == ("dropped", "content_unavailable", None)
    assert dropped["blob_sha"] == broken["blob_sha"]  # the hit itself is kept, so a refresh retries it
    assert list(got.values()) == [r for r in rows if r["artifact_id"] != broken["artifact_id"]]
    assert broken["path"] in caplog.text and TOKEN not in caplog.text


def test_fetch_workers_setting_is_read_from_the_environment_and_checked():
    assert Settings.from_env({}).fetch_workers == 8
    assert Settings.from_env({"AAC_FETCH_WORKERS": "3"}).fetch_workers == 3
    for bad in ("0", "many"):
        with pytest.raises(ValueError, match="AAC_FETCH_WORKERS"):
            Settings.from_env({"AAC_FETCH_WORKERS": bad})
