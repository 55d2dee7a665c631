"""One query's sweep: exact tiling whatever search says, resume, abort, local scale (aac.collectors.partition.sweep)."""

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tiling import assert_tiles_exactly

from aac.collectors.partition.loss_model import LossModel
from aac.collectors.partition.prior import SizePrior
from aac.collectors.partition.ranges import SizeRange
from aac.collectors.partition.sweep import Observation, SweepPlan


def drive(plan: SweepPlan, oracle, max_steps: int = 20_000) -> list[SizeRange]:
    """Run a sweep where ``oracle(rng, step)`` decides (reported_total, fetched, complete) for every candidate."""
    steps = 0
    while (rng := plan.next_range()) is not None:
        steps += 1
        assert steps < max_steps, "sweep did not terminate"
        reported, fetched, complete = oracle(rng, steps)
        plan.observe(Observation(rng, reported, fetched, complete))
    return [r for r, _ in plan.leaves]


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


def test_the_local_scale_comes_from_the_querys_own_sizes_below_the_sweep():
    p = SizePrior(default=False)
    p.add_query([], list(range(100, 2100)))  # one file per byte from 100 to 2099
    plan = SweepPlan(LossModel(), p)
    plan.observe(Observation(SizeRange(0, 600), None, 1500, True))
    plan.add_sizes(SizeRange(0, 600), [100 + k // 3 for k in range(1500)])  # three files per byte: scale 3
    assert abs(plan._own_scale(p) - 3.0) < 0.3
    plan.add_sizes(SizeRange(0, 600), None)  # sizes unknown: the sized stretch restarts after the leaf
    assert plan.sizes == [] and plan.sized_from == 600 and plan._own_scale(p) is None
