"""The shape of the file-size distribution, learned from finished queries: it sizes a query's next range before
the query's own files can (mass per range in log-size space).
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections import Counter

from aac.collectors.partition.ranges import MAX_INDEXED, SizeRange, u_of


class SizePrior:
    """The shape of the size distribution over u, as mass per range, learned from finished queries.

    Before any query has finished it holds a weak default (log-normal around 1.5 KB, the shape of text files on
    GitHub) that only seeds the first sweep; the first learned query replaces it. A small uniform floor keeps
    every range's mass positive, so empty stretches are crossed in one step.
    """

    FLOOR = 0.5  # files spread uniformly over the whole axis
    KERNEL = 0.05  # an exact size is spread this far either side in u: the pool is a sample, its noise is smoothed

    def __init__(self, default: bool = True) -> None:
        self._edges: list[float] = []
        self._cum: list[float] = []
        self._pieces: list[tuple[float, float, float]] = []  # (u_lo, u_hi, count)
        self.learned = False
        if default:
            mu, sigma, bins = u_of(1500), 1.2, 64
            top = u_of(MAX_INDEXED)
            for i in range(bins):
                a, b = top * i / bins, top * (i + 1) / bins
                m = 0.5 * (math.erf((b - mu) / (sigma * math.sqrt(2))) - math.erf((a - mu) / (sigma * math.sqrt(2))))
                self._pieces.append((a, b, 1000.0 * m))
            self._rebuild()

    def add_query(self, leaves: list[tuple[SizeRange, int]], sizes: list[int] | None = None) -> None:
        """Learn a finished query: its exact file sizes when known (each file is mass 1 spread ``KERNEL`` either
        side of its size, as one query is only a sample of the shape), else its leaves' counts spread evenly over
        each leaf (which blurs the shape over leaf widths and puts mass in empty stretches)."""
        if not self.learned:
            self._pieces = []
            self.learned = True
        if sizes:
            h = self.KERNEL
            for x, k in Counter(sizes).items():
                a, b = u_of(x), u_of(x + 1)
                self._pieces.append((max(0.0, a - h), b + h, float(k)))
        else:
            self._pieces.extend((u_of(r.lo), u_of(r.hi), float(n)) for r, n in leaves)
        self._rebuild()

    def _rebuild(self) -> None:
        top = u_of(MAX_INDEXED)
        pieces = self._pieces + [(0.0, top, self.FLOOR)]
        step: dict[float, float] = {}  # density changes at each edge (a piece adds its density over [lo, hi))
        for lo, hi, n in pieces:
            if hi <= lo:
                continue
            d = n / (hi - lo)
            step[lo] = step.get(lo, 0.0) + d
            step[hi] = step.get(hi, 0.0) - d
        edges = sorted(step)
        dens, run = [], 0.0
        for e in edges[:-1]:
            run += step[e]
            dens.append(max(0.0, run))
        cum = [0.0]
        for i, d in enumerate(dens):
            cum.append(cum[-1] + d * (edges[i + 1] - edges[i]))
        self._edges, self._cum = edges, cum

    @property
    def ready(self) -> bool:
        return bool(self._cum) and self._cum[-1] > 0

    def mass_below(self, u: float) -> float:
        e, c = self._edges, self._cum
        if not e or u <= e[0]:
            return 0.0
        if u >= e[-1]:
            return c[-1]
        i = bisect_right(e, u) - 1
        frac = (u - e[i]) / (e[i + 1] - e[i])
        return c[i] + frac * (c[i + 1] - c[i])

    def mass(self, u_lo: float, u_hi: float) -> float:
        return max(0.0, self.mass_below(u_hi) - self.mass_below(u_lo))

    def u_for_mass(self, u_lo: float, m: float) -> float:
        """The u at which the mass from ``u_lo`` reaches ``m`` (or the end of the axis)."""
        e, c = self._edges, self._cum
        goal = self.mass_below(u_lo) + m
        if goal >= c[-1]:
            return e[-1]
        i = bisect_right(c, goal) - 1
        i = min(max(i, 0), len(e) - 2)
        span = c[i + 1] - c[i]
        frac = 0.0 if span <= 0 else (goal - c[i]) / span
        return max(u_lo, e[i] + frac * (e[i + 1] - e[i]))
