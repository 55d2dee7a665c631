"""GitHubClient.repo_meta_many against the emulator over HTTP: GraphQL batches equal to the REST payloads,
limits and faults through the shared retry loop, and the REST fallback when GraphQL is unusable."""

import dataclasses
import logging
import math

import pytest

from aac.collectors.github import graphql as gh_graphql
from aac.collectors.emulator import GITHUB, IDEAL, EmulatorServer, generate_snapshot
from aac.collectors.github import GitHubClient

TOKEN = "ghp_graphqlTestToken_0123456789abcdef"
QUIET = dataclasses.replace(GITHUB, secondary_rate=0.0, error_rate=0.0, incomplete_rate=0.0, slow_rate=0.0)


@pytest.fixture(scope="module")
def snapshot():
    return list(generate_snapshot(400, 5))


def _names(records) -> list[str]:
    return sorted({r["repo"] for r in records})


def test_graphql_meta_equals_rest_meta_for_every_repo_of_a_snapshot(snapshot):
    names = _names(snapshot) + ["nobody/nothing-here"]
    with EmulatorServer(snapshot, profile=IDEAL) as srv:
        client = GitHubClient([TOKEN], api_url=srv.url, clock=srv.clock)
        got = client.repo_meta_many(names)
        assert srv.stats["graphql_requests"] == math.ceil(len(names) / 100) and srv.stats["core_requests"] == 0
        rest = GitHubClient([TOKEN], api_url=srv.url, clock=srv.clock, graphql_batch=0)
        assert got == {n: rest.repo_meta(n) for n in names}
        assert got["nobody/nothing-here"] is None
        assert any(m and m["license_spdx"] for m in got.values()) and any(m and m["language"] for m in got.values())
        # the same cache as repo_meta: nothing is asked again
        again = client.repo_meta_many(names[:50])
        assert all(again[n] is client.repo_meta(n) for n in names[:50])
        assert srv.stats["graphql_requests"] == math.ceil(len(names) / 100)
        assert client.stats.graphql_requests == math.ceil(len(names) / 100) and client.stats.core_requests == 0


def test_batch_size_is_configurable_and_duplicates_are_asked_once(snapshot):
    names = _names(snapshot)[:40]
    with EmulatorServer(snapshot, profile=IDEAL) as srv:
        client = GitHubClient([TOKEN], api_url=srv.url, clock=srv.clock, graphql_batch=7)
        got = client.repo_meta_many(names + names[:5])
        assert list(got) == names and srv.stats["graphql_requests"] == math.ceil(40 / 7)
    with pytest.raises(ValueError, match="graphql_batch"):
        GitHubClient([TOKEN], api_url="http://127.0.0.1:9", graphql_batch=-1)


def test_a_host_without_graphql_falls_back_to_rest_once_and_loses_nothing(snapshot, caplog):
    names = _names(snapshot)[:30]
    with EmulatorServer(snapshot, profile=dataclasses.replace(IDEAL, graphql=False)) as srv:
        client = GitHubClient([TOKEN], api_url=srv.url, clock=srv.clock)
        with caplog.at_level(logging.WARNING, logger="aac.collectors.github"):
            got = client.repo_meta_many(names)
            client.repo_meta_many(names[:3] + ["nobody/else"])
        assert not client.graphql_available and "GraphQL not usable" in caplog.text
        assert srv.stats["routes"]["graphql"] == 1  # asked once, then never again
        assert srv.stats["core_requests"] == 31 and all(got[n]["full_name"] == n for n in names)
        assert TOKEN not in caplog.text


def test_a_schema_that_rejects_the_query_falls_back_to_rest(snapshot, monkeypatch):
    """An older Enterprise schema without a field answers 200 with errors and no data: REST takes over."""
    monkeypatch.setattr(gh_graphql, "GRAPHQL_REPO_FIELDS", gh_graphql.GRAPHQL_REPO_FIELDS + " fieldOfANewerSchema")
    names = _names(snapshot)[:10]
    with EmulatorServer(snapshot, profile=IDEAL) as srv:
        client = GitHubClient([TOKEN], api_url=srv.url, clock=srv.clock)
        got = client.repo_meta_many(names)
        rest = GitHubClient([TOKEN], api_url=srv.url, clock=srv.clock, graphql_batch=0)
        assert got == {n: rest.repo_meta(n) for n in names}
        assert srv.stats["graphql_requests"] == 1 and not client.graphql_available


def test_a_spent_graphql_limit_answered_with_rate_limited_is_waited_out_on_the_clock(snapshot):
    names = _names(snapshot)[:20]
    with EmulatorServer(snapshot, profile=dataclasses.replace(QUIET, core_limit=2)) as srv:
        other = GitHubClient([TOKEN], api_url=srv.url, clock=srv.clock, graphql_batch=10)
        other.repo_meta_many(names)  # spends this token's two graphql points in another client
        client = GitHubClient([TOKEN], api_url=srv.url, clock=srv.clock, graphql_batch=10)
        t0 = srv.clock.now()
        got = client.repo_meta_many(names)
        assert got == other.repo_meta_many(names)
        assert srv.stats["rate_limited"] == 1 and client.stats.primary_refusals == 1
        assert srv.clock.now() - t0 >= 3000  # waited for the hourly window to reset
        assert client.stats.core_requests == 0


def test_server_errors_and_secondary_limits_are_retried_with_the_rest_machinery(snapshot):
    names = _names(snapshot)
    prof = dataclasses.replace(QUIET, core_limit=None, error_rate=0.3, secondary_rate=0.2)
    with EmulatorServer(snapshot, profile=prof, seed=2) as srv:
        client = GitHubClient([TOKEN, TOKEN + "2"], api_url=srv.url, clock=srv.clock, graphql_batch=10)
        got = client.repo_meta_many(names)
        ref = GitHubClient([TOKEN], api_url=srv.url, clock=srv.clock, graphql_batch=0)
        assert all(got[n] == ref.repo_meta(n) for n in names[:20])
        assert client.stats.server_errors > 0 and client.stats.secondary_limits > 0
        assert client.stats.retries == client.stats.server_errors + client.stats.secondary_limits
        text = repr(client.stats) + repr(client.tokens)
        assert TOKEN not in text
