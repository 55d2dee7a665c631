"""Adaptive file-size partitioning for GitHub code search (pure logic, no I/O).

GitHub's legacy code search returns at most 1,000 results per query, so a query matching more files must be
cut into ``size:`` ranges. Two facts make the obvious approach (split until ``total_count`` < 1,000) lose files:

- ``total_count`` undercounts, so a range reported under the cap can still hold more than the cap;
- a range matching many files silently omits some of them, which a narrower range returns.

So this module never trusts one number. A query is swept left to right over ``[0, 393216)`` (files of
384 KB and more are never indexed) in ranges sized from *fetched* counts, not reported ones:

1. **Probe** = page 1 with ``per_page=100`` of the candidate range. It is never wasted: if the range turns out
   to be a leaf its first page is already in hand.
2. **Split** if the probe's ``total_count`` (a lower bound of the true count) or the count fetched while paging
   exceeds the abort limit; the next candidate is narrower, sized from what was seen.
3. **Verify**: a completed leaf larger than any leaf already shown to be loss-free is checked by fetching its
   two halves; if their union finds files the leaf missed, leaves of that size lose files and the target leaf
   size shrinks (:class:`LossModel`). Checks are recursive and stop once a size is shown to be clean, so after a
   few checks the crawl runs at a target just under a whole number of pages. Clean checks are the common case,
   so a check fetches its larger part first and stops there when it finds nothing (:func:`check_parts`).

Widths are chosen in ``u = ln(1 + size)`` space, where file sizes are roughly normal, from the density of the
adjacent completed leaf (its exact fetched count), shaped by the size distribution learned from queries already
finished (:class:`SizePrior`). Resume needs only the completed leaves: the sweep position is the end of the
covered prefix.

When the crawl knows the **exact size** of each fetched file (it downloads every hit's content from the raw
route, which costs no search quota), three things sharpen: the prior is learned from the sizes themselves, not
from leaf counts; the query's local scale is measured on its own last few hundred files below the sweep
(``SweepPlan.add_sizes``); and a check cuts its leaf where the two parts cost the fewest pages
(``SizeRange.halves_by_sizes``), not where the prior guesses the middle is.

A re-crawl can be **seeded** with the leaves of the previous crawl of the same query: each seed range is asked
as it is (no root probe, no narrowing from scratch), and the usual rules still apply to what comes back, so a
seed that has grown past the limit is split and one that grew past the proven-clean size is verified.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right, insort
from collections import Counter
from dataclasses import dataclass, field

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


def snap_to_pages(x: float, rel_err: float = 0.1, per_page: int = PER_PAGE) -> int:
    """A leaf-size target just under a whole number of pages and safely under ``x``.

    A leaf of 405 files costs five pages for four pages' worth, so the target sits a little under the page
    boundary below ``x``; a leaf that overshoots the boundary costs one page, one that overshoots ``x`` costs a
    check, hence the wider margin there. ``rel_err`` is the RMS relative error of count predictions so far.
    """
    if x < per_page:
        return max(1, int(x))
    k = int(x // per_page) * per_page
    return max(per_page // 2, int(k / (1.0 + 0.8 * rel_err)))


@dataclass
class LossModel:
    """What the crawl has learned about how large a result set can be before the engine silently drops files.

    ``clean_max``: the largest leaf whose halves found nothing more. ``lossy_min``: the smallest leaf whose
    halves did. Both are order-independent aggregates, so the model can be rebuilt from stored checks.
    """

    result_cap: int = RESULT_CAP
    per_page: int = PER_PAGE
    clean_max: int = 0
    lossy_min: int | None = None
    checks: int = 0
    max_loss_fraction: float = 0.0
    lost_found: int = 0
    lossy_held: int = 0  # files held by the leaves whose checks found losses
    ratios: list[float] = field(default_factory=list)  # reported_total / fetched on complete leaves
    errors: list[float] = field(default_factory=list)  # fetched / predicted - 1 on complete leaves

    def record_check(self, n: int, lost: int) -> None:
        self.checks += 1
        self.lost_found += lost
        if lost > 0:
            held = n + lost  # the threshold is on the files a range holds, not on those it showed
            self.lossy_held += held
            self.lossy_min = held if self.lossy_min is None else min(self.lossy_min, held)
            self.max_loss_fraction = max(self.max_loss_fraction, lost / max(1, n + lost))
        else:
            self.clean_max = max(self.clean_max, n)

    def record_ratio(self, reported: int | None, fetched: int) -> None:
        if reported is not None and fetched >= self.per_page:
            self.ratios.append(reported / fetched)

    def record_error(self, predicted: float, fetched: int) -> None:
        if predicted >= self.per_page:
            self.errors.append(fetched / predicted - 1.0)

    def rel_err(self) -> float:
        """RMS relative error of recent count predictions (0.1 before evidence)."""
        recent = sorted(abs(e) for e in self.errors[-40:])
        if len(recent) < 5:
            return 0.1
        # robust (median absolute error x 1.48 ~ sigma): one template spike must not widen every later margin
        return min(0.5, max(0.03, 1.48 * recent[len(recent) // 2]))

    def undercount(self, q: float = 0.5) -> float:
        """Quantile ``q`` of reported/fetched seen so far (how much total_count undercounts)."""
        if len(self.ratios) < 3:
            return {0.5: 0.8}.get(q, 0.9)
        r = sorted(self.ratios)
        return min(1.0, max(0.3, r[min(len(r) - 1, int(q * len(r)))]))

    def measured_loss_rate(self) -> float | None:
        """Files lost per file held, pooled over every check that found a loss (None before one): the rate at
        which a lossy leaf's files go missing, which decides how much of a leaf a partial check must see."""
        return self.lost_found / self.lossy_held if self.lossy_held else None

    def loss_rate(self) -> float:
        """The largest fraction of a leaf seen lost so far (3% before evidence)."""
        return max(0.03, self.max_loss_fraction)

    def safe_bound(self) -> float:
        """Leaves up to this many fetched files are accepted unchecked.

        A lossy leaf shows fewer files than it holds, so a leaf just above the clean size can look like one
        just below it: the bound keeps a margin of the worst loss rate seen below the smallest lossy size. The
        same ambiguity exists below the clean size (a leaf holding one file more than ``clean_max`` may lose a
        few and show no more than it); closing it with the same margin under ``clean_max`` was measured
        (``bench/crawl_sim.py``, 16 seeds): lowest recall 0.99964 -> 1.0 for a ratio 1.322 -> 1.340, so it is
        not applied, as recall stays above the 0.999 the crawl is held to.
        """
        if self.clean_max < self.per_page:
            return 0.0
        bound = float(self.clean_max)
        lossy = self.lossy_bound()
        return bound if lossy is None else min(bound, lossy)

    def lossy_bound(self) -> float | None:
        """The fetched count under which a leaf is unlikely to be one of the smallest lossy size seen (None
        before a loss): the number lost is binomial, so two standard deviations more than the worst rate."""
        if self.lossy_min is None:
            return None
        rate = self.loss_rate()
        return self.lossy_min * (1.0 - rate) - 2.0 * math.sqrt(self.lossy_min * rate)

    def ceiling(self) -> float:
        """The count to aim under: half the cap before evidence; above the clean size while the bracket between
        clean and lossy sizes is wide (checks of such leaves are how the model learns); else the safe bound."""
        cap = self.result_cap * 0.95
        if self.clean_max < self.per_page:
            if self.lossy_min is not None:
                return max(self.per_page, min(cap, self.lossy_min / 2))
            return self.result_cap / 2
        if self.lossy_min is None:
            return min(cap, self.clean_max * 1.25)
        if self.clean_max < 0.93 * self.lossy_min:
            return min(cap, (self.clean_max + self.lossy_min) / 2)
        return max(self.per_page, self.safe_bound())

    def target(self, rel: float | None = None) -> int:
        """The leaf size to aim at; ``rel`` overrides the relative error of the prediction it will rest on."""
        rel = self.rel_err() if rel is None else rel
        t = snap_to_pages(self.ceiling(), rel, self.per_page)
        safe = self.safe_bound()
        if safe >= self.per_page:
            t = min(t, int(safe / (1.0 + 1.2 * rel)))
        lossy = self.lossy_bound()
        if lossy is not None and lossy >= self.per_page:
            # over the size a loss was seen at, a leaf costs a check (about its pages again) and the check cannot
            # prove more: aim at the page tier under it, not between tiers, where such overshoots are frequent
            t = min(t, snap_to_pages(lossy / (1.0 + 1.2 * rel) * (1.0 + 0.8 * rel), rel, self.per_page))
        return max(1, t)

    def abort_limit(self) -> int:
        """Fetched count at which paging a candidate stops: it cannot be a leaf (known-lossy size or the cap)."""
        lim = self.result_cap
        if self.lossy_min is not None:
            lim = min(lim, self.lossy_min)
        # far past the size being aimed at, a candidate would be checked by its halves once complete (about
        # twice its pages again): dropping it now and cutting narrower is cheaper
        lim = min(lim, int(self.ceiling() * self.ABORT_PAST_CEILING))
        return max(self.per_page, lim)

    ABORT_PAST_CEILING = 1.5  # see abort_limit

    OPTIMISM = 1.2  # before any loss is seen, leaves up to this factor above the clean size pass unchecked ...

    def needs_check(self, n: int) -> bool:
        """... and are checked after the fact if a loss is found later (see ``CrawlEngine``), so exploring the
        safe size costs checks only where the optimism was wrong."""
        if n <= TRUSTED_SMALL:
            return False
        if self.lossy_min is None and self.clean_max >= self.per_page:
            return n > self.clean_max * self.OPTIMISM
        return n > self.safe_bound()

    def optimistic(self, n: int) -> bool:
        """Whether a leaf of ``n`` passes only on optimism (no loss seen yet, larger than the proven size)."""
        return self.lossy_min is None and n > max(TRUSTED_SMALL, self.clean_max)

    NEAR_SAFE = 0.9  # see may_need_check

    def may_need_check(self, n: int) -> bool:
        """Whether an unchecked leaf of ``n`` could need a check once a loss is seen at a smaller size: it passed
        on optimism, or it sits close under the safe size (the binomial margin is learned from few checks)."""
        if self.optimistic(n):
            return True
        lossy = self.lossy_bound()
        return lossy is not None and n > max(TRUSTED_SMALL, self.NEAR_SAFE * lossy)


