"""File content from the raw route pinned to a commit (no API quota), callable from several threads at once (a
``requests.Session`` per thread). A 403/429 there with ``retry-after`` is waited out, at most
``SECONDARY_MAX_WAIT`` per try."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote, urlparse

from aac.collectors.github.errors import GitHubError
from aac.collectors.github.limits import SECONDARY_MAX_WAIT, retry_after_seconds
from aac.collectors.github.transport import transport_failure


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



class RawContent:
    """Raw file downloads of :class:`~aac.collectors.github.client.GitHubClient`."""

    def _raw_session(self) -> Any:
        import requests

        session = getattr(self._local, "session", None)
        if session is None:
            session = self._local.session = requests.Session()
            with self._lock:
                self._raw_sessions.append(session)
        return session

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
                if not transport_failure(exc):
                    raise GitHubError(f"raw {full_name}/{path}@{ref}: bad request: {exc}") from None
                last = type(exc).__name__
            else:
                self._adopt_clock({k.lower(): v for k, v in r.headers.items()})
                if r.status_code == 200:
                    return r.content
                if r.status_code == 404:
                    return None
                last = f"HTTP {r.status_code}"
                asked = retry_after_seconds(r.headers.get("retry-after")) if r.status_code in (403, 429) else None
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
