"""GitHub REST client for the crawl: PyGithub's transport with our own clock-aware limit handling.

PyGithub (``Github(base_url=..., retry=None, seconds_between_requests=0)``) does the HTTP, auth and error
mapping; its own sleeping retry is switched off so that every wait goes through a :class:`Clock`:

- primary limits: a response with ``x-ratelimit-remaining: 0`` marks the token spent until
  ``x-ratelimit-reset``; the next request uses another token of the pool or sleeps until the earliest reset;
- secondary limits (403/429 with remaining > 0): ``retry-after`` is obeyed; without it the token rests 60 s,
  doubling on each consecutive hit (GitHub's documented advice);
- 5xx and transport failures (refused or reset connections, timeouts, bodies cut short or undecodable):
  exponential backoff, up to ``max_retries``; only before the API's first answer do three refused
  connections in a row end the crawl at once (a wrong ``--api-url``, not an outage);
- content comes from the raw route pinned to the result's commit (no API quota; a 403/429 there with
  ``retry-after`` is waited out, at most ``SECONDARY_MAX_WAIT`` per try); repo metadata is fetched
  once per repository and cached, in batches of up to 100 repositories per GraphQL request
  (:meth:`GitHubClient.repo_meta_many`: ``POST /graphql``, one point of the separate 5,000 points/h GraphQL
  limit per query) — a 200 whose ``errors`` say RATE_LIMITED is waited out like a 403; a host without usable
  GraphQL (404, or a schema that rejects the query) falls back to one REST request per repository;
- threads: :meth:`GitHubClient.raw` may be called from several threads at once (a ``requests.Session`` per
  thread, counters and clock adoption under a lock); the API methods are for one thread at a time;
- conditional requests: with a :class:`ValidatorCache`, REST repo metadata and search pages are asked with the
  validators of the last answer (``If-None-Match``); a 304 costs no quota and the stored answer is reused.
  GraphQL answers carry no ``ETag`` and cannot be asked conditionally: a refresh pays one point per 100
  repositories instead of one free 304 request per repository (far fewer requests, a few points of quota).

Sleeping: :class:`RealClock` on GitHub. An emulator that answers ``X-Emulator-Clock: virtual`` is slept on by
advancing its clock (:class:`ServerClock`), so a crawl that waits hours of rate-limit windows takes seconds.
GitHub Enterprise is the same code with ``api_url=https://HOST/api/v3``.

Tokens never leave this module in clear: errors are scrubbed, stats and reprs carry only a token's index.
"""

from __future__ import annotations

import json
import logging
import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlparse

from aac.collectors.clock import Clock, RealClock
from aac.collectors.crawl import Hit, Page
from aac.collectors.validators import ValidatorCache, request_key
from aac.core.config import DEFAULT_GITHUB_API, Secret

log = logging.getLogger(__name__)

SECONDARY_BASE_WAIT = 60.0
SECONDARY_MAX_WAIT = 15 * 60.0
GRAPHQL_BATCH = 100  # repositories per GraphQL request; the query costs one point whatever the number
# The GraphQL fields behind every key of the REST payload (see REPO_FIELDS).
GRAPHQL_REPO_FIELDS = ("nameWithOwner stargazerCount forkCount primaryLanguage { name } licenseInfo { spdxId } "
                       "defaultBranchRef { name } pushedAt isFork isArchived")
# payload key -> (REST field, GraphQL field); a dotted name reads a nested object. One table for both answers
# keeps the GraphQL payload equal to the REST one, key for key (GRAPHQL_REPO_FIELDS asks the GraphQL side).
REST, GRAPHQL = 0, 1
REPO_FIELDS = {
    "stars": ("stargazers_count", "stargazerCount"),
    "forks": ("forks_count", "forkCount"),
    "language": ("language", "primaryLanguage.name"),
    "license_spdx": ("license.spdx_id", "licenseInfo.spdxId"),
    "default_branch": ("default_branch", "defaultBranchRef.name"),
    "pushed_at": ("pushed_at", "pushedAt"),
    "is_fork": ("fork", "isFork"),
    "archived": ("archived", "isArchived"),
}


