"""GitHubClient limit handling against the emulator over HTTP, on the emulator's virtual clock."""

import dataclasses

import pytest

from aac.collectors.emulator import GITHUB, IDEAL, EmulatorServer
from aac.collectors.github import GitHubClient, GitHubError, ServerClock, raw_base_for


TOKEN = "ghp_clientTestToken_abcdef0123456789"
RECORDS = [{"repo": f"acme/r{i}", "path": "CLAUDE.md", "content": f"# rules {i}\n- be nice\n", "commit": "c" * 40}
           for i in range(30)]

QUIET = dataclasses.replace(GITHUB, secondary_rate=0.0, error_rate=0.0, incomplete_rate=0.0, slow_rate=0.0)


def test_primary_search_limit_is_waited_out_on_the_clock_without_a_refused_request():
    with EmulatorServer(RECORDS, profile=QUIET) as srv:
        client = GitHubClient([TOKEN], api_url=srv.url, clock=srv.clock)
        t0 = srv.clock.now()
        for _ in range(25):
            assert len(client.search_code("filename:CLAUDE.md").hits) == 30
        assert srv.clock.now() - t0 >= 120  # three windows of 10 searches
        assert srv.stats["rate_limited"] == 0 and client.stats.rate_limit_waits >= 2


def test_a_token_pool_rotates_instead_of_waiting():
    with EmulatorServer(RECORDS, profile=QUIET) as srv:
        client = GitHubClient([TOKEN, TOKEN + "2"], api_url=srv.url, clock=srv.clock)
        t0 = srv.clock.now()
        for _ in range(20):
            client.search_code("filename:CLAUDE.md")
        assert srv.clock.now() == t0 and client.stats.rate_limit_waits == 0


def test_secondary_limit_without_retry_after_waits_at_least_a_minute_before_retrying():
    profile = dataclasses.replace(QUIET, secondary_rate=0.3, secondary_retry_after_share=0.0, search_limit=None)
    with EmulatorServer(RECORDS, profile=profile, seed=2) as srv:
        client = GitHubClient([TOKEN], api_url=srv.url, clock=srv.clock)
        t0 = srv.clock.now()
        for _ in range(20):
            client.search_code("filename:CLAUDE.md")
        hits = srv.stats["secondary_limited"]
        assert hits > 0
        # never retried while still blocked (each block is answered with another secondary refusal)
        assert client.stats.secondary_limits == hits
        assert srv.clock.now() - t0 >= 60 * hits


def test_secondary_limit_with_retry_after_is_obeyed():
    profile = dataclasses.replace(QUIET, secondary_rate=0.3, secondary_retry_after_share=1.0, search_limit=None)
    with EmulatorServer(RECORDS, profile=profile, seed=4) as srv:
        client = GitHubClient([TOKEN], api_url=srv.url, clock=srv.clock)
        for _ in range(20):
            client.search_code("filename:CLAUDE.md")
        assert srv.stats["secondary_limited"] == client.stats.secondary_limits > 0


def test_server_errors_are_retried_with_backoff():
    profile = dataclasses.replace(QUIET, error_rate=0.4, search_limit=None)
    with EmulatorServer(RECORDS, profile=profile, seed=1) as srv:
        client = GitHubClient([TOKEN], api_url=srv.url, clock=srv.clock)
        for _ in range(10):
            assert len(client.search_code("filename:CLAUDE.md").hits) == 30
        assert client.stats.server_errors > 0 and client.stats.retries == client.stats.server_errors


def test_virtual_emulator_clock_is_adopted_and_advanced_over_http():
    with EmulatorServer(RECORDS, profile=QUIET) as srv:
        client = GitHubClient([TOKEN], api_url=srv.url)  # no clock given: it learns from X-Emulator-Clock
        for _ in range(11):
            client.search_code("filename:CLAUDE.md")
        assert isinstance(client.clock, ServerClock)
        assert srv.clock.slept >= 1


def test_raw_content_is_pinned_to_the_commit_and_costs_no_quota():
    with EmulatorServer(RECORDS, profile=IDEAL) as srv:
        client = GitHubClient([TOKEN], api_url=srv.url, clock=srv.clock)
        hit = client.search_code("filename:CLAUDE.md repo:acme/r3").hits[0]
        assert hit.ref == "c" * 40
        assert client.raw(hit.repo, hit.ref, hit.path) == b"# rules 3\n- be nice\n"
        assert client.raw("acme/r3", "c" * 40, "missing.md") is None
        meta = client.repo_meta("acme/r3")
        assert meta["full_name"] == "acme/r3" and client.repo_meta("acme/r3") is meta  # cached: fetched once
        assert srv.stats["core_requests"] == 1


def test_errors_and_stats_never_show_the_token():
    with EmulatorServer(RECORDS, profile=IDEAL) as srv:
        client = GitHubClient([TOKEN], api_url=srv.url, clock=srv.clock)
        with pytest.raises(GitHubError) as err:
            client.search_code("filename:CLAUDE.md bogus:qualifier")
        text = str(err.value) + repr(client.tokens) + repr(client.stats)
        assert TOKEN not in text and err.value.status == 422


def test_raw_host_follows_the_api_host():
    assert raw_base_for("https://api.github.com") == "https://raw.githubusercontent.com"
    assert raw_base_for("https://ghe.example.com/api/v3") == "https://ghe.example.com/raw"  # not under the API
    assert raw_base_for("http://127.0.0.1:8765") == "http://127.0.0.1:8765/raw"  # the emulator


def test_missing_token_is_a_clear_error():
    with pytest.raises(GitHubError, match="GITHUB_TOKEN"):
        GitHubClient([], api_url="http://127.0.0.1:9")
