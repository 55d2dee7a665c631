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

Tokens never leave this package in clear: errors are scrubbed, stats and reprs carry only a token's index.

Layout: ``client`` (the object), ``transport`` (one request, retries, clock, stats), ``limits`` (token pool),
``rest``, ``graphql``, ``raw``, ``cache`` (conditional requests), ``metadata`` (one payload shape), ``errors``.
"""

from __future__ import annotations

from aac.collectors.github.client import GitHubClient
from aac.collectors.github.errors import GitHubError
from aac.collectors.github.graphql import GRAPHQL_BATCH, GraphQLUnusable
from aac.collectors.github.limits import SECONDARY_BASE_WAIT, SECONDARY_MAX_WAIT
from aac.collectors.github.metadata import GRAPHQL_REPO_FIELDS, REPO_FIELDS
from aac.collectors.github.raw import raw_base_for
from aac.collectors.github.transport import ClientStats, ServerClock

__all__ = ["GRAPHQL_BATCH", "GRAPHQL_REPO_FIELDS", "REPO_FIELDS", "SECONDARY_BASE_WAIT", "SECONDARY_MAX_WAIT",
           "ClientStats", "GitHubClient", "GitHubError", "GraphQLUnusable", "ServerClock", "raw_base_for"]
