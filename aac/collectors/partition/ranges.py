"""Size ranges of the code-search index and what they cost in pages: the vocabulary every part of the partitioner
speaks (a range is asked as one ``size:`` qualifier; a page holds ``PER_PAGE`` results, a query at most
``RESULT_CAP``).
"""

from __future__ import annotations

import math
from bisect import bisect_left
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from aac.collectors.partition.prior import SizePrior

MAX_INDEXED = 384 * 1024  # files of this size and larger are not in the code-search index
RESULT_CAP = 1000  # page * per_page > 1000 is refused
PER_PAGE = 100
TRUSTED_SMALL = PER_PAGE  # a leaf that fits on one page is not verified (nothing narrower is cheaper)


def u_of(size: float) -> float:
    """Log-size coordinate: file sizes are near log-normal, so densities are smooth in it."""
    return math.log1p(max(0.0, size))


def size_of(u: float) -> float:
    return math.expm1(u)


@dataclass(frozen=True, order=True)
class SizeRange:
    """Half-open byte range ``[lo, hi)``."""

    lo: int
    hi: int

    def __post_init__(self) -> None:
        if not (0 <= self.lo < self.hi):
            raise ValueError(f"empty or negative size range [{self.lo}, {self.hi})")

    @property
    def width(self) -> int:
        return self.hi - self.lo

    def qualifier(self) -> str:
        """The legacy ``size:`` qualifier selecting exactly this range (inclusive bounds)."""
        last = self.hi - 1
        return f"size:{self.lo}" if last == self.lo else f"size:{self.lo}..{last}"

    def halves(self, prior: "SizePrior | None" = None) -> tuple["SizeRange", "SizeRange"] | None:
        """Two halves holding about the same number of files by ``prior`` (else split at the log-size midpoint);
        at least one byte each; None for a 1-byte range."""
        if self.width < 2:
            return None
        a, b = u_of(self.lo), u_of(self.hi)
        m = prior.mass(a, b) if prior is not None and prior.ready else 0.0
        u_mid = prior.u_for_mass(a, m / 2) if m > 0 else (a + b) / 2
        mid = int(round(size_of(u_mid)))
        mid = min(max(mid, self.lo + 1), self.hi - 1)
        return SizeRange(self.lo, mid), SizeRange(mid, self.hi)

    def halves_by_sizes(self, sizes: list[int], slack: float = 0.0,
                        per_page: int = PER_PAGE) -> tuple["SizeRange", "SizeRange"] | None:
        """Two parts of the range cut where the exact sizes of its files (``sizes``) make them cost the fewest
        pages, the most even such cut; ``slack`` is the share of files the range may have missed (each part is
        priced as if it held that many more). None for a 1-byte range or when no size falls inside."""
        inside = sorted(x for x in sizes if self.lo <= x < self.hi)
        if self.width < 2 or not inside:
            return None
        n = len(inside)

        def pages(k: int) -> int:
            return priced_pages(k, slack, per_page)

        best, best_key = None, None
        for mid in sorted({min(max(x, self.lo + 1), self.hi - 1) for x in inside} | {self.lo + 1, self.hi - 1}):
            a = bisect_left(inside, mid)
            key = (pages(a) + pages(n - a), abs(2 * a - n))
            if best_key is None or key < best_key:
                best, best_key = mid, key
        return SizeRange(self.lo, best), SizeRange(best, self.hi)

    def part_by_sizes(self, sizes: list[int], max_files: int) -> tuple["SizeRange", "SizeRange", int] | None:
        """The prefix or suffix of the range holding the most of ``sizes`` but at most ``max_files``, with the
        rest of the range and its count; None when no part of at least one byte fits."""
        inside = sorted(x for x in sizes if self.lo <= x < self.hi)
        if self.width < 2 or not inside or max_files < 1:
            return None
        n = len(inside)
        best: tuple[SizeRange, SizeRange, int] | None = None
        for mid in sorted({min(max(x, self.lo + 1), self.hi - 1) for x in inside} | {self.lo + 1, self.hi - 1}):
            below = bisect_left(inside, mid)
            for part, rest, k in ((SizeRange(self.lo, mid), SizeRange(mid, self.hi), below),
                                  (SizeRange(mid, self.hi), SizeRange(self.lo, mid), n - below)):
                if k <= max_files and (best is None or k > best[2]):
                    best = (part, rest, k)
        return best

    @property
    def u_width(self) -> float:
        return u_of(self.hi) - u_of(self.lo)


def priced_pages(k: int, slack: float = 0.0, per_page: int = PER_PAGE) -> int:
    """Pages a check part of ``k`` known files costs if it holds ``slack`` more: ``k // per_page + 1`` (a full
    last page needs one more request to see the end)."""
    return int(k * (1.0 + slack)) // per_page + 1


def saturated(rng: SizeRange, fetched: int, result_cap: int = RESULT_CAP) -> bool:
    """A one-byte range at the result cap: some files are unreachable by size partitioning alone."""
    return rng.width == 1 and fetched >= result_cap
