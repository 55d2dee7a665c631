"""A crawl over real HTTP (emulator profile github) asks repository metadata in GraphQL batches of 100 repos
across partitions: the same ``repos`` and ``artifacts`` rows as the one-REST-request-per-repo crawl and as a host
without GraphQL, for a fraction of the requests; ``aac crawl --graphql-batch N`` sets the batch."""

import dataclasses
import math

import pytest
from typer.testing import CliRunner

from aac.collectors.collect import run_github_crawl
from aac.collectors.emulator import GITHUB, EmulatorServer, generate_snapshot
from aac.core.config import Secret
from aac.core.store import Corpus

TOKEN = "ghp_crawlGraphqlToken0123456789abcdef"
REPO_COLS = "full_name, stars, forks, language, license_spdx, license_source, default_branch, pushed_at, is_fork, archived"
ART_COLS = "artifact_id, repo, path, platform, blob_sha, commit_sha, license_spdx, content_sha256, status"


@pytest.fixture(scope="module")
def crawls(tmp_path_factory):
    records = list(generate_snapshot(800, 4))
    out = {}
    for name, batch, profile in ((100, 100, GITHUB), (0, 0, GITHUB),
                                 ("no graphql", None, dataclasses.replace(GITHUB, graphql=False))):
        with EmulatorServer(records, profile=profile, seed=3) as srv:
            corpus = Corpus(tmp_path_factory.mktemp("gql"))
            summary = run_github_crawl(corpus, srv.url, [Secret(TOKEN)], clock=srv.clock, graphql_batch=batch)
            out[name] = (corpus, summary, srv.stats)
    return out


@pytest.mark.parametrize("other", [0, "no graphql"])
def test_batched_crawl_writes_the_same_rows_as_the_rest_crawls(crawls, other):
    (gql, _, _), (rest, _, _) = crawls[100], crawls[other]
    assert (gql.sql(f"select {REPO_COLS} from repos order by 1").to_pylist()
            == rest.sql(f"select {REPO_COLS} from repos order by 1").to_pylist())
    assert (gql.sql(f"select {ART_COLS} from artifacts order by 1").to_pylist()
            == rest.sql(f"select {ART_COLS} from artifacts order by 1").to_pylist())
    assert gql.sql("select count(*) as n from artifacts where license_spdx is not null").to_pylist()[0]["n"] > 0


def test_batched_crawl_spends_no_core_request_and_one_graphql_request_per_hundred_repos(crawls):
    corpus, summary, stats = crawls[100]
    _, rest_summary, rest_stats = crawls[0]
    repos = corpus.sql("select count(*) as n from repos").to_pylist()[0]["n"]
    assert repos > 200
    assert stats["core_requests"] == summary.core_requests == 0
    assert summary.graphql_requests == stats["graphql_requests"]
    # batched across partitions: repos / 100, plus only the requests the profile's faults made the client retry
    faults = stats["errors_5xx"] + stats["secondary_limited"] + stats["rate_limited"]
    assert math.ceil(repos / 100) <= summary.graphql_requests <= math.ceil(repos / 100) + faults
    assert summary.graphql_requests < summary.partitions + summary.splits
    assert rest_stats["graphql_requests"] == 0 and rest_summary.core_requests >= repos
    assert stats["graphql_requests"] * 5 < rest_stats["core_requests"]
    assert "graphql" in summary.line()


def test_a_host_without_graphql_gets_one_rest_request_per_repo_after_one_refused_graphql_request(crawls):
    corpus, summary, stats = crawls["no graphql"]
    repos = corpus.sql("select count(*) as n from repos").to_pylist()[0]["n"]
    assert summary.graphql_requests == 1 and repos <= summary.core_requests


def test_cli_graphql_batch_flag_sets_the_batch_and_zero_means_rest(tmp_path, monkeypatch):
    from aac.cli import app

    records = list(generate_snapshot(150, 8))
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    runner = CliRunner()
    lines = {}
    with EmulatorServer(records, profile=dataclasses.replace(GITHUB, error_rate=0.0, secondary_rate=0.0)) as srv:
        for n in (0, 25):
            before = srv.stats
            res = runner.invoke(app, ["crawl", "--api-url", srv.url, "--corpus", str(tmp_path / str(n)),
                                      "--graphql-batch", str(n), "-p", "claude"])
            assert res.exit_code == 0, res.output
            lines[n] = {k: srv.stats[k] - before[k] for k in ("graphql_requests", "core_requests")}
            repos = Corpus(tmp_path / str(n)).sql("select count(*) as n from repos").to_pylist()[0]["n"]
            assert f"{lines[n]['graphql_requests']} graphql" in res.output and TOKEN not in res.output
            if n == 0:
                assert lines[0]["graphql_requests"] == 0 and lines[0]["core_requests"] >= repos > 25
            else:
                assert lines[n]["core_requests"] == 0 and lines[n]["graphql_requests"] == math.ceil(repos / n)
    bad = runner.invoke(app, ["crawl", "--api-url", "http://127.0.0.1:9", "--corpus", str(tmp_path / "x"),
                              "--graphql-batch", "-1"])
    assert bad.exit_code == 2
