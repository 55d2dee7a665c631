"""One API request through PyGithub's transport with our limit handling and retries, on a clock we control.

PyGithub does the HTTP, auth and error mapping; its own sleeping retry is off, so every wait goes through a
:class:`~aac.collectors.clock.Clock`. 5xx and transport failures (refused or reset connections, timeouts, bodies cut
short or undecodable) back off exponentially, up to ``max_retries``; only before the API's first answer do three
refused connections in a row end the crawl at once (a wrong ``--api-url``, not an outage). An emulator that answers
``X-Emulator-Clock: virtual`` is slept on by advancing its clock (:class:`ServerClock`). Tokens never appear in
clear: errors are scrubbed, stats and reprs carry only a token's index.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from aac.collectors.github.errors import GitHubError
from aac.collectors.github.limits import PoolToken

log = logging.getLogger(__name__)


def transport_failure(exc: BaseException) -> bool:
    """A request that failed in transit (refused, reset, timed out, body cut short or undecodable): worth another
    try. requests' malformed-URL and header errors (also ValueErrors) fail the same way every time."""
    import requests

    return isinstance(exc, requests.RequestException) and not isinstance(exc, ValueError)


class ServerClock:
    """Sleeps by advancing an emulator's virtual clock over HTTP (``POST /_emulator/clock/advance``)."""

    def __init__(self, api_url: str, session: Any):
        self.api_url = api_url.rstrip("/")
        self.http = session
        self._lock = threading.Lock()  # raw fetch threads back off through it too

    def now(self) -> float:
        with self._lock:
            r = self.http.get(f"{self.api_url}/_emulator/clock", timeout=10)
        r.raise_for_status()
        return float(r.json()["now"])

    def sleep(self, seconds: float) -> None:
        if seconds > 0:
            with self._lock:
                r = self.http.post(f"{self.api_url}/_emulator/clock/advance", data=json.dumps({"seconds": seconds}),
                                   headers={"Content-Type": "application/json"}, timeout=10)
            r.raise_for_status()


@dataclass
class ClientStats:
    search_requests: int = 0
    core_requests: int = 0
    raw_requests: int = 0
    graphql_requests: int = 0  # batched repository metadata (one request = one point for up to 100 repos)
    rate_limit_waits: int = 0
    waited_seconds: float = 0.0
    secondary_limits: int = 0
    primary_refusals: int = 0
    server_errors: int = 0
    retries: int = 0
    not_modified: int = 0  # 304 answers to conditional requests (no quota spent), search ones included
    search_not_modified: int = 0

    def as_dict(self) -> dict:
        return dict(self.__dict__)


class Transport:
    """Requests, waits, counters and secret scrubbing of :class:`~aac.collectors.github.client.GitHubClient`."""

    def scrub(self, text: str) -> str:
        for s in self._secrets:
            v = s.reveal()
            if v:
                text = text.replace(v, "***")
        return text

    def _adopt_clock(self, headers: dict) -> None:
        if not self._clock_given and str(headers.get("x-emulator-clock", "")).lower() == "virtual":
            with self._lock:
                if not isinstance(self.clock, ServerClock):
                    self.clock = ServerClock(self.api_url, self.session)

    def _sleep(self, seconds: float, why: str) -> None:
        if seconds <= 0:
            return
        with self._lock:
            self.stats.rate_limit_waits += why != "backoff"
            self.stats.waited_seconds += seconds
        if self.on_wait:
            self.on_wait(seconds, why)
        self.clock.sleep(seconds)

    def pause(self, seconds: float) -> None:
        """Wait on the client's clock (the emulator's virtual one when it says so), counted as a backoff."""
        self._sleep(seconds, "backoff")

    def _count(self, **inc: int) -> None:
        with self._lock:
            for name, n in inc.items():
                setattr(self.stats, name, getattr(self.stats, name) + n)

    def _api(self, resource: str, path: str, params: dict | None = None,
             headers: dict[str, str] | None = None, method: str = "GET", body: dict | None = None,
             limited: Callable[[Any], str | None] | None = None) -> tuple[dict, Any]:
        """Send an API request with limit handling and retries; returns (lower-cased headers, decoded JSON).
        The JSON is None for a 304 (the answer to ``If-None-Match``). ``limited(data)`` names a limit refusal
        hidden in a 200 answer (GraphQL's way), which is then waited out and retried like a 403."""
        from github import GithubException
        import requests

        what = f"{method} {path}"
        backoff = 1.0
        last = ""
        connect_failures = 0
        for attempt in range(self.max_retries + 1):
            tok = self._pick(resource)
            counter = {"search": "search_requests", "graphql": "graphql_requests"}.get(resource, "core_requests")
            setattr(self.stats, counter, getattr(self.stats, counter) + 1)
            if attempt:
                self.stats.retries += 1
            try:
                # "/graphql" is the GraphQL endpoint wherever the host puts it (GitHub: /graphql, GHE: /api/graphql)
                url = tok.gh.requester.graphql_url if path == "/graphql" else path
                got, data = tok.gh.requester.requestJsonAndCheck(method, url, parameters=params, headers=headers,
                                                                 input=body)
            except GithubException as exc:
                self._answered = True
                got = {str(k).lower(): v for k, v in (exc.headers or {}).items()}
                self._adopt_clock(got)
                status = exc.status
                last = f"HTTP {status}: {(exc.data or {}).get('message', '') if isinstance(exc.data, dict) else ''}"
                if status in (403, 429):
                    self._refused(tok, resource, status, got, last, what)
                    continue
                if status == 401 and len(self.tokens) > 1:  # one revoked token of a pool: the others go on
                    self._drop(tok)
                    continue
                if status >= 500:
                    self.stats.server_errors += 1
                    if attempt < self.max_retries:
                        self._sleep(backoff, "backoff")
                    backoff = min(backoff * 2, 60.0)
                    continue
                raise GitHubError(self.scrub(f"{what} failed: {last}"), status) from None
            except requests.RequestException as exc:
                if not transport_failure(exc):
                    raise GitHubError(self.scrub(f"{what}: bad request to {self.api_url}: {exc}")) from None
                last = type(exc).__name__
                self.stats.server_errors += 1
                refused = isinstance(exc, requests.ConnectionError) and not isinstance(exc, requests.Timeout)
                connect_failures = connect_failures + 1 if refused else 0
                if connect_failures > 2 and not self._answered:
                    # nothing has ever listened there (wrong URL?): say so instead of backing off for minutes
                    raise GitHubError(self.scrub(f"{what}: cannot connect to {self.api_url} ({last})")) from None
                if attempt < self.max_retries:
                    self._sleep(backoff, "backoff")
                backoff = min(backoff * 2, 60.0)
                continue
            self._answered = True
            got = {str(k).lower(): v for k, v in got.items()}
            self._adopt_clock(got)
            why = limited(data) if limited is not None else None
            if why:
                last = f"HTTP 200: {why}"
                self._refused(tok, resource, 200, got, why, what)
                continue
            self._note(tok, resource, got)
            tok.secondary_streak = 0
            return got, data
        raise GitHubError(self.scrub(f"{what} gave up after {self.max_retries + 1} attempts: {last}"))

    def _drop(self, tok: PoolToken) -> None:
        """Take a token the server no longer accepts (401) out of the pool; the crawl goes on with the others."""
        self.tokens = [t for t in self.tokens if t is not tok]
        for i, t in enumerate(self.tokens):
            t.index = i
        self._next = 0
        log.warning("a GitHub token was refused (401, revoked or expired?): going on with %d other(s)", len(self.tokens))
