"""The package's own annotated sample, replayed through the annotations table: the `gold` view settles its
twice-labelled items exactly as the packaged labels say (majority of three where the second vote disagreed).

Two campaigns were labelled twice: the 800 items nearest the constraint boundary of the first 5,920 items
(second annotators agent-r2-0..3) and the 200 of the 5,276 items labelled later (agent-r2-4..5)."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from aac.annotation.store import adjudication_queue, round_pairs, save
from aac.core.gold_view import gold_rows
from aac.classifiers.datasets import packaged_annotations

CAMPAIGNS = {  # second annotators -> (items, agreed, settled by majority)
    ("agent-r2-0", "agent-r2-1", "agent-r2-2", "agent-r2-3"): (800, 693, 106),
    ("agent-r2-4", "agent-r2-5"): (200, 168, 31),
}


@pytest.mark.parametrize("second", list(CAMPAIGNS), ids=["first 5,920 items", "later 5,276 items"])
def test_the_gold_view_reproduces_the_packaged_second_round_labels(corpus, second):
    n, agreed, majority = CAMPAIGNS[second]
    rows = [json.loads(line) for line in packaged_annotations().read_text(encoding="utf-8").splitlines()]
    voted = [r for r in rows if r.get("votes") and r["annotators"][1] in second]
    save(corpus, [{"item_id": r["id"], "annotator": who, "label": label, "round": k + 1, "repo": r["repo"]}
                  for r in voted for k, (who, label) in enumerate(zip(r["annotators"], r["votes"]))])
    gold = {g["item_id"]: g for g in gold_rows(corpus)}
    three_way = {r["id"] for r in voted if len(Counter(r["votes"])) == 3}
    assert len(voted) == n and len(three_way) == 1
    assert set(gold) == {r["id"] for r in voted} - three_way
    assert all(gold[r["id"]]["label"] == r["label"] for r in voted if r["id"] in gold)
    assert Counter(g["provenance"] for g in gold.values()) == {"agreed": agreed, "majority": majority}
    assert [q["item_id"] for q in adjudication_queue(corpus)] == sorted(three_way)
    first, again = round_pairs(corpus)[("round 1", "round 2")]
    assert len(first) == n and sum(a == b for a, b in zip(first, again)) == agreed


def test_every_twice_labelled_item_belongs_to_one_campaign():
    rows = [json.loads(line) for line in packaged_annotations().read_text(encoding="utf-8").splitlines()]
    voted = [r for r in rows if r.get("votes")]
    assert len(voted) == sum(n for n, _, _ in CAMPAIGNS.values())
    assert all(any(r["annotators"][1] in s for s in CAMPAIGNS) for r in voted)