PARTIAL_MISS = 0.02  # see check_parts
PARTIAL_SAVING = 2
TOLERATED_LOSS = 0.001  # the share of files a crawl may miss (it is held to recall 0.999)


def check_parts(rng: SizeRange, sizes: list[int] | None, model: LossModel, prior: "SizePrior | None" = None,
                per_page: int = PER_PAGE) -> tuple[tuple[SizeRange, SizeRange], bool] | None:
    """How to check a leaf: the two parts to fetch again, and whether the first may settle the check alone.

    By default both parts are fetched, cut where they cost the fewest pages (by exact sizes, else the prior).
    Most checks find nothing: they are how the crawl learns the size at which ranges start losing files. So a
    leaf smaller than any known-lossy size is checked **partially** when it can be: the largest prefix or suffix
    costing ``PARTIAL_SAVING`` pages less than the whole check is fetched first, and if it finds no file the
    leaf missed, the leaf is taken as clean and the rest is not fetched. A lossy range drops each file
    independently, so a part of ``k`` files misses a loss at rate ``r`` with probability ``(1 - r) ** k``. The
    part must hold either enough files to see a loss at the measured rate with probability ``1 - PARTIAL_MISS``,
    or, whatever the rate, ``1 / (e * TOLERATED_LOSS)`` files: the expected share of the files the check
    vouches for that a missed loss costs, ``r * (1 - r) ** k``, is largest at ``r = 1 / k``, under ``1 / (e * k)``. Otherwise the check
    stays whole. ``bench/crawl_sim.py`` (16 seeds): mean ratio 1.322 -> 1.302 at the same lowest recall
    (0.99964); 1.310 with partial checks only after a loss has been measured.
    """
    inside = [x for x in sizes or [] if rng.lo <= x < rng.hi]
    n = len(inside)
    slack = model.loss_rate()
    whole = rng.halves_by_sizes(inside, slack, per_page) if n else None
    if whole is None:
        halves = rng.halves(prior)
        return None if halves is None else (halves, False)
    if model.lossy_min is not None and n >= model.lossy_min * (1.0 - slack):
        return whole, False  # as large as a leaf seen losing files: probably lossy, so both parts are needed
    costs = [priced_pages(sum(1 for x in inside if h.lo <= x < h.hi), slack, per_page) for h in whole]
    pages = sum(costs) - PARTIAL_SAVING
    if pages < 1:
        return whole, False
    max_files = math.ceil(pages * per_page / (1.0 + slack)) - 1  # the most files priced at ``pages``
    need = 1.0 / (math.e * TOLERATED_LOSS)
    rate = model.measured_loss_rate()
    if rate is not None:
        need = min(need, math.log(1.0 / PARTIAL_MISS) / rate)
    part = rng.part_by_sizes(inside, max_files)
    if part is None or part[2] < need:
        return whole, False
    return (part[0], part[1]), True


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


