"""A GitHub REST API emulator over a snapshot file: the collector's offline default and its test bed.

It serves, over real HTTP on 127.0.0.1, the subset of the REST API the collector uses (``/search/code``,
``/repos/{o}/{r}`` and ``/license``, ``/repositories/{id}``, file ``/contents``, a raw-content route, and
``/rate_limit``) in GitHub's JSON shapes, so PyGithub runs against it unchanged with ``base_url=server.url``,
plus ``POST /graphql`` (and Enterprise's ``/api/graphql``) for batched repository metadata (see below).
To prove anything about a crawler it must be as hostile as GitHub. Profile ``github`` (the default) reproduces
each behaviour below; every knob is a :class:`Profile` field and all randomness comes from the seed. Profile
``ideal`` turns the pathologies and limits off (the GitHub facts of the first group stay).

GitHub facts (kept in every profile)
- Only files smaller than 384 KB are searchable; only the first 1,000 results of a search can be paged through,
  at most 100 per page; code search requires authentication. Evidence: "REST API endpoints for search",
  https://docs.github.com/rest/search/search ("up to 1,000 results for each search"; the "Search code"
  endpoint "requires you to authenticate and limits you to 10 requests per minute"), and the endpoint notes
  quoted in https://github.com/octokit/plugin-rest-endpoint-methods.js/pull/603/files ("Only files smaller
  than 384 KB are searchable"); a file over the limit not being indexed:
  https://github.com/orgs/community/discussions/63353. The 422 body "Only the first 1000 search results are
  available" and the ``page * per_page > 1000`` rule of /search/code (with ``per_page=101`` served as 100) were
  measured in https://github.com/brekkylab/backlot/pull/144.

Rate limits (``search_limit``/``core_limit``, per token hash; ``limit_429_share``)
- Search code: 10 requests/min; core: 5,000/h authenticated, 60/h anonymous; each response carries
  ``x-ratelimit-limit/-remaining/-reset/-used/-resource``; past the limit: 403 (or 429) "API rate limit
  exceeded" with remaining 0. Evidence: https://docs.github.com/rest/search/search (10/min) and "Rate limits
  for the REST API", https://docs.github.com/rest/using-the-rest-api/rate-limits-for-the-rest-api (60/h and
  5,000/h, the headers, 403 or 429 when exceeded). A conditional request answered 304 does not count against
  the primary limit: "Best practices for using the REST API",
  https://docs.github.com/en/rest/using-the-rest-api/best-practices-for-using-the-rest-api#use-conditional-requests-if-appropriate
  (so ``If-None-Match`` with our ETags is free). ``/rate_limit`` and the raw route cost nothing either.

Secondary limits (``secondary_rate``, ``secondary_retry_after_share``, ``secondary_block``)
- 403 "You have exceeded a secondary rate limit..." on about 1% of search requests, half carrying
  ``retry-after: N`` and half none (then the client must wait at least a minute); a token that retries early
  stays blocked. Evidence: "About secondary rate limits" in the rate-limit page above; the message/headers
  as seen by clients: https://github.com/KnpLabs/php-github-api/pull/1072 (secondary limit with a non-zero
  ``x-ratelimit-remaining``), PyGithub's own detection of the message (``Requester.isSecondaryRateLimitError``).

Search result quality
- ``total_count`` undercounts (``undercount``: reported = true x U(0.6, 1.0), fixed per query). Evidence:
  https://github.com/cli/cli/issues/8290 (total changes between pages of one query; "Showing 100 of 105" vs
  "101 of 117"), https://github.com/PyGithub/PyGithub/issues/1185 (total and the items one can list disagree).
- Wide queries silently lose files (``lossy_threshold``, ``lossy_rate``): a query matching more than 500
  indexed files omits each with probability 0.02, deterministically per (file, normalised query), so repeating
  the query loses the same files and only a narrower query (e.g. a smaller ``size:`` range) returns them. This
  is why exhaustive samplers stratify by size instead of trusting one range: ipa-lab/github-searcher (a tool
  that "exhaustively samples GitHub Code Search results" through narrow ``size:`` strata), and why clients
  detect silent truncation and fall back to narrower queries: https://github.com/hubtty/hubtty/pull/142.
- Best-match order is not deterministic (``order_window``): stable for one query within a 10-minute window of
  the server clock (so promptly fetched pages partition the results) and reshuffled across windows. Evidence:
  results are "sorted by best match" (search docs above) and differ between runs (cli/cli#8290).
- ``incomplete_results: true`` on ~2% of responses with ~5% of that page's items missing (``incomplete_rate``,
  ``incomplete_drop``). Evidence: "Timeouts and incomplete results" in the search docs above;
  https://github.com/janeklb/gh-search/issues/72, https://github.com/PyGithub/PyGithub/issues/2253.

GraphQL (``POST /graphql``; ``graphql``; module ``graphql``)
- Only the query shape the collector sends: aliased ``repository(owner:, name:) { ... }`` fields (literals or
  variables) with the repository fields of the REST body, parsed by a small parser (no GraphQL library). A
  missing repository is ``null`` under its alias plus an error ``{"type": "NOT_FOUND", "path": [alias],
  "message": "Could not resolve to a Repository with the name 'o/n'."}`` (the message as clients quote it:
  https://github.com/cli/cli/issues/436); a malformed query is a 200 with ``errors`` and no ``data``
  (``Parse error on ...``, ``Field 'x' doesn't exist on type 'Repository'``); a body that is not a GraphQL
  request is a 400; no token is a 401. ``graphql=False`` makes the route 404 (a host without GraphQL).
- Rate limit: 5,000 points/h per user, its own window (``x-ratelimit-resource: graphql``, same headers as
  REST); a query costs one point (it holds no connection, so the documented "requests needed for each
  connection / 100, minimum 1" gives 1 whatever the number of aliases); node limits (``first``/``last`` within
  1-100, 500,000 nodes per call) concern connections and do not apply to this query. Past the limit the answer
  is still a 200 with a ``RATE_LIMITED`` error and ``x-ratelimit-remaining: 0``. Evidence: "Rate limits and node
  limits for the GraphQL API", https://docs.github.com/graphql/overview/rate-limits-and-node-limits-for-the-graphql-api
  (points, headers, "x-ratelimit-resource ... will always be graphql", node limits, the 200 on an exhausted
  limit). Secondary limits (403, with or without ``retry-after``) and 5xx hit it at the profile's rates, like
  search (the same page documents secondary limits for GraphQL; 2,000 points/min is their published cap:
  https://github.com/orgs/community/discussions/163553). GraphQL answers carry no ``ETag`` (no 304s).

Transport faults
- 502/503 on ~1% of API and raw requests (``error_rate``) and slow responses (``slow_rate``, a real delay of
  at most ``slow_seconds`` = 0.3 s). They cost no quota; crawlers must retry.

Time: the server reads an injectable :class:`~aac.collectors.clock.Clock`. By default it is a
:class:`~aac.collectors.clock.VirtualClock` (responses say ``X-Emulator-Clock: virtual``; ``Date`` follows it),
which a client in another process advances with ``POST /_emulator/clock/advance {"seconds": s}`` instead of
sleeping, so hours of rate-limit waits take seconds. ``GET /_emulator/clock``, ``GET /_emulator/stats`` and
``POST /_emulator/snapshot {"path": FILE}`` complete the (non-GitHub) control routes.
"""

import importlib

# Exported lazily: `aac --help` and every other command import this package (for `aac emulator`), and must
# not pay for the server, the index and the grammar they do not use.
_EXPORTS = {
    "EmulatorServer": "server", "GITHUB": "profiles", "IDEAL": "profiles", "PROFILES": "profiles",
    "Profile": "profiles", "get_profile": "profiles", "SnapshotError": "snapshot", "check_record": "snapshot",
    "load_snapshot": "snapshot", "generate_snapshot": "generator",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
