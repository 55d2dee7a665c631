"""A crawl over real HTTP (emulator profile github) asks repository metadata in GraphQL batches: the same
``repos`` and ``artifacts`` rows as the one-REST-request-per-repo crawl, for a fraction of the requests."""

import math

import pytest

from aac.collectors.collect import run_github_crawl
from aac.collectors.emulator import EmulatorServer, generate_snapshot
from aac.config import Secret
from aac.store import Corpus

TOKEN = "ghp_crawlGraphqlToken0123456789abcdef"
REPO_COLS = "full_name, stars, forks, language, license_spdx, license_source, default_branch, pushed_at, is_fork, archived"
ART_COLS = "artifact_id, repo, path, platform, blob_sha, commit_sha, license_spdx, content_sha256, status"


@pytest.fixture(scope="module")
def crawls(tmp_path_factory):
    records = list(generate_snapshot(800, 4))
    out = {}
    for batch in (100, 0):
        with EmulatorServer(records, profile="github", seed=3) as srv:
            corpus = Corpus(tmp_path_factory.mktemp(f"gql{batch}"))
            summary = run_github_crawl(corpus, srv.url, [Secret(TOKEN)], clock=srv.clock, graphql_batch=batch)
            out[batch] = (corpus, summary, srv.stats)
    return out


def test_batched_crawl_writes_the_same_rows_as_the_rest_crawl(crawls):
    (gql, _, _), (rest, _, _) = crawls[100], crawls[0]
    assert (gql.sql(f"select {REPO_COLS} from repos order by 1").to_pylist()
            == rest.sql(f"select {REPO_COLS} from repos order by 1").to_pylist())
    assert (gql.sql(f"select {ART_COLS} from artifacts order by 1").to_pylist()
            == rest.sql(f"select {ART_COLS} from artifacts order by 1").to_pylist())


def test_batched_crawl_spends_no_core_request_and_about_one_graphql_request_per_leaf(crawls):
    corpus, summary, stats = crawls[100]
    _, rest_summary, rest_stats = crawls[0]
    repos = corpus.sql("select count(*) as n from repos").to_pylist()[0]["n"]
    assert repos > 200
    assert stats["core_requests"] == summary.core_requests == 0
    assert summary.graphql_requests == stats["graphql_requests"]
    # one request per written leaf (each leaf holds < 100 new repos here, plus retried faults), never one per repo
    assert math.ceil(repos / 100) <= summary.graphql_requests <= summary.partitions + summary.splits + 10
    assert rest_stats["graphql_requests"] == 0 and rest_summary.core_requests >= repos
    assert stats["graphql_requests"] * 5 < rest_stats["core_requests"]
    assert "graphql" in summary.line()
