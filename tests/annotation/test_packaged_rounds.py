"""The package's own annotated sample, replayed through the annotations table: the `gold` view settles its
items exactly as the packaged labels say.

Two earlier campaigns labelled items twice: the 800 items nearest the constraint boundary of the first 5,920 items
(second annotators agent-r2-0..3) and the 200 of the 5,276 items labelled later (agent-r2-4..5). A third pass
(agent-sample-s1..s8, 2026-12-07) read every item again blind; where it disagreed with the earlier label a
tie-break annotator (agent-sample-u1..u3) voted, and the constraint lean (C when the earlier label or the third pass
says C, or the third pass hesitated towards C) is recorded as the adjudicator's label."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from aac.annotation.store import adjudication_queue, round_pairs, save
from aac.core.gold_view import ADJUDICATOR, gold_rows
from aac.classifiers.datasets import packaged_annotations

THIRD = "agent-sample-"  # the third pass and its tie-break votes


def _rows() -> list[dict]:
    return [json.loads(line) for line in packaged_annotations().read_text(encoding="utf-8").splitlines()]


def _earlier(r: dict) -> tuple[list[str], list[str]]:
    """The annotators and votes of the earlier campaigns (before the third pass)."""
    pairs = [(a, v) for a, v in zip(r.get("annotators", []), r.get("votes", [])) if not a.startswith(THIRD)]
    return [a for a, _ in pairs], [v for _, v in pairs]


CAMPAIGNS = {  # second annotators -> (items, agreed, settled by majority)
    ("agent-r2-0", "agent-r2-1", "agent-r2-2", "agent-r2-3"): (800, 693, 106),
    ("agent-r2-4", "agent-r2-5"): (200, 168, 31),
}


@pytest.mark.parametrize("second", list(CAMPAIGNS), ids=["first 5,920 items", "later 5,276 items"])
def test_the_gold_view_settles_the_earlier_campaigns_as_they_reported(corpus, second):
    n, agreed, majority = CAMPAIGNS[second]
    voted = [(r, *_earlier(r)) for r in _rows()]
    voted = [(r, who, votes) for r, who, votes in voted if len(who) >= 2 and who[1] in second]
    save(corpus, [{"item_id": r["id"], "annotator": a, "label": label, "round": k + 1, "repo": r["repo"]}
                  for r, who, votes in voted for k, (a, label) in enumerate(zip(who, votes))])
    gold = {g["item_id"]: g for g in gold_rows(corpus)}
    three_way = {r["id"] for r, _, votes in voted if len(Counter(votes)) == 3}
    assert len(voted) == n and len(three_way) == 1
    assert set(gold) == {r["id"] for r, _, _ in voted} - three_way
    assert Counter(g["provenance"] for g in gold.values()) == {"agreed": agreed, "majority": majority}
    assert [q["item_id"] for q in adjudication_queue(corpus)] == sorted(three_way)
    first, again = round_pairs(corpus)[("round 1", "round 2")]
    assert len(first) == n and sum(a == b for a, b in zip(first, again)) == agreed


def test_every_item_labelled_twice_before_the_third_pass_belongs_to_one_campaign():
    voted = [who for who in (_earlier(r)[0] for r in _rows()) if len(who) >= 2]
    assert len(voted) == sum(n for n, _, _ in CAMPAIGNS.values())
    assert all(any(who[1] in s for s in CAMPAIGNS) for who in voted)


def test_the_gold_view_reproduces_every_packaged_label_after_the_third_pass(corpus):
    rows = [r for r in _rows() if len(r.get("votes", [])) >= 2 and "provenance" in r]  # the third pass settled them
    key = lambda r: f"{r['repo']}:{r['path']}:{r['id']}"  # noqa: E731 - one text in two files is two items
    save(corpus, [{"item_id": key(r), "annotator": a, "label": label, "round": k + 1, "repo": r["repo"]}
                  for r in rows for k, (a, label) in enumerate(zip(r["annotators"], r["votes"]))])
    save(corpus, [{"item_id": key(r), "annotator": ADJUDICATOR, "label": r["label"], "round": 1}
                  for r in rows if r.get("provenance") == "adjudicated"])
    gold = {g["item_id"]: (g["label"], g["provenance"]) for g in gold_rows(corpus)}
    assert gold == {key(r): (r["label"], r["provenance"]) for r in rows}
    third = [r for r in rows if any(a.startswith(THIRD) for a in r["annotators"])]
    assert len(third) > 0.95 * len(_rows())  # every item the sample still segments was read a third time
    lean = [r for r in rows if r.get("settled_by") == "constraint lean"]
    assert lean and all(r["label"] == "C" and "C" in r["votes"] + r.get("unsure", []) for r in lean)
    kept = [r for r in rows if r.get("settled_by") == "earlier settlement"]  # a split third pass left as settled
    assert all(len(_earlier(r)[1]) >= 2 and r["label"] in r["votes"] for r in kept)