def _field(data: dict, dotted: str) -> Any:
    for name in dotted.split("."):
        data = data.get(name) if isinstance(data, dict) else None
    return data


def _payload(data: dict, full_name: str, api: int) -> dict:
    """Repository metadata from a REST (``api=REST``) or GraphQL (``api=GRAPHQL``) answer, in one shape. Keyed
    by the name asked (``full_name``: search's, which ``artifacts.repo`` holds), not the answer's: REST follows a
    rename's redirect and GraphQL resolves it, so the answer can name the repository's new name."""
    out = {"full_name": full_name, "current_name": _field(data, ("full_name", "nameWithOwner")[api]) or None}
    out.update((key, _field(data, names[api])) for key, names in REPO_FIELDS.items())
    out["license_source"] = "api" if data.get(("license", "licenseInfo")[api]) else "none"
    out["is_fork"], out["archived"] = bool(out["is_fork"]), bool(out["archived"])
    return out


class GitHubError(RuntimeError):
    """A request that failed for good (after retries, or a 4xx that retrying cannot fix)."""

    def __init__(self, message: str, status: int | None = None):
        super().__init__(message)
        self.status = status


def _page_payload_current(payload: Any) -> bool:
    """A stored search page in today's shape: its hits say whether their repository is private (pages stored
    before they did would let a private repository's files back in on a 304)."""
    return isinstance(payload, dict) and all(len(h) == 6 for h in payload.get("hits") or [])


def _retry_after(value: Any) -> float | None:
    """Seconds a ``retry-after`` header asks for (a number; GitHub never sends the HTTP-date form), else None."""
    try:
        return max(0.0, float(value))
    except (TypeError, ValueError):
        return None


def _transport_failure(exc: BaseException) -> bool:
    """A request that failed in transit (refused, reset, timed out, body cut short or undecodable): worth another
    try. requests' malformed-URL and header errors (also ValueErrors) fail the same way every time."""
    import requests

    return isinstance(exc, requests.RequestException) and not isinstance(exc, ValueError)


class GraphQLUnusable(GitHubError):
    """The host answers GraphQL, but not this query (e.g. an older Enterprise schema without a field)."""


# GraphQL answers that say "later", not "never": retried before metadata falls back to REST for good
_TRANSIENT_GRAPHQL = re.compile(r"(?i)time(?:d)?[ -]?out|something went wrong|try again|temporarily|loading")


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
class _Token:
    index: int
    gh: Any  # github.Github
    secret: Secret
    available_at: dict[str, float] = field(default_factory=dict)  # resource -> time it may be used again
    remaining: dict[str, tuple[int, float]] = field(default_factory=dict)  # resource -> (remaining, reset)
    secondary_streak: int = 0

    def __repr__(self) -> str:
        return f"<token #{self.index}>"


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


def raw_base_for(api_url: str) -> str:
    """Where raw file content lives: raw.githubusercontent.com for github.com; ``https://HOST/raw`` for a GitHub
    Enterprise API at ``https://HOST/api/v3`` (its raw route is not under the API); ``{api}/raw`` otherwise (the
    emulator, which serves both)."""
    parts = urlparse(api_url)
    if parts.hostname == "api.github.com":
        return "https://raw.githubusercontent.com"
    path = parts.path.rstrip("/")
    if path.endswith("/api/v3"):
        return f"{parts.scheme}://{parts.netloc}{path[: -len('/api/v3')]}/raw"
    return api_url.rstrip("/") + "/raw"


