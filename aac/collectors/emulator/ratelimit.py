"""Primary rate limits per (token, resource): fixed windows that open with the first request, like GitHub's
``x-ratelimit-reset``. Tokens are only ever held as a hash."""

from __future__ import annotations

import hashlib
import math
import threading
from dataclasses import dataclass


def token_key(authorization: str | None) -> str | None:
    """A short hash identifying the caller's token; None for anonymous requests. The token itself is dropped."""
    if not authorization:
        return None
    return hashlib.sha256(authorization.strip().encode()).hexdigest()[:16]


@dataclass
class Window:
    limit: int
    used: int = 0
    reset: float = 0.0


@dataclass(frozen=True)
class Usage:
    resource: str
    limit: int
    used: int
    reset: int

    @property
    def remaining(self) -> int:
        return max(0, self.limit - self.used)

    def headers(self) -> dict[str, str]:
        return {"x-ratelimit-limit": str(self.limit), "x-ratelimit-remaining": str(self.remaining),
                "x-ratelimit-reset": str(self.reset), "x-ratelimit-used": str(self.used),
                "x-ratelimit-resource": self.resource}


UNLIMITED = 1_000_000_000  # what headers report when a profile has no limit


class RateLimiter:
    def __init__(self, limits: dict[str, tuple[int | None, float]],
                 anonymous: dict[str, tuple[int | None, float]] | None = None):
        """``limits``: resource -> (requests per window or None for unlimited, window seconds); ``anonymous``
        overrides them for requests without a token (GitHub gives those far less)."""
        self._limits = limits
        self._anonymous = anonymous or {}
        self._windows: dict[tuple[str | None, str], Window] = {}
        self._lock = threading.Lock()

    def _window(self, key: str | None, resource: str, now: float) -> Window:
        limit, seconds = (self._anonymous.get(resource) if key is None else None) or self._limits[resource]
        w = self._windows.get((key, resource))
        if w is None or now >= w.reset:
            w = Window(UNLIMITED if limit is None else limit, 0, now + seconds)
            self._windows[(key, resource)] = w
        return w

    def peek(self, key: str | None, resource: str, now: float) -> Usage:
        with self._lock:
            w = self._window(key, resource, now)
            return Usage(resource, w.limit, w.used, math.ceil(w.reset))

    def take(self, key: str | None, resource: str, now: float) -> tuple[bool, Usage]:
        """Spend one request if any are left: (allowed, usage after the request)."""
        with self._lock:
            w = self._window(key, resource, now)
            allowed = w.used < w.limit
            if allowed:
                w.used += 1
            return allowed, Usage(resource, w.limit, w.used, math.ceil(w.reset))
