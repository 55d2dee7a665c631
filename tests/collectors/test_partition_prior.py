"""The learned size distribution (aac.collectors.partition.prior)."""

import math
import random

from aac.collectors.partition.prior import SizePrior
from aac.collectors.partition.ranges import MAX_INDEXED, SizeRange


def test_prior_mass_is_additive_and_inverts():
    p = SizePrior()
    p.add_query([(SizeRange(0, 1000), 100), (SizeRange(1000, MAX_INDEXED), 300)])
    total = p.mass(0.0, math.log1p(MAX_INDEXED))
    assert abs(p.mass(0.0, 3.0) + p.mass(3.0, math.log1p(MAX_INDEXED)) - total) < 1e-6
    u = p.u_for_mass(0.0, total / 2)
    assert abs(p.mass(0.0, u) - total / 2) < 1e-6


def test_a_prior_learned_from_exact_sizes_counts_files_in_a_range_up_to_its_smoothing():
    rnd = random.Random(5)
    sizes = [int(rnd.lognormvariate(7.0, 0.8)) for _ in range(20_000)]
    p = SizePrior()
    p.add_query([], sizes)
    for lo, hi in ((300, 600), (1000, 1400), (2000, 4000)):
        exact = sum(lo <= x < hi for x in sizes)
        assert abs(p.mass(math.log1p(lo), math.log1p(hi)) - exact) <= 0.1 * exact
