"""Emulator profiles: how hostile the emulated GitHub is. Every knob is a field; all randomness comes from the seed.

``github`` reproduces the documented and observed behaviour of GitHub's legacy code search (see the package
docstring for the evidence behind each default); ``ideal`` switches every pathology and limit off, which is
what unit tests of parsing/shapes want. A fault-injection test scales the fault rates with
:meth:`Profile.with_faults`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

INDEX_MAX_BYTES = 384 * 1024  # files this size or larger are never in the code-search index
RESULT_CAP = 1000  # only the first 1000 results of a query can be paged through
PER_PAGE_MAX = 100


@dataclass(frozen=True)
class Profile:
    name: str = "github"
    # primary rate limits, per token (None = unlimited); fixed windows that start with the first request
    search_limit: int | None = 10
    search_window: float = 60.0
    core_limit: int | None = 5000
    core_window: float = 3600.0
    anonymous_core_limit: int | None = 60
    limit_429_share: float = 0.2  # share of primary-limit refusals answered 429 instead of 403
    # secondary ("abuse") limits on search requests
    secondary_rate: float = 0.01
    secondary_retry_after_share: float = 0.5  # the rest carry no retry-after header
    secondary_retry_after: tuple[int, int] = (5, 60)  # seconds, inclusive range
    secondary_block: float = 60.0  # token refused for this long after a secondary limit without retry-after
    # search result quality
    undercount: tuple[float, float] | None = (0.6, 1.0)  # reported total_count = true x U(lo, hi), per query
    lossy_threshold: int = 500  # queries matching more indexed files than this lose some files ...
    lossy_rate: float = 0.02  # ... each with this probability, deterministic per (file, query)
    incomplete_rate: float = 0.02  # share of search responses flagged incomplete_results ...
    incomplete_drop: float = 0.05  # ... which then miss this share of the page's items
    order_window: float = 600.0  # best-match order is stable within a window of this many seconds (0 = forever)
    # transport faults
    error_rate: float = 0.01  # 502/503 on API and raw requests
    slow_rate: float = 0.01
    slow_seconds: float = 0.3  # real delay of a slow response (never virtual)
    # GitHub facts, not pathologies
    graphql: bool = True  # False: POST /graphql answers 404 (an API host without GraphQL)
    index_max_bytes: int = INDEX_MAX_BYTES
    result_cap: int = RESULT_CAP
    per_page_max: int = PER_PAGE_MAX

    def __post_init__(self) -> None:
        for knob in ("limit_429_share", "secondary_rate", "secondary_retry_after_share", "lossy_rate",
                     "incomplete_rate", "incomplete_drop", "error_rate", "slow_rate"):
            value = getattr(self, knob)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"profile {self.name!r}: {knob} must be a probability in [0, 1], got {value}")
        if self.undercount is not None and not 0.0 < self.undercount[0] <= self.undercount[1] <= 1.0:
            raise ValueError(f"profile {self.name!r}: undercount must be (lo, hi) with 0 < lo <= hi <= 1")

    def with_faults(self, rate: float) -> Profile:
        """The same profile with every random fault (secondary limits, 5xx, incomplete pages, slow replies) at ``rate``."""
        return replace(self, name=f"{self.name}+faults{rate:g}", secondary_rate=rate, error_rate=rate,
                       incomplete_rate=rate, slow_rate=rate)


GITHUB = Profile()
IDEAL = Profile(name="ideal", search_limit=None, core_limit=None, anonymous_core_limit=None, secondary_rate=0.0,
                undercount=None, lossy_rate=0.0, incomplete_rate=0.0, order_window=0.0, error_rate=0.0, slow_rate=0.0)
PROFILES: dict[str, Profile] = {"github": GITHUB, "ideal": IDEAL}


def get_profile(profile: str | Profile) -> Profile:
    if isinstance(profile, Profile):
        return profile
    try:
        return PROFILES[profile]
    except KeyError:
        raise ValueError(f"unknown emulator profile {profile!r}; known: {', '.join(PROFILES)}") from None
