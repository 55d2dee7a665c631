"""The package's own two-round annotated sample, replayed through the annotations table: the `gold` view settles
its 800 twice-labelled items exactly as the packaged labels say (majority of three where round 2 disagreed)."""

from __future__ import annotations

import json
from collections import Counter

from aac.annotation.store import adjudication_queue, gold_rows, round_pairs, save
from aac.classifiers.datasets import packaged_annotations


def test_the_gold_view_reproduces_the_packaged_second_round_labels(corpus):
    rows = [json.loads(line) for line in packaged_annotations().read_text(encoding="utf-8").splitlines()]
    voted = [r for r in rows if r.get("votes")]
    save(corpus, [{"item_id": r["id"], "annotator": who, "label": label, "round": k + 1, "repo": r["repo"]}
                  for r in voted for k, (who, label) in enumerate(zip(r["annotators"], r["votes"]))])
    gold = {g["item_id"]: g for g in gold_rows(corpus)}
    three_way = {r["id"] for r in voted if len(Counter(r["votes"])) == 3}
    assert len(voted) == 800 and len(three_way) == 1
    assert set(gold) == {r["id"] for r in voted} - three_way
    assert all(gold[r["id"]]["label"] == r["label"] for r in voted if r["id"] in gold)
    assert Counter(g["provenance"] for g in gold.values()) == {"agreed": 693, "majority": 106}
    assert [q["item_id"] for q in adjudication_queue(corpus)] == sorted(three_way)
    first, second = round_pairs(corpus)[("round 1", "round 2")]
    assert len(first) == 800 and sum(a == b for a, b in zip(first, second)) == 693  # 86.6 % observed agreement
