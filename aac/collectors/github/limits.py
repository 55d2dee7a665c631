"""The token pool and its limits: which token may ask next, when a spent or refused token may ask again, and
waiting (on the client's clock) when none may.

Primary limits: ``x-ratelimit-remaining: 0`` rests a token until ``x-ratelimit-reset``. Secondary limits (403/429
with remaining > 0): ``retry-after`` is obeyed; without it the token rests 60 s, doubling on each consecutive hit
(GitHub's documented advice).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from aac.collectors.github.errors import GitHubError
from aac.core.config import Secret

SECONDARY_BASE_WAIT = 60.0
SECONDARY_MAX_WAIT = 15 * 60.0


def retry_after_seconds(value: Any) -> float | None:
    """Seconds a ``retry-after`` header asks for (a number; GitHub never sends the HTTP-date form), else None."""
    try:
        return max(0.0, float(value))
    except (TypeError, ValueError):
        return None


@dataclass
class PoolToken:
    """One token of the pool and, per resource, when it may ask again and what its last answer said was left."""

    index: int
    gh: Any  # github.Github
    secret: Secret
    available_at: dict[str, float] = field(default_factory=dict)  # resource -> time it may be used again
    remaining: dict[str, tuple[int, float]] = field(default_factory=dict)  # resource -> (remaining, reset)
    secondary_streak: int = 0

    def __repr__(self) -> str:
        return f"<token #{self.index}>"


class TokenLimits:
    """Token choice and limit bookkeeping of :class:`~aac.collectors.github.client.GitHubClient`."""

    def _pick(self, resource: str) -> PoolToken:
        """The next token free for ``resource`` (round robin), sleeping until one is if none is."""
        now = self.clock.now()
        n = len(self.tokens)
        for k in range(n):
            tok = self.tokens[(self._next + k) % n]
            if tok.available_at.get(resource, 0.0) <= now:
                self._next = (tok.index + 1) % n
                return tok
        soonest = min(self.tokens, key=lambda t: t.available_at.get(resource, 0.0))
        self._sleep(soonest.available_at[resource] - now, "rate_limit")
        return soonest

    def reserve(self, resource: str, n: int) -> None:
        """Wait, if needed, until some token can make ``n`` requests in a row.

        Paging one range inside a single rate-limit window keeps its pages in one result order (search order is
        not stable over time); the wait costs time, never requests.
        """
        now = self.clock.now()
        best = None
        for tok in self.tokens:
            rem, reset = tok.remaining.get(resource, (None, 0.0))
            if rem is None or rem >= n or reset + 1.0 <= now:
                return
            best = reset if best is None else min(best, reset)
        if best is not None:
            self._sleep(best + 1.0 - now, "rate_limit")
            for tok in self.tokens:
                tok.remaining.pop(resource, None)

    @staticmethod
    def _limits(headers: dict) -> tuple[int | None, float | None]:
        try:
            remaining = int(headers["x-ratelimit-remaining"])
        except (KeyError, TypeError, ValueError):
            remaining = None
        try:
            reset = float(headers["x-ratelimit-reset"])
        except (KeyError, TypeError, ValueError):
            reset = None
        return remaining, reset

    def _note(self, tok: PoolToken, resource: str, headers: dict) -> None:
        """After a response: a spent token waits for its window's reset (+1 s for clock skew)."""
        remaining, reset = self._limits(headers)
        if remaining is not None and reset is not None:
            tok.remaining[resource] = (remaining, reset)
        if remaining == 0 and reset is not None:
            tok.available_at[resource] = max(tok.available_at.get(resource, 0.0), reset + 1.0)

    def _refused(self, tok: PoolToken, resource: str, status: int, got: dict, message: str, what: str) -> None:
        """A 403/429 (or GraphQL's 200 with a RATE_LIMITED error): rest the token for as long as the limit says;
        raises when the refusal is not a limit (retrying cannot fix it)."""
        remaining, reset = self._limits(got)
        retry_after = retry_after_seconds(got.get("retry-after"))
        now = self.clock.now()
        if retry_after is not None:
            self.stats.secondary_limits += 1
            tok.available_at[resource] = now + retry_after
        elif remaining == 0 and reset is not None:
            self.stats.primary_refusals += 1
            tok.available_at[resource] = max(now, reset) + 1.0
        elif status == 403 and "rate limit" not in message.lower() and "abuse" not in message.lower():
            raise GitHubError(self.scrub(f"{what} refused: {message}"), status) from None
        else:
            self.stats.secondary_limits += 1
            tok.secondary_streak += 1
            wait = min(SECONDARY_MAX_WAIT, SECONDARY_BASE_WAIT * 2 ** (tok.secondary_streak - 1))
            tok.available_at[resource] = now + wait
