"""The second annotation round on the train files (issue 24), as shipped in aac/classifiers/data/annotated_train.jsonl
(labels and votes, no text): every label is what the project's gold view settles from the recorded votes (two blind
annotators; a third blind vote where they disagreed; the constraint lean recorded as the adjudicator's label), it
never touches a holdout repository or an item gold_train.jsonl or round 1 already labels, and every label joins its
item when the train files are segmented again."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path

from aac.annotation.agreement import agreement_report
from aac.annotation.store import save
from aac.core.gold_view import ADJUDICATOR, gold_rows

from tests.conftest import shared_file

DATA = Path(__file__).resolve().parents[2] / "aac" / "classifiers" / "data"
ROUND2 = DATA / "annotated_train.jsonl"
CHECKS = Path(__file__).resolve().parents[2] / "bench" / "data" / "annotated_train_gold_checks.jsonl"


def _rows(path: Path = ROUND2) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_round2_labels_are_what_the_gold_view_settles_from_its_votes(corpus):
    rows = _rows()
    key = lambda r: f"{r['repo']}:{r['id']}"  # noqa: E731 - the same text in two repositories is two items
    assert len({key(r) for r in rows}) == len(rows)
    save(corpus, [{"item_id": key(r), "annotator": who, "label": lab, "round": n, "repo": r["repo"], "path": r["path"]}
                  for r in rows for n, (who, lab) in enumerate(zip(r["annotators"], r["votes"]), 1)])
    save(corpus, [{"item_id": key(r), "annotator": ADJUDICATOR, "label": r["label"], "round": 1}
                  for r in rows if r["provenance"] == "adjudicated"])
    gold = {g["item_id"]: g for g in gold_rows(corpus)}
    assert {i: (g["label"], g["provenance"]) for i, g in gold.items()} == {
        key(r): (r["label"], r["provenance"]) for r in rows}


def test_round2_agreement_and_the_constraint_lean():
    rows = _rows()
    assert all(len(r["votes"]) == len(r["annotators"]) >= 2 for r in rows)
    assert all(len(set(r["annotators"])) == len(r["annotators"]) for r in rows)  # blind passes by different annotators
    rep = agreement_report([r["votes"][0] for r in rows], [r["votes"][1] for r in rows])
    assert rep["kappa_5"] > 0.85 and rep["kappa_c"] > 0.8
    lean = [r for r in rows if r["provenance"] == "adjudicated"]
    # the adjudicator only ever settles towards C, and only where an annotator said C or hesitated towards it
    assert lean and all(r["label"] == "C" and r["settled_by"] == "constraint lean" for r in lean)
    assert all("C" in r["votes"] or "C" in r.get("unsure", []) for r in lean)
    majority = [r for r in rows if r["provenance"] == "majority"]
    assert all(len(r["votes"]) == 3 and r["votes"].count(r["label"]) >= 2 for r in majority)


def test_round2_blind_checks_are_gold_train_items_labelled_in_both_passes():
    gold = {g["id"]: g["label"] for g in map(json.loads, shared_file("gold_train.jsonl").open(encoding="utf-8"))}
    checks = _rows(CHECKS)
    assert all(c["gold_id"] in gold for c in checks)
    assert Counter(c["round"] for c in checks) == {1: len(checks) // 2, 2: len(checks) // 2}
    said_c = {c["gold_id"] for c in checks if c["label"] == "C" or c.get("unsure") == "C"}
    gold_c = {c["gold_id"] for c in checks if gold[c["gold_id"]] == "C"}
    assert len(said_c & gold_c) >= 0.9 * len(gold_c)  # the lean's recall on the blind checks (0.93 reported)


def test_round2_stays_out_of_holdout_repositories_gold_train_and_round1():
    holdout = set(shared_file("holdout_repos.sha256").read_text().split())
    rows = _rows()
    assert not [r for r in rows if hashlib.sha256(r["repo"].lower().encode()).hexdigest() in holdout]
    from aac.classifiers.datasets import annotated_item_id

    labelled = {(g["repo"], annotated_item_id(g["text"]))
                for g in map(json.loads, shared_file("gold_train.jsonl").open(encoding="utf-8"))}
    labelled |= {(r["repo"], r["id"]) for r in _rows(DATA / "annotated_train_round1.jsonl")}
    assert not [r for r in rows if (r["repo"], r["id"]) in labelled]


def test_every_round2_label_joins_its_item_in_the_train_files():
    from aac.classifiers.datasets import load_annotated

    unmatched: list[str] = []
    data = load_annotated(ROUND2, shared_file("agent_configs_train.jsonl"), unmatched)
    assert len(data) == len(_rows()) and unmatched == []
    assert not any(d.item.text == "" for d in data)
