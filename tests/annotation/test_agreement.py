"""Cohen's kappa against a hand-computed case and the shared dev label files."""

from __future__ import annotations

import json

import pytest

from aac.annotation.agreement import agreement_report, binary, cohen_kappa, confusion


def test_kappa_matches_hand_computation():
    # p_o = 4/5; p_e = (3*2 + 2*3) / 25 = 0.48; kappa = (0.8 - 0.48) / 0.52 = 0.6153...
    a = ["C", "C", "C", "P", "P"]
    b = ["C", "C", "P", "P", "P"]
    assert cohen_kappa(a, b) == pytest.approx(0.32 / 0.52)


def test_kappa_of_identical_single_label_lists_is_one_and_of_chance_is_zero():
    assert cohen_kappa(["B", "B"], ["B", "B"]) == 1.0
    assert cohen_kappa(["C", "C", "P", "P"], ["C", "P", "C", "P"]) == pytest.approx(0.0)


def test_kappa_rejects_unpaired_lists():
    with pytest.raises(ValueError):
        cohen_kappa(["C"], ["C", "P"])


def test_confusion_rows_are_first_annotator():
    m = confusion(["C", "P"], ["P", "P"])
    assert m[0][1] == 1 and m[1][1] == 1 and sum(map(sum, m)) == 2
    assert binary(["C", "F"]) == ["C", "other"]


def test_dev_label_files_reproduce_the_documented_kappas():
    from tests.conftest import shared_file

    a = {r["id"]: r["label"] for r in map(json.loads, open(shared_file("gold_dev_labels_A.jsonl")))}
    b = {r["id"]: r["label"] for r in map(json.loads, open(shared_file("gold_dev_labels_B.jsonl")))}
    ids = sorted(a)
    rep = agreement_report([a[i] for i in ids], [b[i] for i in ids])
    assert rep["kappa_5"] == pytest.approx(0.895, abs=0.005)
    assert rep["kappa_c"] == pytest.approx(0.820, abs=0.005)
