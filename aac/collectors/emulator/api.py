"""The emulated REST API: routes a request to a :class:`Response`, applying the profile's pathologies.

Kept free of sockets so the HTTP layer (server.py) stays a thin adapter. Per request the order is: slow
reply, authentication, secondary-limit block, primary limit, secondary-limit trigger, 5xx, the answer, and
finally ``If-None-Match`` (a 304 costs no quota) or spending one request of the resource.

Search pagination: the ``Link`` header's ``next``/``last`` follow the results actually available (capped at
1,000), not the undercounted ``total_count``; a client may page until there is no ``next`` or a page is short.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import re
import threading
import time
from collections import Counter, OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from urllib.parse import parse_qs, unquote, urlencode, urlsplit

from ..clock import Clock
from . import graphql, shapes
from .index import File, Index, h64, mix, unit
from .profiles import Profile
from .query import QueryError, parse_query
from .ratelimit import RateLimiter, Usage, token_key
from .snapshot import SnapshotError, load_snapshot

DOCS_RATE = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api"
DOCS_SEARCH = "https://docs.github.com/v3/search/"
DOCS_GRAPHQL_AUTH = "https://docs.github.com/graphql/guides/forming-calls-with-graphql#authenticating-with-graphql"
SECONDARY_MESSAGE = ("You have exceeded a secondary rate limit. Please wait a few minutes before you try again. "
                     "If you reach out to GitHub Support for help, please include the request ID {rid}.")


@dataclass
class Response:
    status: int
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)

    @classmethod
    def json(cls, status: int, obj: object, **headers: str) -> Response:
        body = json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        return cls(status, body, {"Content-Type": "application/json; charset=utf-8", **headers})


def _error(status: int, message: str, doc: str = "https://docs.github.com/rest", **headers: str) -> Response:
    return Response.json(status, {"message": message, "documentation_url": doc, "status": str(status)}, **headers)


def _etag(body: bytes) -> str:
    return 'W/"' + hashlib.sha1(body).hexdigest() + '"'


def _etag_matches(if_none_match: str | None, etag: str) -> bool:
    if not if_none_match:
        return False
    bare = etag.removeprefix("W/")
    return any(t.strip() in ("*", etag, bare) or t.strip().removeprefix("W/") == bare
               for t in if_none_match.split(","))


@dataclass
class Request:
    method: str
    path: str  # percent-decoded, without the query string
    params: dict[str, str]
    headers: Mapping[str, str]
    body: bytes
    base: str  # scheme://host:port the client used


class EmulatorApi:
    """All state of one emulated GitHub: the data, the clock, rate-limit windows, counters and the seeded RNG."""

    SEARCH_CACHE = 256

    def __init__(self, records: list[dict], profile: Profile, seed: int, clock: Clock):
        self.profile, self.seed, self.clock = profile, seed, clock
        self.virtual = hasattr(clock, "advance")
        self._rng = random.Random(seed)
        self._lock = threading.Lock()
        self.limiter = RateLimiter(
            {"search": (profile.search_limit, profile.search_window), "core": (profile.core_limit, profile.core_window),
             "graphql": (profile.core_limit, profile.core_window)},
            {"core": (profile.anonymous_core_limit, profile.core_window)})
        self._secondary_until: dict[str | None, tuple[float, bool]] = {}
        self._counters: Counter[str] = Counter()
        self._routes: Counter[str] = Counter()
        self._cache: OrderedDict[tuple, list[File]] = OrderedDict()
        self.index = Index(records, profile.index_max_bytes)
        self._routes_table: list[tuple[str, re.Pattern, Callable[..., Response], str]] = [
            ("GET", re.compile(r"^/rate_limit$"), self._rate_limit, "rate_limit"),
            ("GET", re.compile(r"^/search/code$"), self._search, "search"),
            ("GET", re.compile(r"^/repos/([^/]+)/([^/]+)$"), self._repo, "repo"),
            ("GET", re.compile(r"^/repos/([^/]+)/([^/]+)/license$"), self._license, "license"),
            ("GET", re.compile(r"^/repos/([^/]+)/([^/]+)/contents(?:/(.+))?$"), self._contents, "contents"),
            ("GET", re.compile(r"^/repositories/(\d+)$"), self._repo_by_id, "repo"),
            ("GET", re.compile(r"^/repositories/(\d+)/contents(?:/(.+))?$"), self._contents_by_id, "contents"),
            ("POST", re.compile(r"^/(?:api/)?graphql$"), self._graphql, "graphql"),
            ("GET", re.compile(r"^/raw/([^/]+)/([^/]+)/([^/]+)/(.+)$"), self._raw, "raw"),
            ("GET", re.compile(r"^/_emulator/clock$"), self._clock_get, "control"),
            ("POST", re.compile(r"^/_emulator/clock/advance$"), self._clock_advance, "control"),
            ("POST", re.compile(r"^/_emulator/snapshot$"), self._snapshot, "control"),
            ("GET", re.compile(r"^/_emulator/stats$"), self._stats_route, "control"),
        ]

    # ---- state -------------------------------------------------------------------------------------------
    def load(self, records: list[dict]) -> None:
        index = Index(records, self.profile.index_max_bytes)
        with self._lock:
            self.index = index
            self._cache.clear()

    def stats(self) -> dict:
        with self._lock:
            out = {k: self._counters.get(k, 0) for k in ("requests", "search_requests", "core_requests", "raw_requests",
                                                          "graphql_requests", "rate_limited", "secondary_limited", "errors_5xx",
                                                          "not_modified")}
            out["routes"] = dict(self._routes)
            return out

    def _count(self, *names: str) -> None:
        with self._lock:
            for n in names:
                self._counters[n] += 1

    def _chance(self, p: float) -> bool:
        if p <= 0.0:
            return False
        with self._lock:
            return self._rng.random() < p

    def _draw(self, fn: Callable[[random.Random], object]):
        with self._lock:
            return fn(self._rng)

    # ---- dispatch ----------------------------------------------------------------------------------------
    def handle(self, method: str, target: str, headers: Mapping[str, str], body: bytes, base: str) -> Response:
        parts = urlsplit(target)
        path = unquote(parts.path)
        if path.startswith("/api/v3/"):  # GitHub Enterprise base_url style
            path = path[len("/api/v3"):]
        path = path.rstrip("/") or "/"
        params = {k: v[-1] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}
        req = Request(method, path, params, headers, body, base)
        for verb, pattern, fn, route in self._routes_table:
            m = pattern.match(path)
            if m:
                if verb != method:
                    resp = _error(405, "Method Not Allowed")
                    break
                with self._lock:
                    self._routes[route] += 1
                    self._counters["requests"] += 1
                resp = fn(req, *m.groups())
                break
        else:
            resp = _error(404, "Not Found")
        if "x-ratelimit-limit" not in resp.headers:
            resource = {"/search/code": "search", "/graphql": "graphql", "/api/graphql": "graphql"}.get(path, "core")
            resp.headers.update(self.limiter.peek(token_key(headers.get("Authorization")), resource,
                                                  self.clock.now()).headers())
        resp.headers["X-Emulator-Clock"] = "virtual" if self.virtual else "real"
        return resp

    # ---- GitHub pathologies shared by API routes --------------------------------------------------------
    def _gate(self, req: Request, resource: str) -> tuple[Response | None, str | None]:
        """Faults and limits before an API answer: a refusal response, or None and the caller's token key."""
        p = self.profile
        if self._chance(p.slow_rate):
            time.sleep(self._draw(lambda r: r.uniform(0.05, p.slow_seconds)))
        auth = req.headers.get("Authorization")
        key = token_key(auth)
        now = self.clock.now()
        if resource == "search" and key is None:
            return _error(401, "Requires authentication", "https://docs.github.com/rest/search/search#search-code"), key
        if resource == "graphql" and key is None:
            return _error(401, "This endpoint requires you to be authenticated.", DOCS_GRAPHQL_AUTH), key
        if resource in ("search", "graphql"):
            blocked = self._secondary_until.get(key)
            if blocked and now < blocked[0]:
                return self._secondary(req, now, blocked[0] - now if blocked[1] else None), key
        usage = self.limiter.peek(key, resource, now)
        if usage.remaining == 0:
            return self._primary_refusal(key, usage), key
        if resource in ("search", "graphql") and self._chance(p.secondary_rate):
            if self._chance(p.secondary_retry_after_share):
                lo, hi = p.secondary_retry_after
                wait = float(self._draw(lambda r: r.randint(lo, hi)))
                self._secondary_until[key] = (now + wait, True)
                return self._secondary(req, now, wait), key
            self._secondary_until[key] = (now + p.secondary_block, False)
            return self._secondary(req, now, None), key
        if self._chance(p.error_rate):
            return self._server_error(), key
        return None, key

    def _primary_refusal(self, key: str | None, usage: Usage) -> Response:
        self._count("rate_limited")
        who = f"user ID {h64('uid', key) % 10**8}" if key else "127.0.0.1"
        if usage.resource == "graphql":  # GraphQL says so in a 200 with a RATE_LIMITED error
            return Response.json(200, {"errors": [{"type": "RATE_LIMITED",
                                                   "message": f"API rate limit exceeded for {who}."}]}, **usage.headers())
        status = 429 if self._chance(self.profile.limit_429_share) else 403
        return _error(status, f"API rate limit exceeded for {who}.", DOCS_RATE, **usage.headers())

    def _secondary(self, req: Request, now: float, retry_after: float | None) -> Response:
        self._count("secondary_limited")
        rid = "%X" % (h64("rid", now, self._draw(lambda r: r.random())) % 16**12)
        extra = {"retry-after": str(max(1, math.ceil(retry_after)))} if retry_after is not None else {}
        return _error(403, SECONDARY_MESSAGE.format(rid=rid),
                      DOCS_RATE + "#about-secondary-rate-limits", **extra)

    def _server_error(self) -> Response:
        self._count("errors_5xx")
        if self._chance(0.5):
            return _error(502, "Server Error")
        return _error(503, "Service Unavailable")

    def _finish(self, req: Request, key: str | None, resource: str, resp: Response, etag: bool = True) -> Response:
        """ETag / 304 (free) or spend one request; attach the rate-limit headers."""
        now = self.clock.now()
        if etag and resp.status == 200:
            tag = _etag(resp.body)
            resp.headers["ETag"] = tag
            if _etag_matches(req.headers.get("If-None-Match"), tag):
                self._count("not_modified")
                usage = self.limiter.peek(key, resource, now)
                return Response(304, b"", {"ETag": tag, **usage.headers()})
        allowed, usage = self.limiter.take(key, resource, now)
        if not allowed:  # a concurrent request took the last one since the gate looked
            return self._primary_refusal(key, usage)
        resp.headers.update(usage.headers())
        return resp

    def _core(self, req: Request, answer: Callable[[], Response], etag: bool = True) -> Response:
        self._count("core_requests")
        refusal, key = self._gate(req, "core")
        if refusal is not None:
            return refusal
        return self._finish(req, key, "core", answer(), etag)

    # ---- routes ------------------------------------------------------------------------------------------
    def _rate_limit(self, req: Request) -> Response:
        key, now = token_key(req.headers.get("Authorization")), self.clock.now()
        res = {r: shapes.rate_obj(self.limiter.peek(key, r, now)) for r in ("core", "search", "graphql")}
        resp = Response.json(200, {"resources": res, "rate": res["core"]})
        resp.headers.update(self.limiter.peek(key, "core", now).headers())
        return resp

    def _search(self, req: Request) -> Response:
        self._count("search_requests")
        refusal, key = self._gate(req, "search")
        if refusal is not None:
            return refusal
        return self._finish(req, key, "search", self._search_answer(req))

    def _search_answer(self, req: Request) -> Response:
        p = self.profile
        try:
            query = parse_query(req.params.get("q", ""))
        except QueryError as exc:
            return Response.json(422, {"message": "Validation Failed", "errors": [
                {"message": str(exc), "resource": "Search", "field": "q", "code": "invalid"}],
                "documentation_url": "https://docs.github.com/rest/search/search#search-code", "status": "422"})
        try:
            per_page = min(p.per_page_max, max(1, int(req.params.get("per_page") or 30)))
            page = max(1, int(req.params.get("page") or 1))
        except ValueError:
            return _error(422, "Validation Failed: page and per_page must be integers", DOCS_SEARCH)
        if page * per_page > p.result_cap:
            return _error(422, f"Only the first {p.result_cap} search results are available", DOCS_SEARCH)
        ranked = self._ranked(query)
        visible = ranked[: p.result_cap]
        items = visible[(page - 1) * per_page: page * per_page]
        incomplete = self._chance(p.incomplete_rate)
        if incomplete:
            items = [f for f in items if not self._chance(p.incomplete_drop)]
        total = len(ranked)
        if p.undercount is not None and total:
            lo, hi = p.undercount
            total = max(1, int(total * (lo + (hi - lo) * unit(h64(self.seed, "count", query.key)))))
        body = {"total_count": total, "incomplete_results": incomplete,
                "items": [shapes.search_item(f, req.base, 1.0) for f in items]}
        resp = Response.json(200, body)
        link = self._links(req, page, per_page, len(visible))
        if link:
            resp.headers["Link"] = link
        return resp

    def _ranked(self, query) -> list[File]:
        """Matches minus the files a wide query loses, in this window's best-match order (cached per window)."""
        p = self.profile
        window = int(self.clock.now() // p.order_window) if p.order_window > 0 else 0
        ck = (query.key, window)
        with self._lock:
            index = self.index
            hit = self._cache.get(ck)
            if hit is not None:
                self._cache.move_to_end(ck)
                return hit
        matched = index.match(query)
        if p.lossy_rate > 0 and len(matched) > p.lossy_threshold:
            salt = h64(self.seed, "lossy", query.key)
            matched = [f for f in matched if unit(mix(f.fid, salt)) >= p.lossy_rate]
        salt = h64(self.seed, "order", query.key, window)
        ranked = sorted(matched, key=lambda f: mix(f.fid, salt))
        with self._lock:
            if self.index is index:
                self._cache[ck] = ranked
                while len(self._cache) > self.SEARCH_CACHE:
                    self._cache.popitem(last=False)
        return ranked

    @staticmethod
    def _links(req: Request, page: int, per_page: int, available: int) -> str:
        last = max(1, math.ceil(available / per_page))

        def url(n: int) -> str:
            return f"{req.base}{req.path}?" + urlencode({**req.params, "per_page": per_page, "page": n})

        rels = []
        if page > 1:
            rels += [(page - 1, "prev"), (1, "first")]
        if page < last:
            rels += [(page + 1, "next"), (last, "last")]
        return ", ".join(f'<{url(n)}>; rel="{rel}"' for n, rel in rels)

    def _graphql(self, req: Request) -> Response:
        """``POST /graphql``: batched repository metadata, one point per query (no ETag: GraphQL has none)."""
        if not self.profile.graphql:
            return _error(404, "Not Found")
        self._count("graphql_requests")
        refusal, key = self._gate(req, "graphql")
        if refusal is not None:
            return refusal
        return self._finish(req, key, "graphql", self._graphql_answer(req), etag=False)

    def _graphql_answer(self, req: Request) -> Response:
        try:
            body = json.loads(req.body or b"")
        except (json.JSONDecodeError, UnicodeDecodeError):
            return _error(400, "Problems parsing JSON", "https://docs.github.com/graphql")
        query = body.get("query") if isinstance(body, dict) else None
        variables = body.get("variables") if isinstance(body, dict) else None
        if not isinstance(query, str) or not isinstance(variables, (dict, type(None))):
            return _error(400, "A query attribute must be specified and must be a string.",
                          "https://docs.github.com/graphql")
        try:
            selections = graphql.parse(query, variables)
        except graphql.GraphQLError as exc:
            return Response.json(200, {"errors": [exc.error]})
        return Response.json(200, graphql.execute(selections, self.index.repo))

    def _find_repo(self, owner: str, name: str):
        return self.index.repo(f"{owner}/{name}")

    def _repo(self, req: Request, owner: str, name: str) -> Response:
        def answer() -> Response:
            repo = self._find_repo(owner, name)
            return Response.json(200, shapes.repo_obj(repo, req.base)) if repo else _error(404, "Not Found")

        return self._core(req, answer)

    def _repo_by_id(self, req: Request, rid: str) -> Response:
        def answer() -> Response:
            repo = self.index.repos_by_id.get(int(rid))
            return Response.json(200, shapes.repo_obj(repo, req.base)) if repo else _error(404, "Not Found")

        return self._core(req, answer)

    def _license_file(self, repo) -> File | None:
        if not repo or not repo.license_spdx:
            return None
        return File(repo, repo.license_file or "LICENSE", shapes.license_text(repo), repo.commit, None,
                    h64("license", repo.full_name))

    def _license(self, req: Request, owner: str, name: str) -> Response:
        def answer() -> Response:
            f = self._license_file(self._find_repo(owner, name))
            return Response.json(200, shapes.license_file_obj(f, req.base)) if f else _error(404, "Not Found")

        return self._core(req, answer)

    def _file_at(self, repo, path: str, ref: str | None) -> File | None:
        if repo is None:
            return None
        f = self.index.file(repo, path)
        if f is None:
            lic = self._license_file(repo)
            f = lic if lic is not None and lic.path == path else None
        if f is None or ref not in (None, "", f.commit, repo.commit, "main", "HEAD"):
            return None
        return f

    def _contents_answer(self, req: Request, repo, path: str | None) -> Response:
        ref = req.params.get("ref")
        f = self._file_at(repo, path, ref) if path else None
        if f is not None:
            return Response.json(200, shapes.content_obj(f, req.base, ref or f.commit))
        if repo is not None and ref in (None, "", repo.commit, "main", "HEAD"):
            entries = self.index.listing(repo, path or "")
            if entries:  # a directory: GitHub lists its immediate children
                return Response.json(200, [shapes.listing_entry(repo, (path or "").strip("/"), name, child, req.base,
                                                                ref or repo.commit) for name, child in entries])
        return _error(404, "Not Found")

    def _contents(self, req: Request, owner: str, name: str, path: str) -> Response:
        return self._core(req, lambda: self._contents_answer(req, self._find_repo(owner, name), path))

    def _contents_by_id(self, req: Request, rid: str, path: str) -> Response:
        return self._core(req, lambda: self._contents_answer(req, self.index.repos_by_id.get(int(rid)), path))

    def _raw(self, req: Request, owner: str, name: str, ref: str, path: str) -> Response:
        """raw.githubusercontent.com: no API quota, no auth; still slow or failing now and then."""
        self._count("raw_requests")
        p = self.profile
        if self._chance(p.slow_rate):
            time.sleep(self._draw(lambda r: r.uniform(0.05, p.slow_seconds)))
        if self._chance(p.error_rate):
            return self._server_error()
        f = self._file_at(self._find_repo(owner, name), path, ref)
        if f is None:
            return Response(404, b"404: Not Found", {"Content-Type": "text/plain; charset=utf-8"})
        return Response(200, f.data, {"Content-Type": "text/plain; charset=utf-8", "ETag": f'"{f.sha}"'})

    # ---- control (not GitHub) ----------------------------------------------------------------------------
    def _clock_get(self, req: Request) -> Response:
        return Response.json(200, {"now": self.clock.now(), "virtual": self.virtual})

    def _json_body(self, req: Request) -> dict:
        try:
            obj = json.loads(req.body or b"{}")
        except json.JSONDecodeError as exc:
            raise ValueError(f"body is not JSON: {exc.msg}") from None
        if not isinstance(obj, dict):
            raise ValueError("body must be a JSON object")
        return obj

    def _clock_advance(self, req: Request) -> Response:
        if not self.virtual:
            return _error(409, "the emulator runs on the real clock; it cannot be advanced")
        try:
            seconds = float(self._json_body(req).get("seconds", 0))
        except (ValueError, TypeError) as exc:
            return _error(400, f"expected {{\"seconds\": number}}: {exc}")
        if not math.isfinite(seconds) or seconds < 0:
            return _error(400, "seconds must be a finite number >= 0")
        now = self.clock.advance(seconds)
        return Response.json(200, {"now": now, "virtual": True})

    def _snapshot(self, req: Request) -> Response:
        try:
            path = self._json_body(req).get("path")
            if not isinstance(path, str):
                raise ValueError('expected {"path": "FILE.jsonl"}')
            records = load_snapshot(path)
        except (ValueError, SnapshotError) as exc:
            return _error(400, str(exc))
        self.load(records)
        return Response.json(200, {"files": len(records), "repos": len(self.index.repos)})

    def _stats_route(self, req: Request) -> Response:
        return Response.json(200, self.stats())
