import math
import random

from collector_memsearch import MemSearch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aac.collectors.crawl import CrawlEngine, NullSink
from aac.collectors.partition import (
    MAX_INDEXED,
    LossModel,
    Observation,
    SizePrior,
    SizeRange,
    SweepPlan,
    check_parts,
    priced_pages,
    snap_to_pages,
)


def drive(plan: SweepPlan, oracle, max_steps: int = 20_000) -> list[SizeRange]:
    """Run a sweep where ``oracle(rng, step)`` decides (reported_total, fetched, complete) for every candidate."""
    steps = 0
    while (rng := plan.next_range()) is not None:
        steps += 1
        assert steps < max_steps, "sweep did not terminate"
        reported, fetched, complete = oracle(rng, steps)
        plan.observe(Observation(rng, reported, fetched, complete))
    return [r for r, _ in plan.leaves]


def assert_tiles_exactly(leaves: list[SizeRange], lo: int = 0, hi: int = MAX_INDEXED) -> None:
    pos = lo
    for r in leaves:
        assert r.lo == pos, f"gap or overlap at {pos}: next leaf {r}"
        assert r.hi > r.lo
        pos = r.hi
    assert pos == hi


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), split_bias=st.floats(0.0, 0.95), lo=st.integers(0, 5000),
       width=st.integers(1, 3000), lossy=st.one_of(st.none(), st.integers(101, 999)), clean=st.integers(0, 900))
def test_final_leaves_cover_the_range_exactly_once_whatever_the_oracle_says(seed, split_bias, lo, width, lossy, clean):
    rnd = random.Random(seed)
    model = LossModel()
    if lossy is not None:
        model.record_check(lossy, 3)
    model.record_check(clean, 0)

    def oracle(rng, step):  # arbitrary, inconsistent counts and verdicts
        reported = rnd.choice([None, 0, rnd.randint(0, 5000)])
        return reported, rnd.randint(0, 1000), rnd.random() >= split_bias

    leaves = drive(SweepPlan(model, SizePrior(default=rnd.random() < 0.5), lo=lo, hi=lo + width), oracle,
                   max_steps=200_000)
    assert_tiles_exactly(leaves, lo, lo + width)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(0, 30_000), undercount=st.floats(0.05, 1.0),
       split_bias=st.floats(0.0, 0.5))
def test_final_leaves_cover_0_to_384kb_exactly_once_over_any_file_set_and_reported_totals(seed, n, undercount,
                                                                                       split_bias):
    rnd = random.Random(seed)
    sizes = sorted(int(rnd.lognormvariate(rnd.uniform(3, 11), rnd.uniform(0.2, 2.5))) for _ in range(n))
    import bisect

    def oracle(rng, step):
        count = bisect.bisect_left(sizes, rng.hi) - bisect.bisect_left(sizes, rng.lo)
        fetched = min(count, 1000)
        complete = count < 1000 and rnd.random() >= split_bias
        return int(count * rnd.uniform(undercount, 1.0)), fetched, complete

    leaves = drive(SweepPlan(LossModel(), SizePrior()), oracle, max_steps=400_000)
    assert_tiles_exactly(leaves)


@settings(max_examples=40, deadline=None)
@given(lo=st.integers(0, 1000), width=st.integers(1, 5_000), seed=st.integers(0, 1000))
def test_a_sweep_that_is_always_told_to_split_ends_in_one_byte_leaves_not_a_loop(lo, width, seed):
    plan = SweepPlan(LossModel(), SizePrior(default=bool(seed % 2)), lo=lo, hi=lo + width)
    leaves = drive(plan, lambda rng, step: (5000, 1000, False), max_steps=200_000)
    assert_tiles_exactly(leaves, lo, lo + width)
    assert all(r.width == 1 for r in leaves[1:]) or len(leaves) == 1


@given(lo=st.integers(0, MAX_INDEXED - 2), width=st.integers(2, 100_000))
def test_halves_split_a_range_into_two_nonempty_adjacent_parts(lo, width):
    r = SizeRange(lo, min(MAX_INDEXED, lo + width))
    a, b = r.halves()
    assert (a.lo, a.hi, b.lo, b.hi) == (r.lo, a.hi, a.hi, r.hi)
    assert a.width >= 1 and b.width >= 1


def test_size_qualifier_uses_inclusive_bounds():
    assert SizeRange(10, 20).qualifier() == "size:10..19"
    assert SizeRange(7, 8).qualifier() == "size:7"


