"""bench/crawl_sim.py: the query orders it offers, and a crawl in another order still finds every file."""

from __future__ import annotations

import pytest

from aac.collectors.partition import MAX_INDEXED, u_of


@pytest.fixture(scope="module")
def bench(load_bench):
    return load_bench("crawl_sim")


def test_orders(bench):
    queries = [f"q{i}" for i in range(10)]
    assert bench.ordered(queries, "registry") == queries
    assert bench.ordered(queries, "reverse") == queries[::-1]
    shuffled = bench.ordered(queries, "shuffle:3")
    assert sorted(shuffled) == queries and shuffled != queries
    assert bench.ordered(queries, "shuffle:3") == shuffled  # seeded: the same permutation every run
    assert bench.ordered(queries, "shuffle:4") != shuffled


@pytest.mark.parametrize("bad", ["random", "shuffle:", "shuffle:x", "Reverse"])
def test_bad_order_is_refused(bench, bad):
    with pytest.raises(SystemExit, match="--order"):
        bench.ordered(["a", "b"], bad)


def test_reverse_order_crawl_finds_every_file(bench):
    row = bench.run_seed(seed=5, files=800, order="reverse")
    assert row["recall"] == 1.0
    assert row["requests"] >= row["bound"] > 0


def test_exact_seeds_hold_the_asked_count_and_tile_the_axis(bench):
    sizes = [5, 5, 5, 7, 9, 9, 12, 40, 41, 41, 41, 300, 2_000, 2_000]
    ranges = bench.exact_seeds(sizes, 3)
    assert ranges[0].lo == 0 and ranges[-1].hi == MAX_INDEXED
    assert all(a.hi == b.lo for a, b in zip(ranges, ranges[1:]))  # contiguous, so the axis is covered once
    counts = [sum(r.lo <= x < r.hi for x in sizes) for r in ranges]
    assert sum(counts) == len(sizes)
    # files of one size stay together: a range ends before a tie that would not fit (the three files of 41 bytes)
    assert counts == [3, 3, 2, 3, 3]


@pytest.mark.parametrize("sizes", [[0] * 7, [4] * 7 + [9] * 2, [0, 0, 0, 0, 5, 6, 7, 8]])
def test_exact_seeds_end_when_one_size_outnumbers_a_range(bench, sizes):
    ranges = bench.exact_seeds(sizes, 3)
    assert all(a.hi == b.lo for a, b in zip(ranges, ranges[1:])) and ranges[-1].hi == MAX_INDEXED
    assert sum(sum(r.lo <= x < r.hi for x in sizes) for r in ranges) == len(sizes)


def test_seeded_crawl_finds_every_file_with_no_split(bench):
    row = bench.run_seed(seed=5, files=800, seeded=90)
    assert row["recall"] == 1.0
    assert row["parts"]["split probes"] == 0


def test_own_shape_prior_holds_the_querys_sizes(bench):
    sizes = [900] * 50 + [1_100] * 50
    prior = bench.own_shape(sizes)
    inside = prior.mass(u_of(700), u_of(1_400))
    assert inside / prior.mass(0.0, u_of(MAX_INDEXED)) > 0.8  # the floor spreads only a little elsewhere
    assert bench.own_shape([]).ready  # an empty query keeps the default shape


def test_own_shape_crawl_finds_every_file(bench):
    row = bench.run_seed(seed=5, files=800, oracle_shape=True)
    assert row["recall"] == 1.0
