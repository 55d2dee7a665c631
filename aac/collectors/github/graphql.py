"""Repository metadata in batches over GraphQL: up to 100 repositories per ``POST /graphql``, one point of the
separate 5,000 points/h GraphQL limit per query. A 200 whose ``errors`` say RATE_LIMITED is waited out like a 403;
a host without usable GraphQL (404, or a schema that rejects the query) falls back to one REST request per
repository, for good."""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from typing import Any

from aac.collectors.github.errors import GitHubError
from aac.collectors.github.metadata import GRAPHQL, GRAPHQL_REPO_FIELDS, repo_payload

log = logging.getLogger(__name__)

GRAPHQL_BATCH = 100  # repositories per GraphQL request; the query costs one point whatever the number


class GraphQLUnusable(GitHubError):
    """The host answers GraphQL, but not this query (e.g. an older Enterprise schema without a field)."""


# GraphQL answers that say "later", not "never": retried before metadata falls back to REST for good
_TRANSIENT_GRAPHQL = re.compile(r"(?i)time(?:d)?[ -]?out|something went wrong|try again|temporarily|loading")



class GraphQLApi:
    """Batched repository metadata of :class:`~aac.collectors.github.client.GitHubClient`."""

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
        return repo_payload(node, full_name, api=GRAPHQL)
