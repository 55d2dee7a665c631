"""The crawl's GitHub client: one object over the token pool, limits, REST, GraphQL, raw content and the ETag cache
(each in its own module of this package; the client only wires them and owns their shared state)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

from aac.collectors.clock import Clock, RealClock
from aac.collectors.github.cache import ConditionalGets
from aac.collectors.github.errors import GitHubError
from aac.collectors.github.graphql import GRAPHQL_BATCH, GraphQLApi
from aac.collectors.github.limits import PoolToken, TokenLimits
from aac.collectors.github.raw import RawContent, raw_base_for
from aac.collectors.github.rest import RestApi
from aac.collectors.github.transport import ClientStats, Transport
from aac.collectors.validators import ValidatorCache
from aac.core.config import DEFAULT_GITHUB_API, Secret


class GitHubClient(RawContent, GraphQLApi, RestApi, ConditionalGets, TokenLimits, Transport):
    """GitHub REST + GraphQL + raw content for the crawl, over a pool of tokens (see the package docstring)."""

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
            PoolToken(i, Github(base_url=self.api_url, auth=Auth.Token(s.reveal()), retry=None, timeout=timeout,
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

    def close(self) -> None:
        for t in self.tokens:
            try:
                t.gh.close()
            except Exception:  # closing is best effort
                pass
        for session in self._raw_sessions:
            session.close()
        self.session.close()
