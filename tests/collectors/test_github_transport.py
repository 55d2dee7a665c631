"""Transport failures and raw-route limits against a small scripted HTTP server: a body cut short is retried
like a reset connection (raw and API), and refused connections end a crawl at once only before the API has
ever answered (a wrong URL), not in an outage hours into a crawl; a raw limit's Retry-After is obeyed; a
renamed repository's metadata stays keyed by the name search found."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from aac.collectors.clock import VirtualClock
from aac.collectors.github import GitHubClient, GitHubError

TOKEN = "ghp_transportToken_abcdef0123456789abcd"
REPO = {"full_name": "o/ok", "default_branch": "main", "stargazers_count": 1, "forks_count": 0, "language": "Go",
        "license": {"spdx_id": "MIT"}, "fork": False, "archived": False, "pushed_at": "2026-01-01T00:00:00Z"}


class Server:
    """``route(path, n)`` (n: how many times this path was asked) -> (status, headers, body, declared length or
    None); a declared length past the body cuts the answer short, as a dropped connection does."""

    def __init__(self, route, port: int = 0):
        self.asked: dict[str, int] = {}
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):
                pass

            def do_GET(self):
                n = owner.asked[self.path] = owner.asked.get(self.path, 0) + 1
                status, headers, body, length = route(self.path, n)
                data = body if isinstance(body, bytes) else json.dumps(body).encode()
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(length if length is not None else len(data)))
                self.end_headers()
                self.wfile.write(data)
                if length is not None:
                    self.close_connection = True

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def serve():
    servers: list[Server] = []

    def make(route, port: int = 0):
        servers.append(Server(route, port))
        return servers[-1]

    yield make
    for s in servers:
        s.close()


def _client(url, waits, **kw):
    return GitHubClient([TOKEN], api_url=url, clock=VirtualClock(), max_retries=kw.pop("max_retries", 3),
                        on_wait=lambda s, why: waits.append((s, why)), graphql_batch=0, **kw)


def test_a_body_cut_short_is_retried_on_the_raw_route_and_the_api(serve):
    def route(path, n):
        if path.startswith("/raw/"):
            return (200, {}, b"partial", 1000) if n < 3 else (200, {}, b"# rules\n", None)
        if path.startswith("/repos/o/ok"):
            return (200, {"Content-Type": "application/json"}, b'{"full_name": "o/', 1000) if n < 3 else \
                (200, {"Content-Type": "application/json"}, REPO, None)
        return 404, {}, {"message": "Not Found"}, None

    server = serve(route)
    waits: list = []
    client = _client(server.url, waits)
    assert client.raw("o/ok", "abc", "CLAUDE.md") == b"# rules\n"
    assert client.repo_meta("o/ok")["full_name"] == "o/ok"
    assert [w for _, w in waits] == ["backoff"] * 4  # two retries each, waited on the clock
    client.close()


def test_a_body_always_cut_short_fails_that_file_with_an_error_not_the_crawl(serve):
    server = serve(lambda path, n: (200, {}, b"partial", 1000))
    client = _client(server.url, [])
    with pytest.raises(GitHubError, match="gave up"):
        client.raw("o/ok", "abc", "CLAUDE.md")
    client.close()


def test_refused_connections_after_the_api_has_answered_are_waited_out_not_a_wrong_url(serve):
    def route(path, n):  # no keep-alive: a closed server refuses the next request
        return 200, {"Content-Type": "application/json", "Connection": "close"}, REPO, None

    server = serve(route)
    waits: list = []
    revived: list[Server] = []

    def on_wait(seconds, why):  # the outage ends after the fourth backoff: the server listens again
        waits.append(seconds)
        if len(waits) == 4:
            revived.append(serve(route, port))

    port = server.port
    client = GitHubClient([TOKEN], api_url=server.url, clock=VirtualClock(), max_retries=10, on_wait=on_wait,
                          graphql_batch=0)
    assert client.repo_meta("o/ok")["full_name"] == "o/ok"
    server.close()  # an outage, thousands of requests into a crawl
    assert client.repo_meta("o/other")["stars"] == 1
    assert revived and len(waits) == 4
    client.close()


def test_refused_connections_before_any_answer_still_end_at_once_as_a_wrong_url():
    waits: list = []
    client = _client("http://127.0.0.1:9", waits, max_retries=10)  # nothing listens on the discard port
    with pytest.raises(GitHubError, match="cannot connect"):
        client.search_code("filename:CLAUDE.md")
    assert len(waits) == 2
    client.close()


@pytest.mark.parametrize("status", [429, 403])
def test_a_raw_limit_with_retry_after_is_waited_out_on_the_clock_capped_at_the_secondary_maximum(serve, status):
    def route(path, n):
        if n <= 2:
            return status, {"Retry-After": "1800" if n == 1 else "30"}, b"Too Many Requests", None
        return 200, {}, b"# rules\n", None

    server = serve(route)
    waits: list = []
    client = _client(server.url, waits)
    assert client.raw("o/ok", "abc", "CLAUDE.md") == b"# rules\n"
    assert waits == [(900.0, "rate_limit"), (30.0, "rate_limit")]  # as asked, at most 15 minutes per try
    assert client.stats.secondary_limits == 2
    client.close()


def test_a_renamed_repository_is_keyed_by_the_name_search_found_with_its_new_name_beside(serve):
    def route(path, n):  # GitHub answers a renamed repository's old name with a redirect to its id
        if path.startswith("/repos/o/old"):
            return 301, {"Location": f"{server.url}/repositories/42", "Content-Type": "application/json"}, \
                {"message": "Moved Permanently", "url": f"{server.url}/repositories/42"}, None
        if path.startswith("/repositories/42"):
            return 200, {"Content-Type": "application/json"}, {**REPO, "full_name": "o/new"}, None
        return 404, {}, {"message": "Not Found"}, None

    server = serve(route)
    client = _client(server.url, [])
    meta = client.repo_meta("o/old")
    assert (meta["full_name"], meta["current_name"], meta["license_spdx"]) == ("o/old", "o/new", "MIT")
    client.close()


def test_graphql_answers_a_renamed_repository_under_the_name_asked():
    node = {"nameWithOwner": "o/new", "stargazerCount": 5, "licenseInfo": {"spdxId": "MIT"}}
    meta = GitHubClient._graphql_payload(node, "o/old")
    assert (meta["full_name"], meta["current_name"], meta["stars"]) == ("o/old", "o/new", 5)
