"""The REST API calls of the crawl: code search pages and one repository's metadata (cached once per repository)."""

from __future__ import annotations

import logging
from typing import Any
from urllib.parse import quote

from aac.collectors.crawl import Hit, Page
from aac.collectors.github.errors import GitHubError
from aac.collectors.github.metadata import REST, repo_payload

log = logging.getLogger(__name__)


def _page_payload_current(payload: Any) -> bool:
    """A stored search page in today's shape: its hits say whether their repository is private (pages stored
    before they did would let a private repository's files back in on a 304)."""
    return isinstance(payload, dict) and all(len(h) == 6 for h in payload.get("hits") or [])


class RestApi:
    """Code search and REST repository metadata of :class:`~aac.collectors.github.client.GitHubClient`."""

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

    @staticmethod
    def _repo_payload(data: dict, full_name: str) -> dict:
        return repo_payload(data, full_name, api=REST)
