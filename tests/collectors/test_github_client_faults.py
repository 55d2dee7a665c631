"""Faults that must neither stop nor mislead a crawl, checked against a small scripted HTTP server
(the emulator has no blocked repositories or revoked tokens): a repository blocked with 403, an HTML page where the
API should be, GitHub's transient GraphQL timeouts, a revoked token in a pool, and backoff after the last try."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from aac.collectors.github import GitHubClient, GitHubError

TOKENS = ["ghp_auditTokenOne_abcdef0123456789abcd", "ghp_auditTokenTwo_abcdef0123456789abcd"]
REPO = {"full_name": "o/ok", "default_branch": "main", "stargazers_count": 1, "forks_count": 0, "language": "Go",
        "license": {"spdx_id": "MIT"}, "fork": False, "archived": False, "pushed_at": "2026-01-01T00:00:00Z"}


class Scripted:
    """Answers by route; records (method, path, Authorization) of every request."""

    def __init__(self, route):
        self.seen: list[tuple[str, str, str]] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def _answer(self, method):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                owner.seen.append((method, self.path, self.headers.get("Authorization", "")))
                status, payload, ctype = route(method, self.path, body, self.headers.get("Authorization", ""))
                data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                self._answer("GET")

            def do_POST(self):
                self._answer("POST")

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def scripted():
    servers = []

    def make(route):
        servers.append(Scripted(route))
        return servers[-1]

    yield make
    for s in servers:
        s.close()


def _client(url, tokens=TOKENS[:1], **kw):
    client = GitHubClient(tokens, api_url=url, max_retries=3, **kw)
    client._sleep = lambda seconds, why: None  # no real waiting in tests
    return client


def test_a_repository_blocked_with_403_is_left_out_not_the_crawls_end(scripted):
    def route(method, path, body, auth):
        if path.startswith("/repos/o/blocked"):
            return 403, {"message": "Repository access blocked", "block": {"reason": "tos"}}, "application/json"
        return 200, REPO, "application/json"

    srv = scripted(route)
    client = _client(srv.url, graphql_batch=0)
    assert client.repo_meta("o/blocked") is None
    assert client.repo_meta("o/ok")["full_name"] == "o/ok"


def test_an_html_page_where_the_api_should_be_is_an_error_not_an_empty_success(scripted):
    srv = scripted(lambda method, path, body, auth: (200, b"<html><body>Sign in</body></html>", "text/html"))
    with pytest.raises(GitHubError, match="check --api-url"):
        _client(srv.url).search_code("filename:CLAUDE.md")


def test_a_transient_graphql_timeout_is_retried_before_falling_back_to_rest(scripted):
    calls = {"graphql": 0}

    def route(method, path, body, auth):
        if path.endswith("/graphql"):
            calls["graphql"] += 1
            if calls["graphql"] == 1:
                return 200, {"data": None, "errors": [{"message": "Timeout on validation of query"}]}, "application/json"
            aliases = [line.split(":")[0].strip() for line in json.loads(body)["query"].splitlines()
                       if ": repository(" in line]
            node = {"nameWithOwner": "o/ok", "defaultBranchRef": {"name": "main"}, "stargazerCount": 1,
                    "forkCount": 0, "primaryLanguage": {"name": "Go"}, "licenseInfo": {"spdxId": "MIT"},
                    "isFork": False, "isArchived": False, "pushedAt": "2026-01-01T00:00:00Z"}
            return 200, {"data": {a: node for a in aliases}}, "application/json"
        return 200, REPO, "application/json"

    srv = scripted(route)
    client = _client(srv.url)
    got = client.repo_meta_many(["o/ok"])
    assert client.graphql_available and calls["graphql"] == 2
    assert got["o/ok"] is not None and not any(p.startswith("/repos/") for _, p, _ in srv.seen)


def test_a_revoked_token_of_a_pool_is_dropped_and_the_others_go_on(scripted):
    def route(method, path, body, auth):
        if TOKENS[0] in auth:
            return 401, {"message": "Bad credentials"}, "application/json"
        return 200, {"total_count": 0, "incomplete_results": False, "items": []}, "application/json"

    srv = scripted(route)
    client = _client(srv.url, tokens=TOKENS)
    for _ in range(3):
        assert client.search_code("filename:CLAUDE.md").hits == []
    assert len(client.tokens) == 1
    assert [a for _, _, a in srv.seen].count(f"token {TOKENS[0]}") == 1  # refused once, never asked again


def test_no_backoff_after_the_last_attempt(scripted):
    srv = scripted(lambda method, path, body, auth: (502, {"message": "bad gateway"}, "application/json"))
    client = GitHubClient(TOKENS[:1], api_url=srv.url, max_retries=2)
    slept = []
    client._sleep = lambda seconds, why: slept.append(why)
    with pytest.raises(GitHubError, match="gave up after 3 attempts"):
        client.search_code("filename:CLAUDE.md")
    assert slept.count("backoff") == 2


@pytest.mark.parametrize("token", ["ghp_abc\u2019def", "ghp_abc def", "ghp_abcdef\n"])
def test_a_token_no_http_header_can_carry_is_a_clear_error_that_does_not_show_it(token):
    with pytest.raises(GitHubError, match="token 1 has a character an HTTP header cannot carry") as err:
        GitHubClient([token], api_url="http://127.0.0.1:9")
    assert "ghp_abc" not in str(err.value)
