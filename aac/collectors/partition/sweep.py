"""The left-to-right sweep over one query's size axis: which range to ask next, and what each answer teaches.

It combines the loss model's target leaf size with the size prior and the query's own evidence (its leaves, the
exact sizes of its files, a sample from its root probe); the crawl engine drives it.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right, insort
from dataclasses import dataclass

from aac.collectors.partition.loss_model import LossModel
from aac.collectors.partition.prior import SizePrior
from aac.collectors.partition.ranges import MAX_INDEXED, PER_PAGE, SizeRange, size_of, u_of


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