@dataclass
class Observation:
    """What one candidate range gave: the probe's total_count, the files fetched, whether paging completed."""

    rng: SizeRange
    reported_total: int | None
    fetched: int
    complete: bool


class SweepPlan:
    """The sweep over one query's size axis. Call :meth:`next_range`, crawl it, then :meth:`observe`.

    Final leaves (complete observations) tile ``[lo, hi)`` exactly once, left to right, whatever the counts:
    every candidate starts at the current position, a split only shortens the next candidate, and a
    one-byte range is always accepted (it cannot be narrowed; it is marked ``saturated`` if over the cap).
    """

    GROWTH = 4.0  # a candidate is at most this many times wider (in u) than the last leaf
    SHRINK = 0.7  # after a split the next candidate is at most this fraction of the split one
    SCALE_LEAVES = 1  # leaves the local scale is estimated from
    PSEUDO_FILES = 30.0  # weight of the query's overall scale in the local estimate
    TAIL = 0.25  # a remainder expected to hold less than this share of a leaf joins the current candidate

    def __init__(self, model: LossModel, prior: SizePrior | None = None, lo: int = 0, hi: int = MAX_INDEXED,
                 done: list[tuple[SizeRange, int]] | None = None, root_total: int | None = None,
                 seeds: list[SizeRange] | None = None):
        self.model = model
        self.seeds = sorted(s for s in seeds or [] if s.lo < hi and s.hi > lo)
        self.prior = prior
        self.lo, self.hi = lo, hi
        self.pos = lo
        self.leaves: list[tuple[SizeRange, int]] = []
        self.last_split: Observation | None = None
        self.root_estimate: float | None = None
        self.predicted: float | None = None
        self._last_scale: float | None = None
        self.sizes: list[int] = []  # exact sizes of this query's files over [sized_from, pos), sorted
        self.sample: list[float] = []  # u of the root probe's files: a random sample of the query's sizes
        self._mix = False  # the current prediction comes from the sample (see _sample_count)
        self.sized_from = lo
        # finished leaves past a gap (a range left pending: search answered it only with empty incomplete
        # pages) are not searched again: the sweep fills the gap and jumps over them
        self._ahead = sorted(done or [])
        self._skip_done()
        self.sized_from = self.pos
        if root_total is not None and not self.leaves:
            # resuming after the root probe split: its total is the query's scale
            self.root_estimate = root_total / self.model.undercount()
            self.last_split = Observation(SizeRange(lo, hi), root_total, 0, False)

    @property
    def finished(self) -> bool:
        return self.pos >= self.hi

    def _skip_done(self) -> None:
        """Advance over finished leaves that start where the sweep stands."""
        while self._ahead and self._ahead[0][0].lo <= self.pos:
            rng, n = self._ahead.pop(0)
            if rng.lo == self.pos:
                self.leaves.append((rng, n))
                self.pos = rng.hi

    def next_range(self) -> SizeRange | None:
        if self.finished:
            return None
        seed = self._seed_at(self.pos) if self.last_split is None else None
        if seed is not None:
            self.predicted = None
            return SizeRange(self.pos, min(seed.hi, self.hi, self._ahead[0][0].lo if self._ahead else self.hi))
        stop = self._ahead[0][0].lo if self._ahead else self.hi  # the next finished leaf, past a gap
        if not self.leaves and self.last_split is None and self.root_estimate is None and self.pos == self.lo:
            return SizeRange(self.lo, stop)  # the root probe: small queries finish here
        u0 = u_of(self.pos)
        w = self._width_u(u0)
        hi = int(round(size_of(u0 + w)))
        if hi < self.hi and self._tail_is_small(u_of(hi)):
            hi = self.hi  # what is left is a sliver of the expected leaf: take it in the same query
        if self.last_split is not None:
            hi = min(hi, self.last_split.rng.hi - 1)
        hi = max(self.pos + 1, min(hi, stop))
        if self.predicted is not None and w > 0:  # the prediction for the range actually asked
            prior = self.prior if self.prior is not None and self.prior.ready else None
            if prior is not None and self._mix:
                self.predicted = self._sample_count(prior, u0, u_of(hi))
            elif prior is not None and self._last_scale is not None:
                self.predicted = self._last_scale * prior.mass(u0, u_of(hi))
            else:
                self.predicted *= (u_of(hi) - u0) / w
        return SizeRange(self.pos, hi)

    def _seed_at(self, pos: int) -> SizeRange | None:
        """The seed range holding ``pos`` (its rest is the next candidate after a split inside it)."""
        i = bisect_right(self.seeds, SizeRange(pos, MAX_INDEXED + 1)) - 1
        if i >= 0 and self.seeds[i].lo <= pos < self.seeds[i].hi:
            return self.seeds[i]
        return None

    def add_sizes(self, rng: SizeRange, sizes: list[int] | None) -> None:
        """The exact sizes of the files of the leaf ``rng`` just observed (None: unknown, which restarts the
        sized stretch after it). They measure the query's local scale far better than leaf counts do."""
        if rng.hi != self.pos or self.sized_from > rng.lo:
            return
        if sizes is None:
            self.sizes, self.sized_from = [], rng.hi
            return
        for x in sizes:
            if rng.lo <= x < rng.hi:
                insort(self.sizes, x)

    def add_sample(self, sizes: list[int] | None) -> None:
        """The exact sizes of the root probe's files. Search order does not depend on size, so they are a
        random sample of the query: until its own leaves measure it, it places the query's first leaves."""
        self.sample = sorted(u_of(x) for x in sizes or [])

    SAMPLE_PSEUDO = 20.0  # weight (in sampled files) of the prior's shape in the sample's distribution

    def _sample_count(self, prior: SizePrior, u0: float, u1: float) -> float:
        """Files expected in [u0, u1): the query's estimated total times the sample's share there, smoothed
        toward the prior's share (a hundred files place a range only roughly)."""
        k = bisect_left(self.sample, u1) - bisect_left(self.sample, u0)
        share = prior.mass(u0, u1) / max(prior.mass(0.0, u_of(self.hi)), 1e-12)
        a = self.SAMPLE_PSEUDO
        return (self.root_estimate or 0.0) * (k + a * share) / (len(self.sample) + a)

    def _use_sample(self, prior: SizePrior | None) -> bool:
        return (prior is not None and len(self.sample) >= PER_PAGE // 2 and self.root_estimate is not None
                and self._own_scale(prior) is None
                and (self.last_split is None or self.last_split.rng == SizeRange(self.lo, self.hi)))

    def sizes_complete(self) -> bool:
        return self.sized_from == self.lo and self.finished

    OWN_WINDOW = 600  # the query's own files the local scale is measured on ...
    OWN_LEAVES = 2  # ... taken from at most this many of its last leaves (an empty stretch must show at once)

    def _own_scale(self, prior: SizePrior) -> float | None:
        """Files of this query per unit of prior mass just below the sweep, from its exact sizes."""
        if len(self.sizes) < 2 * PER_PAGE:
            return None
        start = self.pos
        for rng, _ in reversed(self.leaves[-self.OWN_LEAVES:]):
            if rng.lo < self.sized_from:
                break
            start = rng.lo
            if len(self.sizes) - bisect_left(self.sizes, start) >= self.OWN_WINDOW:
                break
        first = self.sizes[-min(len(self.sizes), self.OWN_WINDOW)]
        start = max(start, first)
        n = len(self.sizes) - bisect_left(self.sizes, start)
        m = prior.mass(u_of(start), u_of(self.pos))
        return n / m if m > 0 and start < self.pos else None

    # ---- width selection -----------------------------------------------------------------------------
    def _count_estimate(self, obs: Observation) -> float:
        est = float(obs.fetched)
        if obs.reported_total is not None:
            est = max(est, obs.reported_total / self.model.undercount())
        return est

    def _scale(self, prior: SizePrior) -> float:
        """Files of this query per unit of prior mass, from the most local evidence available."""
        def ratio(pairs: list[tuple[SizeRange, float]]) -> tuple[float, float]:
            n = sum(c for _, c in pairs)
            m = sum(prior.mass(u_of(r.lo), u_of(r.hi)) for r, _ in pairs)
            return n, m

        if self.last_split is not None:
            n, m = ratio([(self.last_split.rng, self._count_estimate(self.last_split))])
            if m > 0:
                return n / m
        own = self._own_scale(prior)
        if own is not None:
            return own
        # the query's own recent leaves, shrunk toward its overall scale by a pseudo-count: shapes differ
        # between queries, so fresh local evidence wins, but one empty leaf must not send the sweep to the end
        s0 = None
        if self.root_estimate is not None:
            s0 = self.root_estimate / max(prior.mass(0.0, u_of(self.hi)), 1e-9)
        n, m = ratio([(r, float(c)) for r, c in self.leaves[-self.SCALE_LEAVES:]])
        if s0 is None:
            return n / m if m > 0 and n > 0 else 1.0
        a = self.PSEUDO_FILES
        return (n + a) / (m + a / max(s0, 1e-12))

    def _tail_is_small(self, u_hi: float) -> bool:
        prior = self.prior if self.prior is not None and self.prior.ready else None
        if prior is None or self._last_scale is None or self.last_split is not None or self._mix:
            return False
        rest = self._last_scale * prior.mass(u_hi, u_of(self.hi))
        return rest < self.TAIL * self.model.target()

    ROOT_CUT = 0.35  # undercount quantile: a root is cut when it holds more than the safe size this likely

    COARSE_REL = 0.25  # relative error of a count predicted from total_count (it undercounts by up to 40%)

    def _width_u(self, u0: float) -> float:
        split = self.last_split
        last = self.leaves[-1] if self.leaves else None
        prior = self.prior if self.prior is not None and self.prior.ready else None
        coarse = self.sized_from == self.lo and prior is not None and prior.learned \
            and self._own_scale(prior) is None and split is not None
        # before the query's own files can measure its scale, the prediction rests on total_count: aim lower
        target = float(self.model.target(max(self.model.rel_err(), self.COARSE_REL) if coarse else None))
        cap = float("inf")
        if split is not None:
            cap = split.rng.u_width * self.SHRINK
        elif last is not None and (prior is None or not prior.learned):
            cap = max(last[0].u_width * self.GROWTH, 1e-6)

        self._mix = self._use_sample(prior)
        if self._mix:
            top = u_of(self.hi)
            if self._sample_count(prior, u0, top) <= target:
                return top - u0
            a, b = u0, top  # the count grows with the width: bisect for the target
            for _ in range(50):
                m = (a + b) / 2
                a, b = (m, b) if self._sample_count(prior, u0, m) < target else (a, m)
            w = min(b - u0, cap)
            self.predicted = self._sample_count(prior, u0, u0 + w)
            return w
        if prior is not None:
            scale = self._scale(prior)
            self._last_scale = scale
            w = prior.u_for_mass(u0, target / max(scale, 1e-9)) - u0
            if w > 0:
                w = min(w, cap)
                self.predicted = scale * prior.mass(u0, u0 + w)
                return w
        ref = split.rng if split is not None else (last[0] if last else None)
        ref_n = self._count_estimate(split) if split is not None else (last[1] if last else 0)
        if ref is None or ref_n <= 0:
            return cap if cap < float("inf") else 1e-6
        dens = ref_n / max(ref.u_width, 1e-9)
        w = min(target / dens, cap)
        self.predicted = dens * w
        return w

    # ---- feedback ----------------------------------------------------------------------------------
    def observe(self, obs: Observation) -> str:
        """Record a candidate's outcome; returns ``"leaf"`` or ``"split"``."""
        if obs.rng.lo != self.pos:
            raise ValueError(f"observation for {obs.rng} but the sweep is at {self.pos}")
        is_root = obs.rng.lo == self.lo and obs.rng.hi == self.hi and not self.leaves
        if obs.complete or obs.rng.width == 1:
            self.leaves.append((obs.rng, obs.fetched))
            self.pos = obs.rng.hi
            self._skip_done()
            self.last_split = None
            self.model.record_ratio(obs.reported_total, obs.fetched)
            if self.predicted is not None and not is_root:
                self.model.record_error(self.predicted, obs.fetched)
            self.predicted = None
            return "leaf"
        if is_root:
            self.root_estimate = self._count_estimate(obs)  # the query's scale for the prior
        self.last_split = obs
        self.predicted = None
        return "split"

    def skip(self, rng: SizeRange) -> None:
        """Move past a candidate search did not answer (left pending for the next run): no leaf, no evidence."""
        if rng.lo != self.pos:
            raise ValueError(f"skip of {rng} but the sweep is at {self.pos}")
        self.pos = rng.hi
        self.sizes, self.sized_from = [], rng.hi  # the query's sizes are no longer known whole (see sizes_complete)
        self._skip_done()
        self.last_split = None
        self.predicted = None

    def should_abort(self, rng: SizeRange, reported_total: int | None, fetched: int, pages: int) -> bool:
        """Whether paging ``rng`` should stop because it cannot be a leaf (never for a one-byte range).

        After the probe, a total_count that means an over-limit range with better than even odds (judged by
        the undercount seen so far) stops it: one page lost instead of several.
        """
        if rng.width == 1:
            return False
        lim = self.model.abort_limit()
        if reported_total is not None and pages == 1:
            # total_count is a lower bound: past the limit it is certain; past the lossy size at the median
            # undercount it is likely, and one probe is cheaper than checking an over-full leaf by its halves
            if reported_total >= lim:
                return True
            lossy = self.model.lossy_min
            if lossy is not None and reported_total / self.model.undercount(0.5) >= lossy:
                return True
            # a whole query near the safe size: paged and then checked by halves it costs about twice its
            # pages, cut now about one page more, so it is cut once that is likely enough (see ROOT_CUT)
            safe = self.model.safe_bound()
            if lossy is not None and rng == SizeRange(self.lo, self.hi) and not self.leaves \
                    and reported_total / self.model.undercount(self.ROOT_CUT) >= safe:
                return True
        return fetched >= lim


def saturated(rng: SizeRange, fetched: int, result_cap: int = RESULT_CAP) -> bool:
    """A one-byte range at the result cap: some files are unreachable by size partitioning alone."""
    return rng.width == 1 and fetched >= result_cap
