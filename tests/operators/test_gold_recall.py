"""Constraint recall against gold constraints (aac.operators.gold_recall), and `aac eval operators --gold`."""

from __future__ import annotations

import json
import sys

import pytest

from aac import cli
from aac.operators.evaluate import Config
from aac.operators.gold_recall import format_gold_table, gold_constraint_table, load_gold_constraints
from aac.operators.model import Item, KnowledgeBase

RULE = "Never force-push to main: it rewrites the history everyone else has pulled."
PADDING = [
    "The API is written in Go and talks to Postgres through sqlc; migrations live in db/migrations.",
    "Prefer small pull requests; keep functions short and their names descriptive.",
    "Yesterday we migrated the cache from Redis to Valkey and removed the old client.",
    "Run `make test` before every push, and `make lint` when you touched the Go code.",
    "The web client is a Vite app under web/; its components live in web/src/components.",
    "Keep log lines short and in the imperative mood; no emoji in commit messages.",
]


def _config(name: str) -> Config:
    items = [Item("c", RULE, "C", order=0)]
    items += [Item(f"x{n}", text, "BFEPBF"[n], order=n + 1) for n, text in enumerate(PADDING)]
    return Config(name, KnowledgeBase(items))


def _gold_file(tmp_path, rows) -> str:
    path = tmp_path / "gold.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_gold_constraints_are_matched_by_text_within_their_file(tmp_path):
    gold = load_gold_constraints(_gold_file(tmp_path, [
        {"repo": "o/r", "path": "AGENTS.md", "text": "Never force-push to main:  it rewrites\nthe history everyone "
                                                     "else has pulled.", "label": "C"},
        {"repo": "o/r", "path": "AGENTS.md", "text": "A rule the segmenter split otherwise.", "label": "C"},
        {"repo": "o/r", "path": "AGENTS.md", "text": "it rewrites the history", "label": "C"},  # a wrapped line's part
        {"repo": "o/r", "path": "AGENTS.md", "text": PADDING[0], "label": "B"},
        {"repo": "o/other", "path": "AGENTS.md", "text": RULE, "label": "C"},  # another file: not these configs
    ]))
    assert gold["o/r/AGENTS.md"] == {RULE, "A rule the segmenter split otherwise.", "it rewrites the history"}
    g = gold_constraint_table([_config("o/r/AGENTS.md"), _config("o/unlabelled/CLAUDE.md")], gold, budgets=(0.9, 0.05))
    # whitespace-normalised, C only; the fragment stands for the item that holds it; the unmatched one is counted
    assert (g["n_gold_in_configs"], g["matched"], g["matched_inside"], g["in_hard_lane"]) == (3, 2, 1, 2)
    assert g["n_items"] == 14 and g["hard_lane_items"] == 2
    roomy, tight = g["budgets"]["0.9"], g["budgets"]["0.05"]
    assert roomy == {"feasible": 2, "kept": 2, "in_feasible": 2, "in_unsafe": 0}
    assert tight == {"feasible": 0, "kept": 0, "in_feasible": 0, "in_unsafe": 2}  # escalated, counted apart
    text = "\n".join(format_gold_table(g))
    assert "2 of 3 gold C of these files matched to items (1 inside a longer item)" in text
    assert "2/2" in text and "(1.00)" in text


def test_a_malformed_gold_record_names_its_line(tmp_path):
    path = tmp_path / "gold.jsonl"
    path.write_text(json.dumps({"repo": "o/r", "path": "A.md", "text": RULE, "label": "C"}) + "\n\n{\"repo\": 1}\n",
                    encoding="utf-8")
    with pytest.raises(ValueError, match=r"gold.jsonl:3: not a gold record"):
        load_gold_constraints(path)


def test_eval_operators_rejects_a_bad_gold_file_before_it_runs(tmp_path, monkeypatch, capsys):
    configs = tmp_path / "configs.jsonl"
    configs.write_text(json.dumps({"repo": "o/r", "path": "AGENTS.md", "content": RULE}) + "\n", encoding="utf-8")
    bad = tmp_path / "gold.jsonl"
    bad.write_text("not json\n", encoding="utf-8")
    for gold, message in ((bad, "gold.jsonl:1: not JSON"), (tmp_path / "none.jsonl", "no gold file at")):
        monkeypatch.setattr(sys, "argv", ["aac", "eval", "operators", "--configs", str(configs), "--gold", str(gold)])
        with pytest.raises(SystemExit) as exit_info:
            cli.main()
        assert exit_info.value.code == 2
        assert message in capsys.readouterr().err
