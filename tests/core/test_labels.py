"""Type labels are read by letter or full name, never by a first letter alone."""

from __future__ import annotations

import json

import pytest

from aac.core.labels import parse_type


@pytest.mark.parametrize("value, expected", [("C", "C"), ("f", "F"), (" Preference ", "F"), ("EPISODIC", "E"),
                                             ("belief", "B"), ("procedural", "P")])
def test_letters_and_full_names(value, expected):
    assert parse_type(value) == expected


@pytest.mark.parametrize("value", ["banana", "Pref", "Prefer", "", None, "CP", 3])
def test_anything_else_is_not_a_type(value):
    assert parse_type(value) is None


def test_gold_reader_refuses_a_wrong_label_and_a_missing_text(tmp_path):
    from aac.classifiers.datasets import load_gold

    good = tmp_path / "good.jsonl"
    good.write_text(json.dumps({"id": "1", "repo": "r", "text": "Never push.", "label": "Constraint"}) + "\n")
    assert [d.label for d in load_gold(good)] == ["C"]
    for row, message in (({"id": "2", "repo": "r", "text": "x", "label": "banana"}, "label 'banana'"),
                         ({"id": "3", "repo": "r", "label": "C"}, "string 'text'")):
        bad = tmp_path / "bad.jsonl"
        bad.write_text(json.dumps(row) + "\n")
        with pytest.raises(ValueError, match=message):
            load_gold(bad)


def test_operator_items_read_full_names():
    from aac.operators.model import item_from_row

    assert item_from_row({"text": "x", "type": "Preference"}).type == "F"