def test_resume_continues_after_the_covered_prefix_only():
    done = [(SizeRange(0, 100), 300), (SizeRange(100, 250), 320), (SizeRange(400, 500), 10)]
    plan = SweepPlan(LossModel(), SizePrior(), done=done)
    assert plan.pos == 250
    assert plan.next_range().lo == 250


def test_a_skipped_range_leaves_the_querys_sizes_incomplete():
    plan = SweepPlan(LossModel(), SizePrior(), hi=1000)
    plan.add_sample([])
    plan.observe(Observation(SizeRange(0, 100), None, 5, True))
    plan.add_sizes(SizeRange(0, 100), [10, 20, 30, 40, 50])
    plan.skip(SizeRange(100, 400))  # search never answered it: its files are unknown
    plan.observe(Observation(SizeRange(400, 1000), None, 2, True))
    plan.add_sizes(SizeRange(400, 1000), [500, 600])
    assert plan.finished and not plan.sizes_complete()


def test_resume_fills_a_gap_and_jumps_over_the_finished_leaves_after_it():
    """A range left pending (search answered it only with empty incomplete pages) is asked again; the finished
    leaves past it are not."""
    done = [(SizeRange(0, 100), 300), (SizeRange(100, 250), 320), (SizeRange(400, 500), 10), (SizeRange(500, 900), 40)]
    plan = SweepPlan(LossModel(), SizePrior(), done=done, hi=2000)
    asked = []
    while plan.pos < 400:  # the gap, in as many leaves as the model cuts it into
        rng = plan.next_range()
        asked.append(rng)
        plan.observe(Observation(rng, None, 5, True))
    assert asked[0].lo == 250 and asked[-1].hi == 400 and all(r.hi <= 400 for r in asked)
    assert plan.pos == 900 and plan.next_range().lo == 900


def test_loss_model_shrinks_the_target_when_halves_find_more_and_keeps_a_margin_under_the_lossy_size():
    m = LossModel()
    start = m.target()
    m.record_check(860, 17)  # a wide leaf missed files its halves returned
    assert m.target() < start
    m.record_check(430, 0)
    m.record_check(500, 12)
    m.record_check(495, 0)
    # the loss is on the files a range holds (500 shown + 12 found by the halves); a range that size shows
    # about 500, fewer or more by the binomial spread of the number lost, so the bound sits clearly below 500
    assert m.lossy_min == 512
    assert m.safe_bound() < 500 - 2 * (512 * 12 / 512) ** 0.5
    assert m.needs_check(int(m.safe_bound()) + 1) and not m.needs_check(int(m.safe_bound()))
    assert m.target() < m.safe_bound()


def test_before_any_loss_leaves_a_little_above_the_clean_size_pass_on_optimism():
    m = LossModel()
    m.record_check(400, 0)
    assert not m.needs_check(450) and m.optimistic(450)
    assert m.needs_check(int(400 * m.OPTIMISM) + 1)


def test_paging_stops_well_past_the_aimed_size_before_any_loss_is_seen():
    m = LossModel()
    m.record_check(300, 0)  # explored up to 300: the crawl aims a little above it
    assert m.lossy_min is None and m.abort_limit() < m.result_cap
    assert m.abort_limit() == int(m.ceiling() * m.ABORT_PAST_CEILING)
    plan = SweepPlan(m, SizePrior())
    rng = SizeRange(0, 5000)
    assert not plan.should_abort(rng, None, m.abort_limit() - 1, 5)
    assert plan.should_abort(rng, None, m.abort_limit(), 6)
    assert not plan.should_abort(SizeRange(7, 8), None, m.result_cap, 10)  # a one-byte range is never dropped


def test_targets_sit_just_under_a_page_boundary():
    assert snap_to_pages(472, 0.05) <= 400
    assert snap_to_pages(472, 0.05) >= 360
    assert snap_to_pages(80, 0.1) == 80


def test_prior_mass_is_additive_and_inverts():
    p = SizePrior()
    p.add_query([(SizeRange(0, 1000), 100), (SizeRange(1000, MAX_INDEXED), 300)])
    total = p.mass(0.0, math.log1p(MAX_INDEXED))
    assert abs(p.mass(0.0, 3.0) + p.mass(3.0, math.log1p(MAX_INDEXED)) - total) < 1e-6
    u = p.u_for_mass(0.0, total / 2)
    assert abs(p.mass(0.0, u) - total / 2) < 1e-6


