"""bench/crawl_sim.py: the query orders it offers, and a crawl in another order still finds every file."""

from __future__ import annotations

import pytest


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
