"""What the crawl has learned about where search starts losing files, and how a finished leaf is checked.

A range matching many files silently omits some, which its two halves return; the model turns the checks made so
far into the leaf size to aim at (:class:`LossModel`), and :func:`check_parts` decides which parts a check asks.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from aac.collectors.partition.ranges import PER_PAGE, RESULT_CAP, TRUSTED_SMALL, SizeRange, priced_pages

if TYPE_CHECKING:
    from aac.collectors.partition.prior import SizePrior


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
