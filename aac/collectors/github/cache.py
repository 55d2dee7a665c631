"""Conditional requests: with a :class:`~aac.collectors.validators.ValidatorCache`, REST repo metadata and search
pages are asked with the validators of the last answer (``If-None-Match``); a 304 costs no quota and the stored
answer is reused. GraphQL answers carry no ``ETag`` and cannot be asked conditionally."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from aac.collectors.validators import request_key


class ConditionalGets:
    """The ETag-cached GET of :class:`~aac.collectors.github.client.GitHubClient`."""

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
