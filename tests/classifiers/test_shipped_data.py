"""The shipped recipe's data: what it reads from ../shared/data, and what it names as skipped when that is absent."""

from __future__ import annotations

import json

import pytest

from aac.classifiers.datasets import load_annotated, packaged_round1
from aac.classifiers.union_report import shipped_data
from tests.conftest import SHARED_DATA


def test_without_shared_data_it_trains_on_the_package_and_names_every_skipped_file(tmp_path, monkeypatch):
    monkeypatch.setenv("AAC_SHARED_DATA", str(tmp_path))
    skipped: list[str] = []
    data = shipped_data(with_annotated=True, skipped=skipped, with_round1=True)
    assert {d.source for d in data} == {"own", "phrasing"}  # written examples + the multilingual phrasing set
    text = " ".join(skipped)
    for name in ("gold_dev.jsonl", "gold_train.jsonl", "phrasing_dev.jsonl", "annotated_sample.jsonl",
                 "annotated_train_round1.jsonl"):
        assert name in text


def test_the_shipped_recipe_leaves_round1_out_unless_asked(tmp_path, monkeypatch):
    monkeypatch.setenv("AAC_SHARED_DATA", str(tmp_path))
    skipped: list[str] = []
    shipped_data(with_annotated=True, skipped=skipped)
    assert not any("round1" in s for s in skipped) and any("annotated_sample" in s for s in skipped)


def test_round1_labels_ship_without_text():
    rows = [json.loads(line) for line in packaged_round1().read_text(encoding="utf-8").splitlines() if line.strip()]
    assert len(rows) == 150 and not any("text" in r for r in rows)


@pytest.mark.skipif(not (SHARED_DATA / "agent_configs_train.jsonl").exists(), reason=f"needs {SHARED_DATA}")
def test_round1_labels_join_their_items_and_say_which_file_labelled_them():
    items = load_annotated(packaged_round1(), SHARED_DATA / "agent_configs_train.jsonl")
    assert len(items) == 150 and {d.extra["labels"] for d in items} == {"annotated_train_round1.jsonl"}