def _files(n: int, seed: int, queries=("q",)):
    rnd = random.Random(seed)
    out = []
    for k in range(n):
        size = int(rnd.lognormvariate(math.log(1200), 1.1))
        if rnd.random() < 0.1:  # template copies: many files of exactly the same size
            size = rnd.choice([512, 900, 1337, 2048])
        out.append((rnd.choice(queries), f"o{k % 997}/r{k}", f"CLAUDE{k}.md", size))
    return out


def test_engine_recovers_every_file_a_lossy_undercounting_search_hides_within_the_request_budget():
    files = _files(8000, seed=1, queries=("q1", "q2"))
    search = MemSearch(files, incomplete_every=37)
    engine = CrawlEngine(search)
    sink = NullSink()
    for q in ("q1", "q2"):
        engine.crawl_query(q, sink)
    want = {(r, p) for _, r, p, s in files if s < MAX_INDEXED}
    assert want <= set(sink.hits)
    assert engine.model.lossy_min is not None  # it learned that wide ranges lose files
    assert search.calls <= 1.8 * math.ceil(len(want) / 100)  # 8k files: learning the loss size is most of the overhead


def test_a_query_smaller_than_one_page_costs_one_request():
    search = MemSearch([("small", f"o/r{k}", "AGENTS.md", 100 + k) for k in range(40)])
    engine = CrawlEngine(search)
    sink = NullSink()
    engine.crawl_query("small", sink)
    assert len(sink.hits) == 40 and search.calls == 1


def test_a_single_size_with_more_files_than_the_cap_is_marked_saturated_not_looped():
    files = [("q", f"o/r{k}", "CLAUDE.md", 777) for k in range(1500)]
    engine = CrawlEngine(MemSearch(files, lossy_threshold=10**9))
    sink = NullSink()
    engine.crawl_query("q", sink)
    assert engine.stats.saturated == 1
    assert len(sink.hits) >= 1000  # the cap per query; other queries over the same size may list others


def test_engine_with_exact_sizes_recovers_every_file_and_tiles_each_query():
    files = _files(8000, seed=2, queries=("q1", "q2"))
    size_of = {(r, p): s for _, r, p, s in files}
    search = MemSearch(files, incomplete_every=37)
    asked: list[int] = []

    def file_sizes(hits):
        asked.append(len(hits))
        return {k: size_of[k] for k in hits}

    engine = CrawlEngine(search, file_sizes=file_sizes)
    sink = NullSink()
    plans = [engine.crawl_query(q, sink) for q in ("q1", "q2")]
    want = {(r, p) for _, r, p, s in files if s < MAX_INDEXED}
    assert want <= set(sink.hits) and asked
    for plan in plans:
        assert_tiles_exactly([r for r, _ in plan.leaves])
    assert engine.prior.learned
    assert search.calls <= 1.8 * math.ceil(len(want) / 100)


@given(sizes=st.lists(st.integers(0, 5000), min_size=1, max_size=400), lo=st.integers(0, 100),
       width=st.integers(2, 6000), slack=st.floats(0.0, 0.1))
