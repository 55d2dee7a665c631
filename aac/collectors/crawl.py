"""The crawl engine: drives the size partitioner over one search function, page by page.

It knows nothing about HTTP or storage: ``search(query, page)`` returns a :class:`Page` (the GitHub client
provides one over PyGithub, tests provide an in-memory index) and a :class:`Sink` receives each completed leaf
and each split candidate, so the same engine runs the real crawl, the benchmark and the property tests.

What it adds on top of :mod:`aac.collectors.partition`:
- ``incomplete_results``: the page is fetched again (up to 3 times, after a growing pause: search timed out)
  and the attempts are merged; a page still incomplete and short does not end paging while ``total_count``
  says more follow, and a range answered only by empty incomplete pages is left ``pending`` (asked again by
  the next run), never stored as a finished leaf of 0 files.
- unstable order: when a later page repeats files seen on earlier pages of the same pass, the order changed
  mid-pagination and files may have slipped past; the earlier pages are fetched again and merged.
- verification of leaves by their halves (often by the larger one alone), feeding the loss model (see
  ``partition``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol
from urllib.parse import parse_qs, urlparse

from aac.collectors.partition import (
    MAX_INDEXED,
    PER_PAGE,
    RESULT_CAP,
    LossModel,
    Observation,
    SizePrior,
    SizeRange,
    SweepPlan,
    check_parts,
    saturated,
)
from aac.core.ids import stable_id


@dataclass(frozen=True)
class Hit:
    """One code-search result, reduced to what the collector needs."""

    repo: str
    path: str
    blob_sha: str | None = None
    ref: str | None = None  # commit the result's url is pinned to (``?ref=``)
    html_url: str | None = None
    private: bool = False  # a private repository (a token with the `repo` scope sees them): never stored

    @property
    def key(self) -> tuple[str, str]:
        return (self.repo, self.path)

    @classmethod
    def from_item(cls, item: dict) -> "Hit":
        url = item.get("url") or ""
        ref = (parse_qs(urlparse(url).query).get("ref") or [None])[0]
        repository = item.get("repository") or {}
        return cls(repo=repository.get("full_name") or "", path=item.get("path") or "", blob_sha=item.get("sha"),
                   ref=ref, html_url=item.get("html_url"), private=repository.get("private") is True)


@dataclass
class Page:
    hits: list[Hit]
    total_count: int | None
    incomplete: bool = False


SearchFn = Callable[[str, int], Page]

INCOMPLETE_TRIES = 3  # asks of one page that search keeps calling incomplete
INCOMPLETE_PAUSE = 5.0  # seconds before the second ask, doubled before each later one


def query_id(query: str, rng: SizeRange, role: str = "range") -> str:
    return stable_id(query, str(rng.lo), str(rng.hi), role)


@dataclass
class RangeResult:
    rng: SizeRange
    hits: dict[tuple[str, str], Hit]
    reported_total: int | None
    pages: int
    complete: bool
    requests: int = 0
    incomplete: bool = False  # a page stayed ``incomplete_results`` after its retries: the range may miss files


@dataclass
class LeafRecord:
    """A crawled range as it goes to ``crawl_queries``: role is leaf | split | check | unanswered (search
    answered only empty incomplete pages: the range stays ``pending``)."""

    query: str
    rng: SizeRange
    role: str
    reported_total: int | None
    pages: int
    fetched: int
    lost: int | None = None  # for verified leaves/halves: files their halves found that they missed
    saturated: bool = False
    incomplete: bool = False  # search said a page was incomplete even after its retries

    @property
    def query_id(self) -> str:
        return query_id(self.query, self.rng, "check" if self.role == "check" else "range")

    @property
    def state(self) -> str:
        return {"leaf": "done", "split": "split", "check": "checked", "unanswered": "pending"}[self.role]


class Sink(Protocol):
    def leaf_done(self, query: str, records: list[LeafRecord], hits: dict[tuple[str, str], Hit]) -> None: ...

    def split(self, query: str, record: LeafRecord, hits: dict[tuple[str, str], Hit]) -> None: ...


class NullSink:
    """Collects everything in memory (benchmarks and tests)."""

    def __init__(self) -> None:
        self.hits: dict[tuple[str, str], Hit] = {}
        self.records: list[LeafRecord] = []

    def leaf_done(self, query, records, hits):
        self.records.extend(records)
        self.hits.update(hits)

    def split(self, query, record, hits):
        self.records.append(record)
        self.hits.update(hits)


@dataclass
class EngineStats:
    requests: int = 0
    probes_wasted: int = 0  # pages of candidates that were split
    check_requests: int = 0
    partial_checks: int = 0  # checks settled by their first part alone
    refetches: int = 0  # incomplete_results and order-change re-fetches
    leaves: int = 0
    splits: int = 0
    saturated: int = 0
    incomplete: int = 0  # leaves with a page still incomplete after its retries (their platform is not swept whole)
    unanswered: int = 0  # ranges answered only by empty incomplete pages (left pending for the next run)
    per_query: dict[str, int] = field(default_factory=dict)


class CrawlEngine:
    def __init__(self, search: SearchFn, model: LossModel | None = None, prior: SizePrior | None = None,
                 per_page: int = PER_PAGE, result_cap: int = RESULT_CAP, verify: bool = True,
                 on_request: Callable[[], None] | None = None, reserve: Callable[[int], None] | None = None,
                 file_sizes: Callable[[dict[tuple[str, str], Hit]], dict[tuple[str, str], int]] | None = None,
                 pause: Callable[[float], None] | None = None):
        self.search = search
        self.model = model or LossModel(result_cap=result_cap, per_page=per_page)
        self.prior = prior if prior is not None else SizePrior()
        self.per_page = per_page
        self.result_cap = result_cap
        self.verify = verify
        self.stats = EngineStats()
        self.on_request = on_request
        self.reserve = reserve
        self.file_sizes = file_sizes
        self.pause = pause  # waits between tries of an incomplete page (the client's clock); None: no wait
        self._unverified: list[tuple[str, RangeResult, Sink]] = []

    # ---- pages -------------------------------------------------------------------------------------
    def _page(self, q: str, page: int) -> Page:
        """One page; an incomplete page is fetched again after a pause (search timed out: asking at once
        mostly times out again) and the attempts merged."""
        merged: dict[tuple[str, str], Hit] = {}
        res = None
        for attempt in range(INCOMPLETE_TRIES):
            self.stats.requests += 1
            if attempt:
                self.stats.refetches += 1
                if self.pause is not None:
                    self.pause(INCOMPLETE_PAUSE * 2 ** (attempt - 1))
            if self.on_request:
                self.on_request()
            res = self.search(q, page)
            for h in res.hits:
                merged.setdefault(h.key, h)
            if not res.incomplete:
                break
        assert res is not None
        if res.incomplete or len(merged) > len(res.hits):
            return Page(list(merged.values()), res.total_count, res.incomplete)
        return res

    def fetch_range(self, query: str, rng: SizeRange, plan: SweepPlan | None = None, expect: int = 0) -> RangeResult:
        """All pages of ``query`` restricted to ``rng``; stops early when ``plan`` says it cannot be a leaf.

        ``expect`` (files) lets the client wait first for a rate-limit window that fits all the pages.
        """
        if self.reserve is not None:
            self.reserve(min(self.result_cap, expect) // self.per_page + 1)
        q = f"{query} {rng.qualifier()}".strip()
        hits: dict[tuple[str, str], Hit] = {}
        reported: int | None = None
        start = self.stats.requests
        page = 1
        complete = False
        first_dup_page = 0
        seen_this_pass: set[tuple[str, str]] = set()
        max_pages = self.result_cap // self.per_page
        incomplete = False
        while True:
            res = self._page(q, page)
            incomplete = incomplete or res.incomplete
            if page == 1:
                reported = res.total_count
            keys = [h.key for h in res.hits]
            if page > 1 and not first_dup_page and any(k in seen_this_pass for k in keys):
                first_dup_page = page
            seen_this_pass.update(keys)
            for h in res.hits:
                hits.setdefault(h.key, h)
            if len(res.hits) < self.per_page and not self._more_after(res, page):
                complete = True
                break
            if page >= max_pages:
                break
            if plan is not None and plan.should_abort(rng, reported, len(hits), page):
                break
            page += 1
        pages = page
        if first_dup_page and complete:
            # the order changed while paging: files that moved onto pages already read were skipped
            for again in range(1, first_dup_page):
                self.stats.refetches += 1
                for h in self._page(q, again).hits:
                    hits.setdefault(h.key, h)
        return RangeResult(rng, hits, reported, pages, complete, self.stats.requests - start, incomplete)

    def _more_after(self, res: Page, page: int) -> bool:
        """A short page is the last one unless search said it was incomplete and its total lists more."""
        return res.incomplete and res.total_count is not None and page * self.per_page < min(
            res.total_count, self.result_cap)

    def _sizes(self, hits: dict[tuple[str, str], Hit]) -> list[int] | None:
        """Exact sizes of ``hits`` from ``file_sizes`` (None without it)."""
        if self.file_sizes is None:
            return None
        return list(self.file_sizes(hits).values())

    # ---- verification --------------------------------------------------------------------------------
    def _verify(self, query: str, rng: SizeRange, hits: dict, records: list[LeafRecord]) -> int:
        """Fetch the leaf again in two parts; record in the model whether they found more. Returns files the leaf
        missed. A partial check (``partition.check_parts``) stops after its first part when that part found
        nothing the leaf missed."""
        plan = check_parts(rng, self._sizes(hits), self.model, self.prior, self.per_page)
        if plan is None:
            return 0
        parts, partial = plan
        before, counted = self.stats.requests, self.stats.check_requests
        found = dict(hits)
        subs = []
        for i, h in enumerate(parts):
            if partial and i == 1 and len(found) == len(hits):
                self.stats.partial_checks += 1
                break
            r = self.fetch_range(query, h, expect=len(hits) // 2 + self.per_page // 2)
            subs.append(r)
            for k, v in r.hits.items():
                found.setdefault(k, v)
        lost = len(found) - len(hits)
        self.model.record_check(len(hits), lost)
        hits.update(found)
        for r in subs:
            sub_lost = None
            if r.complete and self.model.needs_check(len(r.hits)):
                sub_hits = dict(r.hits)
                sub_lost = self._verify(query, r.rng, sub_hits, records)
                hits.update(sub_hits)
            records.append(LeafRecord(query, r.rng, "check", r.reported_total, r.pages, len(r.hits), sub_lost))
        self.stats.check_requests = counted + self.stats.requests - before  # nested checks' requests counted once
        return lost

    # ---- one query ---------------------------------------------------------------------------------
    def _step(self, query: str, plan: SweepPlan, sink: Sink) -> bool:
        """Crawl the plan's next candidate; False when the query is finished."""
        rng = plan.next_range()
        if rng is None:
            return False
        before = self.stats.requests
        res = self.fetch_range(query, rng, plan, expect=self.model.target())
        unanswered = res.incomplete and not res.hits and (res.complete or rng.width == 1)
        if unanswered:  # not an empty range: the sweep moves past it, but the size models learn nothing from it
            plan.skip(rng)
            outcome = "unanswered"
        else:
            outcome = plan.observe(Observation(rng, res.reported_total, len(res.hits), res.complete))
        if outcome == "split":
            if rng == SizeRange(plan.lo, plan.hi) and not plan.leaves:
                plan.add_sample(self._sizes(res.hits))
            self.stats.splits += 1
            self.stats.probes_wasted += res.requests
            sink.split(query, LeafRecord(query, rng, "split", res.reported_total, res.pages, len(res.hits)), res.hits)
        elif unanswered:
            # an empty answer search called incomplete is a timeout, not an empty range: asked again next run
            self.stats.unanswered += 1
            self.stats.incomplete += 1
            sink.leaf_done(query, [LeafRecord(query, rng, "unanswered", res.reported_total, res.pages, 0,
                                              incomplete=True)], {})
        else:
            hits = dict(res.hits)
            records: list[LeafRecord] = []
            lost = None
            lossy_before = self.model.lossy_min
            if self.verify and res.complete and self.model.needs_check(len(hits)):
                lost = self._verify(query, rng, hits, records)
            elif self.verify and res.complete and self.model.may_need_check(len(hits)):
                self._unverified.append((query, res, sink))
            sat = saturated(rng, len(res.hits), self.result_cap) or (not res.complete and rng.width == 1)
            self.stats.saturated += sat
            self.stats.incomplete += res.incomplete
            self.stats.leaves += 1
            records.append(LeafRecord(query, rng, "leaf", res.reported_total, res.pages, len(res.hits), lost, sat,
                                      res.incomplete))
            sizes = self._sizes(hits)  # before the sink, which can take the contents from the same download
            sink.leaf_done(query, records, hits)
            plan.add_sizes(rng, sizes)
            if self.model.lossy_min != lossy_before:
                self._recheck()
        self.stats.per_query[query] = self.stats.per_query.get(query, 0) + self.stats.requests - before
        return True

    def _recheck(self, settle: bool = False) -> None:
        """Check the leaves accepted unchecked that now need it: after a loss was found (or a smaller one), those
        above the new safe size; with ``settle`` (a query ends) also those that passed only on optimism, largest
        first, as one clean check vouches for every smaller one — a crawl must not end, or be killed, with leaves
        no check backs. The others stay pending, as a later loss at a smaller size can still condemn them."""
        pending, self._unverified = sorted(self._unverified, key=lambda e: -len(e[1].hits)), []
        for query, res, sink in pending:
            n = len(res.hits)
            if not (self.model.needs_check(n) or (settle and self.model.optimistic(n))):
                if self.model.may_need_check(n):
                    self._unverified.append((query, res, sink))
                continue
            hits = dict(res.hits)
            records: list[LeafRecord] = []
            lost = self._verify(query, res.rng, hits, records)
            records.append(LeafRecord(query, res.rng, "leaf", res.reported_total, res.pages, len(res.hits), lost))
            sink.leaf_done(query, records, hits)  # same leaf again: its part is rewritten with the union

    def _finish(self, plan: SweepPlan) -> None:
        if self.verify:
            self._recheck(settle=True)
        if plan.leaves and sum(n for _, n in plan.leaves) >= self.per_page:
            self.prior.add_query(plan.leaves, plan.sizes if plan.sizes_complete() else None)

    def crawl_query(self, query: str, sink: Sink, done: list[tuple[SizeRange, int]] | None = None,
                    lo: int = 0, hi: int = MAX_INDEXED, root_total: int | None = None,
                    seeds: list[SizeRange] | None = None) -> SweepPlan:
        """Sweep one query's size axis to the end, resuming after the completed leaves in ``done``; ``seeds``
        (the previous crawl's leaves) are asked first as they are (see ``partition``)."""
        plan = SweepPlan(self.model, self.prior, lo=lo, hi=hi, done=done, root_total=root_total, seeds=seeds)
        while self._step(query, plan, sink):
            pass
        self._finish(plan)
        return plan