class GitHubClient:
    def __init__(self, tokens: Sequence[Secret | str], api_url: str = DEFAULT_GITHUB_API, clock: Clock | None = None,
                 raw_url: str | None = None, max_retries: int = 10, timeout: int = 30,
                 on_wait: Callable[[float, str], None] | None = None, validators: ValidatorCache | None = None,
                 graphql_batch: int = GRAPHQL_BATCH):
        from github import Auth, Github
        import requests

        if graphql_batch < 0:
            raise ValueError(f"graphql_batch must be >= 0 (0 = REST only), got {graphql_batch}")
        if not tokens:
            raise GitHubError("code search needs a token: set GITHUB_TOKEN (or GITHUB_TOKENS=t1,t2,...)")
        self.api_url = api_url.rstrip("/")
        self.raw_url = (raw_url or raw_base_for(self.api_url)).rstrip("/")
        self.max_retries = max_retries
        self.timeout = timeout
        self.on_wait = on_wait
        self._secrets = [t if isinstance(t, Secret) else Secret(t) for t in tokens]
        for n, s in enumerate(self._secrets, 1):
            bad = next((k for k, ch in enumerate(s.reveal()) if not ("!" <= ch <= "~")), None)
            if bad is not None:  # else an encoding error from deep in the HTTP stack, naming no token
                raise GitHubError(f"GitHub token {n} has a character an HTTP header cannot carry at position "
                                  f"{bad + 1} (a pasted quote, space or line break?): fix GITHUB_TOKEN(S)")
        self.tokens = [
            _Token(i, Github(base_url=self.api_url, auth=Auth.Token(s.reveal()), retry=None, timeout=timeout,
                             seconds_between_requests=0, seconds_between_writes=0, per_page=100), s)
            for i, s in enumerate(self._secrets)
        ]
        self.session = requests.Session()  # emulator control: never carries a token
        self._local = threading.local()  # one raw-content session per thread (never carries a token either)
        self._raw_sessions: list[Any] = []
        self._lock = threading.Lock()  # counters, clock adoption and the session list, for raw threads
        self._clock_given = clock is not None
        self.clock: Clock = clock if clock is not None else RealClock()
        self.stats = ClientStats()
        self._repo_cache: dict[str, dict | None] = {}
        self.validators = validators
        self.graphql_batch = graphql_batch
        self.graphql_available = graphql_batch > 0  # turned off for good by an API host without (usable) GraphQL
        self._answered = False  # the API host has answered once: refused connections are an outage, not a bad URL
        self._next = 0

    # ---- secrets -----------------------------------------------------------------------------------
    def scrub(self, text: str) -> str:
        for s in self._secrets:
            v = s.reveal()
            if v:
                text = text.replace(v, "***")
        return text

    # ---- clock & tokens ----------------------------------------------------------------------------
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

    def _pick(self, resource: str) -> _Token:
        """The next token free for ``resource`` (round robin), sleeping until one is if none is."""
        now = self.clock.now()
        n = len(self.tokens)
        for k in range(n):
            tok = self.tokens[(self._next + k) % n]
            if tok.available_at.get(resource, 0.0) <= now:
                self._next = (tok.index + 1) % n
                return tok
        soonest = min(self.tokens, key=lambda t: t.available_at.get(resource, 0.0))
        self._sleep(soonest.available_at[resource] - now, "rate_limit")
        return soonest

    def reserve(self, resource: str, n: int) -> None:
        """Wait, if needed, until some token can make ``n`` requests in a row.

        Paging one range inside a single rate-limit window keeps its pages in one result order (search order is
        not stable over time); the wait costs time, never requests.
        """
        now = self.clock.now()
        best = None
        for tok in self.tokens:
            rem, reset = tok.remaining.get(resource, (None, 0.0))
            if rem is None or rem >= n or reset + 1.0 <= now:
                return
            best = reset if best is None else min(best, reset)
        if best is not None:
            self._sleep(best + 1.0 - now, "rate_limit")
            for tok in self.tokens:
                tok.remaining.pop(resource, None)

    @staticmethod
    def _limits(headers: dict) -> tuple[int | None, float | None]:
        try:
            remaining = int(headers["x-ratelimit-remaining"])
        except (KeyError, TypeError, ValueError):
            remaining = None
        try:
            reset = float(headers["x-ratelimit-reset"])
        except (KeyError, TypeError, ValueError):
            reset = None
        return remaining, reset

    def _note(self, tok: _Token, resource: str, headers: dict) -> None:
        """After a response: a spent token waits for its window's reset (+1 s for clock skew)."""
        remaining, reset = self._limits(headers)
        if remaining is not None and reset is not None:
            tok.remaining[resource] = (remaining, reset)
        if remaining == 0 and reset is not None:
            tok.available_at[resource] = max(tok.available_at.get(resource, 0.0), reset + 1.0)

    # ---- requests ----------------------------------------------------------------------------------
    def _refused(self, tok: _Token, resource: str, status: int, got: dict, message: str, what: str) -> None:
        """A 403/429 (or GraphQL's 200 with a RATE_LIMITED error): rest the token for as long as the limit says;
        raises when the refusal is not a limit (retrying cannot fix it)."""
        remaining, reset = self._limits(got)
        retry_after = _retry_after(got.get("retry-after"))
        now = self.clock.now()
        if retry_after is not None:
            self.stats.secondary_limits += 1
            tok.available_at[resource] = now + retry_after
        elif remaining == 0 and reset is not None:
            self.stats.primary_refusals += 1
            tok.available_at[resource] = max(now, reset) + 1.0
        elif status == 403 and "rate limit" not in message.lower() and "abuse" not in message.lower():
            raise GitHubError(self.scrub(f"{what} refused: {message}"), status) from None
        else:
            self.stats.secondary_limits += 1
            tok.secondary_streak += 1
            wait = min(SECONDARY_MAX_WAIT, SECONDARY_BASE_WAIT * 2 ** (tok.secondary_streak - 1))
            tok.available_at[resource] = now + wait

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
                if not _transport_failure(exc):
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

    def _drop(self, tok: _Token) -> None:
        """Take a token the server no longer accepts (401) out of the pool; the crawl goes on with the others."""
        self.tokens = [t for t in self.tokens if t is not tok]
        for i, t in enumerate(self.tokens):
            t.index = i
        self._next = 0
        log.warning("a GitHub token was refused (401, revoked or expired?): going on with %d other(s)", len(self.tokens))

    def _get(self, resource: str, path: str, params: dict | None, parse: Callable[[Any], Any],
             current: Callable[[Any], bool] | None = None) -> Any:
        """A GET whose parsed answer is reused on a 304: conditional when the validators know the request and
        its stored answer is ``current`` (in the shape ``parse`` gives now; an older shape is asked afresh)."""
        if self.validators is None:
            return parse(self._api(resource, path, params)[1])
        key = request_key(path, params)
        known = self.validators.get(key)
        if known is not None and current is not None and not current(known.payload):
            known = None
        got, data = self._api(resource, path, params, known.conditional_headers() if known else None)
        if data is None and known is not None:
            self.stats.not_modified += 1
            self.stats.search_not_modified += resource == "search"
            return known.payload
        value = parse(data)
        if isinstance(value, dict) and value.get("incomplete"):
            return value  # a page with results missing is not an answer to reuse
        self.validators.put(key, resource, got.get("etag"), got.get("last-modified"), value)
        return value

    def _page_payload(self, data: Any) -> dict:
        if not isinstance(data, dict) or ("items" not in data and "total_count" not in data):
            # e.g. an HTML page served with 200: --api-url is not a GitHub API (GitHub Enterprise: https://HOST/api/v3)
            raise GitHubError(f"{self.api_url} did not answer code search like the GitHub API (no items, no "
                              "total_count): check --api-url")
        hits = [Hit.from_item(it) for it in data.get("items") or []]
        return {"total": data.get("total_count"), "incomplete": bool(data.get("incomplete_results")),
                "hits": [[h.repo, h.path, h.blob_sha, h.ref, h.html_url, h.private] for h in hits]}

    def search_code(self, query: str, page: int = 1, per_page: int = 100) -> Page:
        p = self._get("search", "/search/code", {"q": query, "page": page, "per_page": per_page}, self._page_payload,
                      current=_page_payload_current)
        return Page([Hit(*h) for h in p["hits"]], p["total"], p["incomplete"])

    def repo_meta(self, full_name: str) -> dict | None:
        """Repository metadata (once per repo): None when the repository is gone (404)."""
        if full_name in self._repo_cache:
            return self._repo_cache[full_name]
        try:
            meta = self._get("core", f"/repos/{quote(full_name, safe='/')}", None,
                             lambda data: self._repo_payload(data, full_name))
        except GitHubError as exc:
            if exc.status in (404, 451, 403):  # gone, legally blocked, or access blocked (a non-limit 403)
                if exc.status == 403:
                    log.warning("repository %s refused (403): its files are left out", full_name)
                self._repo_cache[full_name] = None
                return None
            raise
        if meta is not None and meta["full_name"] != full_name:  # an answer cached under its new name before
            meta = {**meta, "full_name": full_name, "current_name": meta.get("current_name") or meta["full_name"]}
        self._repo_cache[full_name] = meta
        return meta

    def repo_meta_many(self, full_names: Sequence[str]) -> dict[str, dict | None]:
        """Metadata of many repositories, ``graphql_batch`` per GraphQL request (one point each), for those not
        cached yet; the same payload and cache as :meth:`repo_meta`. A host without GraphQL (404, or a schema
        that rejects the query) is remembered and every repository is then asked over REST, so nothing is lost."""
        names = list(dict.fromkeys(full_names))
        todo = [n for n in names if n not in self._repo_cache]
        step = self.graphql_batch
        i = failures = 0
        while step and i < len(todo) and self.graphql_available:
            try:
                self._repo_cache.update(self._graphql_repos(todo[i:i + step]))
                i, failures = i + step, 0
            except GitHubError as exc:
                if not isinstance(exc, GraphQLUnusable) and exc.status not in (404, 410, 501):
                    raise
                failures += 1
                if isinstance(exc, GraphQLUnusable) and _TRANSIENT_GRAPHQL.search(str(exc)) and failures < 3:
                    self._sleep(2.0 * failures, "backoff")  # GitHub's own "timeout" / "something went wrong"
                    continue
                self.graphql_available = False
                log.warning("GraphQL not usable at %s (%s): repository metadata over REST, one request per repo",
                            self.api_url, self.scrub(str(exc)))
        return {n: self.repo_meta(n) for n in names}  # cache hits, or REST for what GraphQL could not answer

    def _graphql_repos(self, chunk: list[str]) -> dict[str, dict | None]:
        """One GraphQL request for ``chunk``: name -> payload, or None for a repository GitHub cannot resolve.
        A repository whose alias failed otherwise (e.g. FORBIDDEN) is left out, for REST to answer."""
        aliases = {f"r{k}": name for k, name in enumerate(chunk)}
        params, fields, variables = [], [], {}
        for alias, name in aliases.items():
            owner, _, repo = name.partition("/")
            k = alias[1:]
            params.append(f"$o{k}: String!, $n{k}: String!")
            fields.append(f"{alias}: repository(owner: $o{k}, name: $n{k}) {{ {GRAPHQL_REPO_FIELDS} }}")
            variables[f"o{k}"], variables[f"n{k}"] = owner, repo
        query = f"query Repos({', '.join(params)}) {{\n  " + "\n  ".join(fields) + "\n}"
        _, data = self._api("graphql", "/graphql", method="POST", body={"query": query, "variables": variables},
                            limited=self._graphql_limited)
        data = data if isinstance(data, dict) else {}
        nodes = data.get("data")
        errors = [e for e in data.get("errors") or [] if isinstance(e, dict)]
        if not isinstance(nodes, dict):
            message = "; ".join(str(e.get("message", "")) for e in errors) or "no data in the answer"
            raise GraphQLUnusable(self.scrub(f"POST /graphql: {message}"))
        missing = {e["path"][0] for e in errors if e.get("type") == "NOT_FOUND" and e.get("path")}
        out: dict[str, dict | None] = {}
        for alias, name in aliases.items():
            node = nodes.get(alias)
            if isinstance(node, dict):
                out[name] = self._graphql_payload(node, name)
            elif alias in missing:
                out[name] = None
        return out

    @staticmethod
    def _graphql_limited(data: Any) -> str | None:
        """GraphQL reports an exhausted or secondary limit in a 200 answer's ``errors``: its message, else None."""
        errors = data.get("errors") if isinstance(data, dict) else None
        for e in errors if isinstance(errors, list) else []:
            if not isinstance(e, dict):
                continue
            message = str(e.get("message") or "rate limited")
            if e.get("type") == "RATE_LIMITED" or (not e.get("path") and "rate limit" in message.lower()):
                return message
        return None

    @staticmethod
    def _graphql_payload(node: dict, full_name: str) -> dict:
        """The :meth:`_repo_payload` of a GraphQL ``repository`` node (same keys, same values)."""
        return _payload(node, full_name, api=GRAPHQL)

    @staticmethod
    def _repo_payload(data: dict, full_name: str) -> dict:
        return _payload(data, full_name, api=REST)

    def _raw_session(self) -> Any:
        import requests

        session = getattr(self._local, "session", None)
        if session is None:
            session = self._local.session = requests.Session()
            with self._lock:
                self._raw_sessions.append(session)
        return session

    def _count(self, **inc: int) -> None:
        with self._lock:
            for name, n in inc.items():
                setattr(self.stats, name, getattr(self.stats, name) + n)

    def raw(self, full_name: str, ref: str, path: str) -> bytes | None:
        """File bytes pinned to ``ref`` from the raw route (no API quota). None when the file is gone (404).
        Thread-safe: each thread downloads through its own session."""
        import requests

        url = f"{self.raw_url}/{quote(full_name, safe='/')}/{quote(ref, safe='')}/{quote(path, safe='/')}"
        session = self._raw_session()
        backoff = 1.0
        last = ""
        for attempt in range(self.max_retries + 1):
            self._count(raw_requests=1)
            try:
                r = session.get(url, timeout=self.timeout)  # reads the whole body: a cut-short one raises here
            except requests.RequestException as exc:
                if not _transport_failure(exc):
                    raise GitHubError(f"raw {full_name}/{path}@{ref}: bad request: {exc}") from None
                last = type(exc).__name__
            else:
                self._adopt_clock({k.lower(): v for k, v in r.headers.items()})
                if r.status_code == 200:
                    return r.content
                if r.status_code == 404:
                    return None
                last = f"HTTP {r.status_code}"
                asked = _retry_after(r.headers.get("retry-after")) if r.status_code in (403, 429) else None
                if asked is not None:  # a limit on the raw route: wait as long as it says (capped), then try again
                    self._count(secondary_limits=1)
                    if attempt < self.max_retries:
                        self._sleep(min(asked, SECONDARY_MAX_WAIT), "rate_limit")
                    continue
                if r.status_code < 500 and r.status_code != 429:
                    raise GitHubError(f"raw {full_name}/{path}@{ref}: {last}", r.status_code)
            self._count(server_errors=1)
            if attempt < self.max_retries:
                self._sleep(backoff, "backoff")
            backoff = min(backoff * 2, 60.0)
        raise GitHubError(f"raw {full_name}/{path}@{ref} gave up: {last}")

    def close(self) -> None:
        for t in self.tokens:
            try:
                t.gh.close()
            except Exception:  # closing is best effort
                pass
        for session in self._raw_sessions:
            session.close()
        self.session.close()
