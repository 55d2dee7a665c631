"""Size ranges: halves, qualifiers, cuts by exact sizes (aac.collectors.partition.ranges)."""


from hypothesis import given
from hypothesis import strategies as st

from aac.collectors.partition.ranges import MAX_INDEXED, SizeRange


@given(lo=st.integers(0, MAX_INDEXED - 2), width=st.integers(2, 100_000))
def test_halves_split_a_range_into_two_nonempty_adjacent_parts(lo, width):
    r = SizeRange(lo, min(MAX_INDEXED, lo + width))
    a, b = r.halves()
    assert (a.lo, a.hi, b.lo, b.hi) == (r.lo, a.hi, a.hi, r.hi)
    assert a.width >= 1 and b.width >= 1


def test_size_qualifier_uses_inclusive_bounds():
    assert SizeRange(10, 20).qualifier() == "size:10..19"
    assert SizeRange(7, 8).qualifier() == "size:7"


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
