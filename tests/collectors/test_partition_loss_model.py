"""The loss model's targets and bounds, and how a leaf is checked (aac.collectors.partition.loss_model)."""

import math

from aac.collectors.partition.loss_model import LossModel, check_parts, snap_to_pages
from aac.collectors.partition.ranges import SizeRange, priced_pages


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


def test_targets_sit_just_under_a_page_boundary():
    assert snap_to_pages(472, 0.05) <= 400
    assert snap_to_pages(472, 0.05) >= 360
    assert snap_to_pages(80, 0.1) == 80


def test_a_leaf_close_under_the_safe_size_stays_pending_until_a_smaller_loss_condemns_it():
    m = LossModel()
    m.record_check(495, 0)
    m.record_check(530, 12)  # first loss seen at 542 held: 488 passes unchecked ...
    assert not m.needs_check(488) and m.may_need_check(488)
    m.record_check(490, 11)  # ... until a loss at 501 held shows it may be lossy too
    assert m.needs_check(488)


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
