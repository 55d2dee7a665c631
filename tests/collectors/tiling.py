"""The property every sweep keeps: its final leaves tile the size axis exactly once."""

from aac.collectors.partition.ranges import MAX_INDEXED, SizeRange


def assert_tiles_exactly(leaves: list[SizeRange], lo: int = 0, hi: int = MAX_INDEXED) -> None:
    pos = lo
    for r in leaves:
        assert r.lo == pos, f"gap or overlap at {pos}: next leaf {r}"
        assert r.hi > r.lo
        pos = r.hi
    assert pos == hi
