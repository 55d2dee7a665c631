"""The teacher-cascade under the shipped recipe's grouped CV: per-fold teacher probabilities from a cache, the
cascade's decisions read by the same report as the fast model's, and its rows beside the default's."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from aac.classifiers.base import ItemInput
from aac.classifiers.cascade_eval import cascade_report, fold_teacher_proba
from aac.classifiers.datasets import Labelled
from aac.classifiers.grouped_eval import grouped_report
from aac.classifiers.teacher_cascade import CascadeParams
from aac.core.labels import TYPES

C, B = TYPES.index("C"), TYPES.index("B")


def _data(n: int = 6) -> list[Labelled]:
    labels = "CBCBPB"[:n]
    return [Labelled(ItemInput(f"item {i}"), labels[i], f"o/r{i % 2}", source="gold",
                     extra={"sample": "natural", "platform": "cursor"}) for i in range(n)]


def _splits() -> list[tuple[np.ndarray, np.ndarray]]:
    return [(np.asarray([1, 3, 5]), np.asarray([0, 2, 4])), (np.asarray([0, 2, 4]), np.asarray([1, 3, 5]))]


def test_cached_folds_are_read_back_in_place(tmp_path):
    data = _data()
    for k, (_, te) in enumerate(_splits()):
        np.save(tmp_path / f"idx{k}.npy", te)
        np.save(tmp_path / f"te{k}.npy", np.tile(np.eye(len(TYPES))[k], (len(te), 1)))
    T = fold_teacher_proba(data, _splits(), tmp_path)
    assert T[[0, 2, 4]].argmax(axis=1).tolist() == [0, 0, 0]
    assert T[[1, 3, 5]].argmax(axis=1).tolist() == [1, 1, 1]
    only_first = fold_teacher_proba(data, _splits(), tmp_path, folds=[0])
    assert np.isnan(only_first[[1, 3, 5]]).all() and not np.isnan(only_first[[0, 2, 4]]).any()


def test_a_cache_file_of_another_shape_is_an_error_naming_it(tmp_path):
    _, te = _splits()[0]
    np.save(tmp_path / "idx0.npy", te)
    np.save(tmp_path / "te0.npy", np.zeros((2, len(TYPES))))
    with pytest.raises(ValueError, match="te0.npy holds 2 rows"):
        fold_teacher_proba(_data(), _splits(), tmp_path, folds=[0])


@pytest.mark.skipif(importlib.util.find_spec("torch") is not None, reason="the minilm extra is installed here: a "
                    "fold not cached would be fine-tuned (minutes)")
def test_a_fold_not_cached_without_the_minilm_extra_names_the_install_line(tmp_path):
    np.save(tmp_path / "idx0.npy", np.asarray([9]))  # a cache of another split is not reused
    np.save(tmp_path / "te0.npy", np.zeros((1, len(TYPES))))
    with pytest.raises(RuntimeError, match=r"pip install .*minilm"):
        fold_teacher_proba(_data(), _splits(), tmp_path, folds=[0])


def _fast() -> np.ndarray:
    # item 2 (gold C) is the fast model's near miss; item 4 (gold P) a confident P
    return np.asarray([[0.9, 0.02, 0.04, 0.02, 0.02], [0.02, 0.02, 0.9, 0.04, 0.02], [0.3, 0.05, 0.4, 0.2, 0.05],
                       [0.02, 0.02, 0.9, 0.04, 0.02], [0.02, 0.9, 0.04, 0.02, 0.02], [0.02, 0.04, 0.9, 0.02, 0.02]])


def test_without_the_teacher_the_cascade_reads_as_the_fast_model():
    data, P = _data(), _fast()
    w = [1.0] * len(data)
    fast = grouped_report(data, P, w, 0.5, 0.25)
    same = cascade_report(data, P, np.full_like(P, 0.2), w, 0.5, 0.25,
                          CascadeParams(mix=0.0, type_threshold=0.5, band_gap=0.0, c_window=0.0))
    assert {k: v for k, v in same.overall.items() if k != "teacher_share"} == fast.overall
    assert same.overall["teacher_share"] == 0.0


def test_the_teacher_types_the_uncertain_item_and_the_hard_lane_only_grows():
    data, P = _data(), _fast()
    T = np.full_like(P, 0.05)
    T[:, B] = 0.8
    T[2] = [0.9, 0.02, 0.04, 0.02, 0.02]  # the teacher is sure the near miss is a constraint
    w = [1.0] * len(data)
    fast = grouped_report(data, P, w, 0.5, 0.35)
    rep = cascade_report(data, P, T, w, 0.5, 0.35, CascadeParams(mix=0.5, type_threshold=0.5, band_gap=0.2,
                                                                 c_window=0.3))
    assert fast.overall["c_rec"] == 0.5 and rep.overall["c_rec"] == 1.0  # item 2 is now typed C ...
    assert rep.overall["hard_rec"] == 1.0  # ... and joins the hard lane
    assert rep.overall["hard_share"] >= fast.overall["hard_share"]
    assert 0 < rep.overall["teacher_share"] < 1  # confident items never reach the teacher


def test_rows_without_a_teacher_score_are_left_out():
    data, P = _data(), _fast()
    T = np.full_like(P, 0.2)
    T[[1, 3, 5]] = np.nan
    rep = cascade_report(data, P, T, [1.0] * len(data), 0.5, 0.25)
    assert rep.overall["n"] == 3


def test_the_union_report_prints_the_cascade_beside_every_table():
    from rich.console import Console

    from aac.classifiers.union_report import print_union_report

    data, P = _data(), _fast()
    fast = grouped_report(data, P, [1.0] * 6, 0.5, 0.25)
    rep = cascade_report(data, P, np.full_like(P, 0.2), [1.0] * 6, 0.5, 0.25)
    console = Console(record=True, width=220)
    print_union_report(fast, console, 2, rep)
    out = console.export_text()
    for words in ("teacher-cascade (grouped CV)", "english, teacher-cascade", "cursor, teacher-cascade",
                  "teacher-cascade: a teacher fine-tuned per fold"):
        assert words in out


def test_a_folder_of_another_teacher_recipe_is_refused(tmp_path):
    import json

    for k, (_, te) in enumerate(_splits()):
        np.save(tmp_path / f"idx{k}.npy", te)
        np.save(tmp_path / f"te{k}.npy", np.full((len(te), len(TYPES)), 0.2))
    fold_teacher_proba(_data(), _splits(), tmp_path)  # first use writes the recipe
    recipe = json.loads((tmp_path / "teacher_recipe.json").read_text())
    assert recipe["epochs"] == 1 and recipe["annotated_weight"] == 0.5
    (tmp_path / "teacher_recipe.json").write_text(json.dumps({**recipe, "epochs": 2}))
    with pytest.raises(ValueError, match="another recipe"):
        fold_teacher_proba(_data(), _splits(), tmp_path)
