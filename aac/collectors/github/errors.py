"""The crawl's GitHub error: a request that failed for good, with its HTTP status when there was one."""

from __future__ import annotations

class GitHubError(RuntimeError):
    """A request that failed for good (after retries, or a 4xx that retrying cannot fix)."""

    def __init__(self, message: str, status: int | None = None):
        super().__init__(message)
        self.status = status