def test_halves_by_sizes_are_adjacent_nonempty_and_never_cost_more_pages_than_the_even_cut(sizes, lo, width, slack):
    r = SizeRange(lo, lo + width)
    cut = r.halves_by_sizes(sizes, slack)
    inside = sorted(x for x in sizes if r.lo <= x < r.hi)
    if not inside:
        assert cut is None
        return
    a, b = cut
    assert (a.lo, a.hi, b.lo, b.hi) == (r.lo, a.hi, a.hi, r.hi) and a.width >= 1 and b.width >= 1

    def cost(mid):
        k = sum(x < mid for x in inside)
        return sum(int(c * (1 + slack)) // 100 + 1 for c in (k, len(inside) - k))

    even = min(max(inside[len(inside) // 2], r.lo + 1), r.hi - 1)
    assert cost(a.hi) <= cost(even)


def test_a_check_of_600_files_is_not_cut_into_two_full_pages_of_300():
    sizes = list(range(1000, 1600))  # one file per byte
    a, b = SizeRange(1000, 1600).halves_by_sizes(sizes)
    parts = [sum(r.lo <= x < r.hi for x in sizes) for r in (a, b)]
    # 300 + 300 costs 4 + 4 pages (a full last page needs one more to see the end); 299 + 301 costs 3 + 4
    assert sum(k // 100 + 1 for k in parts) == 7 and sorted(parts) == [299, 301]


def test_a_prior_learned_from_exact_sizes_counts_files_in_a_range_up_to_its_smoothing():
    rnd = random.Random(5)
    sizes = [int(rnd.lognormvariate(7.0, 0.8)) for _ in range(20_000)]
    p = SizePrior()
    p.add_query([], sizes)
    for lo, hi in ((300, 600), (1000, 1400), (2000, 4000)):
        exact = sum(lo <= x < hi for x in sizes)
        assert abs(p.mass(math.log1p(lo), math.log1p(hi)) - exact) <= 0.1 * exact


def test_the_local_scale_comes_from_the_querys_own_sizes_below_the_sweep():
    p = SizePrior(default=False)
    p.add_query([], list(range(100, 2100)))  # one file per byte from 100 to 2099
    plan = SweepPlan(LossModel(), p)
    plan.observe(Observation(SizeRange(0, 600), None, 1500, True))
    plan.add_sizes(SizeRange(0, 600), [100 + k // 3 for k in range(1500)])  # three files per byte: scale 3
    assert abs(plan._own_scale(p) - 3.0) < 0.3
    plan.add_sizes(SizeRange(0, 600), None)  # sizes unknown: the sized stretch restarts after the leaf
    assert plan.sizes == [] and plan.sized_from == 600 and plan._own_scale(p) is None


def test_a_leaf_close_under_the_safe_size_stays_pending_until_a_smaller_loss_condemns_it():
    m = LossModel()
    m.record_check(495, 0)
    m.record_check(530, 12)  # first loss seen at 542 held: 488 passes unchecked ...
    assert not m.needs_check(488) and m.may_need_check(488)
    m.record_check(490, 11)  # ... until a loss at 501 held shows it may be lossy too
    assert m.needs_check(488)


@given(sizes=st.lists(st.integers(0, 3000), min_size=1, max_size=300), lo=st.integers(0, 100),
       width=st.integers(2, 4000), max_files=st.integers(1, 300))
def test_part_by_sizes_is_the_largest_prefix_or_suffix_within_the_limit(sizes, lo, width, max_files):
    r = SizeRange(lo, lo + width)
    got = r.part_by_sizes(sizes, max_files)
    inside = [x for x in sizes if r.lo <= x < r.hi]
    if not inside:
        assert got is None
        return
    part, rest, k = got
    assert {(part.lo, part.hi), (rest.lo, rest.hi)} in ({(r.lo, part.hi), (part.hi, r.hi)},
                                                         {(r.lo, rest.hi), (rest.hi, r.hi)})
    assert k == sum(part.lo <= x < part.hi for x in inside) <= max_files
    best = max([c for c in (sum(x < m for x in inside) for m in range(r.lo + 1, r.hi)) if c <= max_files]
               + [c for c in (sum(x >= m for x in inside) for m in range(r.lo + 1, r.hi)) if c <= max_files],
               default=0)
    assert k == best


def test_the_measured_loss_rate_pools_every_lossy_check():
    m = LossModel()
    assert m.measured_loss_rate() is None
    m.record_check(600, 12)
    m.record_check(480, 0)
    m.record_check(500, 5)
    assert m.measured_loss_rate() == (12 + 5) / (612 + 505)


def test_a_check_is_partial_when_its_part_bounds_any_loss_rate_or_sees_the_measured_one():
    m = LossModel()
    (first, rest), partial = check_parts(SizeRange(1000, 1600), list(range(1000, 1600)), m)
    k = sum(first.lo <= x < first.hi for x in range(1000, 1600))
    assert partial and k * math.e * 0.001 >= 1  # no rate known: a missed loss costs < 0.1% whatever the rate
    sizes = list(range(1000, 1450))  # 450 files, one per byte
    leaf = SizeRange(1000, 1450)
    (a, b), partial = check_parts(leaf, sizes, m)
    assert not partial and a.hi == b.lo  # its affordable part is too small for that bound
    m.record_check(600, 12)  # 2% of 612 lost
    (first, rest), partial = check_parts(leaf, sizes, m)
    low, high = sorted((first, rest))
    assert partial and (low.lo, low.hi, high.hi) == (1000, high.lo, 1450)  # the two parts tile the leaf
    k = sum(first.lo <= x < first.hi for x in sizes)
    whole = sum(priced_pages(sum(h.lo <= x < h.hi for x in sizes), m.loss_rate()) for h in (a, b))
    assert priced_pages(k, m.loss_rate()) <= whole - 2  # settled by the first part, it saves two pages
    assert (1 - m.measured_loss_rate()) ** k <= 0.02  # and a lossy leaf shows its misses there 98% of the time


def test_a_leaf_as_large_as_a_lossy_one_or_with_too_rare_losses_is_checked_whole():
    sizes = list(range(1000, 1600))
    m = LossModel()
    m.record_check(600, 12)
    assert not check_parts(SizeRange(1000, 1600), sizes, m)[1]  # 600 files: lossy like the one seen
    rare = LossModel()
    rare.record_check(600, 1)  # a loss rate of 1 in 601 needs more files than a partial check can afford
    assert not check_parts(SizeRange(1000, 1450), sizes, rare)[1]


def _one_query(n: int) -> tuple[MemSearch, dict]:
    files = [("q", f"o/r{k}", "CLAUDE.md", 1000 + k) for k in range(n)]
    return MemSearch(files, lossy_threshold=500), {(r, p): s for _, r, p, s in files}


def test_a_partial_check_settles_a_clean_leaf_in_its_first_part():
    search, size_of = _one_query(450)
    engine = CrawlEngine(search, file_sizes=lambda hits: {k: size_of[k] for k in hits})
    engine.model.record_check(600, 12)
    leaf = SizeRange(1000, 1450)
    hits = engine.fetch_range("q", leaf).hits
    before, records = search.calls, []
    assert engine._verify("q", leaf, hits, records) == 0
    assert search.calls - before == 3 and len(records) == 1  # 3 pages instead of the whole check's 5
    assert engine.model.clean_max == 450 and engine.stats.partial_checks == 1


def test_a_partial_check_of_a_lossy_leaf_fetches_the_rest_and_recovers_every_file():
    search, size_of = _one_query(520)
    engine = CrawlEngine(search, file_sizes=lambda hits: {k: size_of[k] for k in hits})
    engine.model.record_check(480, 0)
    engine.model.record_check(600, 12)
    leaf = SizeRange(1000, 1520)
    hits = dict(engine.fetch_range("q", leaf).hits)
    shown = len(hits)
    assert shown < 520  # the wide range lost files
    records = []
    lost = engine._verify("q", leaf, hits, records)
    assert len(hits) == 520 and lost == 520 - shown and len(records) == 2
    assert engine.model.lossy_min == 520 and engine.stats.partial_checks == 0


def test_check_requests_count_every_request_of_nested_checks_once():
    files = _files(8000, seed=1, queries=("q1", "q2"))
    search = MemSearch(files)
    engine = CrawlEngine(search)
    depth, deepest, outer = 0, 0, 0
    verify = engine._verify

    def counting(*args, **kwargs):
        nonlocal depth, deepest, outer
        depth += 1
        deepest = max(deepest, depth)
        before = search.calls
        try:
            return verify(*args, **kwargs)
        finally:
            depth -= 1
            if depth == 0:
                outer += search.calls - before

    engine._verify = counting
    for q in ("q1", "q2"):
        engine.crawl_query(q, NullSink())
    assert deepest >= 2  # a check's part was itself checked
    assert engine.stats.check_requests == outer


def test_a_page_search_keeps_calling_incomplete_marks_its_leaf_so():
    from aac.collectors.crawl import Hit, Page

    def always_incomplete(q, page):  # 40 files exist; search returns 30 of them and says the answer is incomplete
        return Page([Hit(f"o/r{k}", "AGENTS.md", f"sha{k}") for k in range(30)], 40, True)

    engine = CrawlEngine(always_incomplete)
    sink = NullSink()
    engine.crawl_query("q", sink)
    leaves = [r for r in sink.records if r.role == "leaf"]
    assert leaves and all(r.incomplete for r in leaves) and engine.stats.incomplete == len(leaves)


def test_a_short_page_search_keeps_calling_incomplete_does_not_end_paging_and_tries_wait_on_the_clock():
    from aac.collectors.crawl import Hit, Page

    files = [Hit("o/r", f"d{i}/CLAUDE.md") for i in range(450)]
    asked: list[int] = []
    waits: list[float] = []

    def search(q, page):  # page 2 times out the same way every time: 3 of its files missing, flagged incomplete
        asked.append(page)
        items = files[(page - 1) * 100: page * 100]
        return Page(items[:97], 450, True) if page == 2 else Page(items, 450, False)

    engine = CrawlEngine(search, verify=False, pause=waits.append)
    sink = NullSink()
    engine.crawl_query("q", sink)
    assert asked == [1, 2, 2, 2, 3, 4, 5]  # the pages after the short incomplete one are still asked
    assert len(sink.hits) == 447
    assert waits == [5.0, 10.0]  # a growing pause before each new try, through the injected clock
    assert [r.incomplete for r in sink.records if r.role == "leaf"] == [True]
