"""The first annotation round on the train files (issue 24), as shipped in
aac/classifiers/data/annotated_train_round1.jsonl (labels and votes, no text): its agreement, settling and provenance
are what the round reported, it never touches a holdout repository or an item gold_train.jsonl already labels, and
every label joins its item when the train files are segmented again."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path

from aac.annotation.agreement import agreement_report
from aac.annotation.store import annotator_pairs, save
from aac.core.gold_view import gold_rows

from tests.conftest import shared_file

ROUND1 = Path(__file__).resolve().parents[2] / "aac" / "classifiers" / "data" / "annotated_train_round1.jsonl"
A, B = "agent-labelstudio-a@aac.local", "agent-labelstudio-b@aac.local"


def _rows() -> list[dict]:
    return [json.loads(line) for line in ROUND1.read_text(encoding="utf-8").splitlines()]


def test_round1_agreement_and_settling_replay_through_the_gold_view(corpus):
    rows = _rows()
    assert len(rows) == 150 and all(r["annotators"] == [A, B] for r in rows)
    rep = agreement_report([r["votes"][0] for r in rows], [r["votes"][1] for r in rows])
    assert (rep["n"], round(rep["kappa_5"], 3), round(rep["kappa_c"], 3)) == (150, 0.955, 0.945)
    save(corpus, [{"item_id": r["id"], "annotator": who, "label": lab, "round": 1, "repo": r["repo"], "path": r["path"]}
                  for r in rows for who, lab in zip(r["annotators"], r["votes"])])
    save(corpus, [{"item_id": r["id"], "annotator": "adjudicator", "label": r["label"], "round": 1}
                  for r in rows if r["provenance"] == "adjudicated"])
    gold = {g["item_id"]: g for g in gold_rows(corpus)}
    assert {i: g["label"] for i, g in gold.items()} == {r["id"]: r["label"] for r in rows}
    assert Counter(g["provenance"] for g in gold.values()) == {"agreed": 145, "adjudicated": 5}
    assert len(annotator_pairs(corpus)[(A, B)][0]) == 150
    assert Counter(r["label"] for r in rows) == {"F": 46, "P": 41, "B": 39, "C": 22, "E": 2}


def test_round1_stays_out_of_holdout_repositories_and_gold_train():
    holdout = set(shared_file("holdout_repos.sha256").read_text().split())
    assert not [r for r in _rows() if hashlib.sha256(r["repo"].lower().encode()).hexdigest() in holdout]
    from aac.classifiers.datasets import annotated_item_id

    labelled = {(g["repo"], annotated_item_id(g["text"]))
                for g in map(json.loads, shared_file("gold_train.jsonl").open(encoding="utf-8"))}
    assert not [r for r in _rows() if (r["repo"], r["id"]) in labelled]


def test_every_round1_label_joins_its_item_in_the_train_files():
    from aac.classifiers.datasets import load_annotated

    unmatched: list[str] = []
    data = load_annotated(ROUND1, shared_file("agent_configs_train.jsonl"), unmatched)
    assert len(data) == 150 and unmatched == []
    assert sum(d.extra.get("label_a") != d.extra.get("label_b") for d in data) == 5  # the adjudicated ones
