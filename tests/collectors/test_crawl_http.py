"""The collector over real HTTP against the GitHub emulator (profile github unless stated)."""

import dataclasses
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from aac.collectors.collect import run_github_crawl
from aac.collectors.emulator import GITHUB, EmulatorServer
from aac.core.platforms import platform_of
from aac.core.config import Secret
from aac.core.store import Corpus

REPO_ROOT = Path(__file__).resolve().parents[2]
SHARED_DATA = REPO_ROOT.parent / "shared" / "data"
TOKEN = "ghp_collectorTestToken0123456789abcdef"



def indexable_known(sample_path) -> set[tuple[str, str]]:
    rows = [json.loads(line) for line in sample_path.open(encoding="utf-8")]
    return {(r["repo"], r["path"]) for r in rows
            if platform_of(r["path"]) and len(r["content"].encode("utf-8")) < 384 * 1024}


def found(corpus: Corpus) -> list[tuple[str, str]]:
    return [(r["repo"], r["path"]) for r in corpus.sql("select repo, path from artifacts").to_pylist()]


@pytest.fixture(scope="module")
def github_crawl(tmp_path_factory):
    """One full crawl of the real sample under profile github (shared by the assertions below)."""
    root = tmp_path_factory.mktemp("crawl-github")
    with EmulatorServer(_sample(), profile="github", seed=3) as srv:
        corpus = Corpus(root)
        summary = run_github_crawl(corpus, srv.url, [Secret(TOKEN)], clock=srv.clock)
        stats = srv.stats
    return corpus, summary, stats


def test_full_crawl_of_the_real_sample_finds_every_indexable_file_of_every_platform(github_crawl, sample_path):
    corpus, summary, stats = github_crawl
    rows = found(corpus)
    assert set(rows) == indexable_known(sample_path)
    assert len(rows) == len(set(rows))  # each (repo, path) once
    assert summary.search_requests >= stats["search_requests"] - stats["secondary_limited"] - stats["errors_5xx"]


def test_artifact_rows_carry_content_hashes_commit_license_and_platform(github_crawl, sample_path):
    corpus, _, _ = github_crawl
    sample = {(r["repo"], r["path"]): r for r in map(json.loads, sample_path.open(encoding="utf-8"))}
    rows = corpus.read("artifacts").to_pylist()
    for row in rows:
        src = sample[(row["repo"], row["path"])]
        assert row["status"] == "collected" and row["platform"] == platform_of(row["path"])
        assert row["content"] == src["content"]
        assert row["size_bytes"] == len(src["content"].encode("utf-8"))
        assert row["commit_sha"] == src["commit"]
        assert re.fullmatch(r"[0-9a-f]{64}", row["content_sha256"])
    repos = corpus.read("repos").to_pylist()
    assert len(repos) == len({r["full_name"] for r in repos}) == len({r["repo"] for r in rows})
    licensed = {r["full_name"]: r["license_spdx"] for r in repos}
    assert all(row["license_spdx"] == licensed[row["repo"]] for row in rows)


def test_frontier_rows_tile_every_query_and_record_the_requests_state(github_crawl):
    corpus, _, _ = github_crawl
    rows = corpus.read("crawl_queries").to_pylist()
    by_query = {}
    for r in rows:
        if r["state"] == "done":
            by_query.setdefault(r["query"], []).append((r["size_lo"], r["size_hi"]))
    for query, spans in by_query.items():
        pos = 0
        for lo, hi in sorted(spans):
            assert lo == pos, query
            pos = hi
        assert pos == 384 * 1024


def test_fault_injection_at_10_percent_gives_the_identical_set(github_crawl, tmp_path):
    corpus_ref, _, _ = github_crawl
    # 5xx, secondary limits and incomplete pages at 10%; slow replies (real sleeps, no fault) stay at 1%
    faults = dataclasses.replace(GITHUB.with_faults(0.10), slow_rate=0.01)
    with EmulatorServer(_sample(), profile=faults, seed=11) as srv:
        corpus = Corpus(tmp_path)
        summary = run_github_crawl(corpus, srv.url, [Secret(TOKEN)], clock=srv.clock)
        stats = srv.stats
    assert stats["errors_5xx"] > 0 and stats["secondary_limited"] > 0
    assert sorted(found(corpus)) == sorted(found(corpus_ref))
    assert summary.server_errors > 0


def _sample() -> Path:
    path = SHARED_DATA / "agent_configs_sample.jsonl"
    if not path.exists():
        pytest.skip(f"shared dev data not found at {path}")
    return path


def _run_cli(args, env, **kw):
    return subprocess.Popen([sys.executable, "-m", "aac", *args], cwd=REPO_ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def _done_rows(corpus: Corpus) -> dict[str, object]:
    if not corpus.exists("crawl_queries"):
        return {}
    return {r["query_id"]: r["updated_at"] for r in corpus.read("crawl_queries").to_pylist() if r["state"] == "done"}


def test_crawl_killed_with_sigkill_and_rerun_finishes_with_the_same_set_no_duplicates_no_partition_redone(
        sample_path, tmp_path):
    env = dict(os.environ, GITHUB_TOKEN=TOKEN, PYTHONPATH=str(REPO_ROOT))
    with EmulatorServer(sample_path, profile="github", seed=5) as srv:
        corpus = Corpus(tmp_path / "c")
        args = ["crawl", "--api-url", srv.url, "--corpus", str(corpus.root)]
        proc = _run_cli(args, env)
        deadline = time.time() + 120
        while time.time() < deadline and len(_done_rows(corpus)) < 8 and proc.poll() is None:
            time.sleep(0.05)
        assert proc.poll() is None, "crawl finished before it could be killed"
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        before = _done_rows(corpus)
        assert before
        out, err = _run_cli(args, env).communicate(timeout=300)
        assert "search requests" in out, err
    after = _done_rows(corpus)
    assert all(after[qid] == ts for qid, ts in before.items())  # completed partitions were not redone
    rows = found(corpus)
    assert len(rows) == len(set(rows))
    assert set(rows) == indexable_known(sample_path)
    assert TOKEN not in out + err


def test_token_never_reaches_parquet_catalog_or_cli_output(github_crawl, sample_path, tmp_path):
    corpus, summary, _ = github_crawl
    corpus.refresh_catalog()
    for f in corpus.root.rglob("*"):
        if f.is_file():
            assert TOKEN.encode() not in f.read_bytes(), f
    assert TOKEN not in summary.line() + repr(summary)
    # a failing run (nothing listening) reports the failure without the token
    env = dict(os.environ, GITHUB_TOKEN=TOKEN, PYTHONPATH=str(REPO_ROOT))
    p = _run_cli(["crawl", "--api-url", "http://127.0.0.1:9", "--corpus", str(tmp_path)], env)
    out, err = p.communicate(timeout=120)
    assert p.returncode == 1 and "crawl failed" in err
    assert TOKEN not in out + err
    for f in tmp_path.rglob("*.parquet"):
        assert TOKEN.encode() not in f.read_bytes()
    assert pq  # pyarrow is what wrote the parts scanned above
