"""One JSON Lines reader: blank lines skipped, numbers kept, a bad line named."""

import pytest

from aac.core.jsonl import numbered_objects, read_objects


def test_objects_with_their_line_numbers(tmp_path):
    path = tmp_path / "x.jsonl"
    path.write_text('{"a": 1}\n\n  \n{"b": 2}\n', encoding="utf-8")
    assert numbered_objects(path) == [(1, {"a": 1}), (4, {"b": 2})]
    assert read_objects(path) == [{"a": 1}, {"b": 2}]


@pytest.mark.parametrize("bad, message", [("{oops\n", "x.jsonl:2: not JSON"), ("[1, 2]\n", "x.jsonl:2: expected a JSON object")])
def test_a_bad_line_is_named(tmp_path, bad, message):
    path = tmp_path / "x.jsonl"
    path.write_text('{"a": 1}\n' + bad, encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        read_objects(path)
