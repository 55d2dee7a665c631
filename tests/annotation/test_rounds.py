"""Several annotation rounds: majority labels in the `gold` view, the queue that is left, agreement between rounds,
and the gold export that training reads back."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from aac.annotation.formats import gold_jsonl_rows
from aac.annotation.store import adjudicate, adjudication_queue, round_pairs, save
from aac.classifiers.datasets import gold_from_corpus
from aac.core.gold_view import gold_rows
from aac.cli import app
from aac.classifiers.datasets import load_gold


def _votes(item: str, *labels: tuple[str, str, int], text: str = "t", repo: str = "o/r") -> list[dict]:
    return [{"item_id": item, "annotator": who, "label": lab, "round": rnd, "text": text, "repo": repo,
             "section_path": ["Git"], "kind": "line"} for who, lab, rnd in labels]


def test_a_strict_majority_of_three_settles_an_item_and_a_tie_waits(corpus):
    save(corpus, [*_votes("two-one", ("r1", "F", 1), ("r2", "C", 2), ("r3", "C", 3)),
                  *_votes("three-way", ("r1", "F", 1), ("r2", "C", 2), ("r3", "P", 3)),
                  *_votes("split-pair", ("a", "B", 1), ("b", "E", 1)),
                  *_votes("agreed", ("a", "P", 1), ("b", "P", 1)),
                  *_votes("single", ("a", "B", 1))])
    gold = {g["item_id"]: g for g in gold_rows(corpus)}
    assert set(gold) == {"two-one", "agreed"}
    assert gold["two-one"]["label"] == "C" and gold["two-one"]["provenance"] == "majority"
    assert gold["two-one"]["votes"] == ["F", "C", "C"] and gold["two-one"]["annotators"] == ["r1", "r2", "r3"]
    assert gold["agreed"]["provenance"] == "agreed"
    queue = {q["item_id"]: q["labels"] for q in adjudication_queue(corpus)}
    assert queue == {"split-pair": "a=B, b=E", "three-way": "r1=F, r2=C, r3=P"}


def test_an_annotator_counts_once_with_their_latest_round_and_the_adjudicator_has_the_last_word(corpus):
    # "a" changed their mind in round 2: F then C, so the item has votes C (a) and C (b), not a 2-1 split
    save(corpus, [*_votes("x", ("a", "F", 1), ("b", "C", 1), ("a", "C", 2))])
    (g,) = gold_rows(corpus)
    assert (g["label"], g["provenance"], g["votes"]) == ("C", "agreed", ["C", "C"])
    adjudicate(corpus, "x", "B", round_=3)
    (g,) = gold_rows(corpus)
    assert (g["label"], g["provenance"], g["votes"]) == ("B", "adjudicated", ["C", "C"])


def test_votes_reach_training_as_label_a_and_label_b(corpus):
    save(corpus, _votes("m", ("r1", "F", 1), ("r2", "C", 2), ("r3", "C", 3)))
    (item,) = gold_from_corpus(corpus.root)
    assert item.label == "C" and item.extra["label_a"] == "F" and item.extra["label_b"] == "C"
    assert item.extra["provenance"] == "majority" and item.extra["votes"] == ["F", "C", "C"]


def test_round_pairs_compare_rounds_split_among_many_annotators(corpus):
    # round 1 by a and b (a batch each), round 2 by c and d: items i1-i3 seen in both rounds, i4 only in round 1
    save(corpus, [*_votes("i1", ("a", "C", 1), ("c", "C", 2)), *_votes("i2", ("a", "P", 1), ("d", "F", 2)),
                  *_votes("i3", ("b", "B", 1), ("c", "B", 2)), *_votes("i4", ("b", "E", 1))])
    pairs = round_pairs(corpus)
    assert list(pairs) == [("round 1", "round 2")]
    assert pairs[("round 1", "round 2")] == (["C", "P", "B"], ["C", "F", "B"])


def test_gold_export_reads_back_as_gold_dev_format(corpus, tmp_path):
    save(corpus, [*_votes("m", ("r1", "F", 1), ("r2", "C", 2), ("r3", "C", 3), text="Never force-push."),
                  *_votes("a", ("x", "P", 1), ("y", "P", 1), text="Run make test.")])
    path = tmp_path / "gold.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in gold_jsonl_rows(gold_rows(corpus))))
    back = {g.extra["id"]: g for g in load_gold(path)}
    assert back["m"].label == "C" and back["m"].item.text == "Never force-push." and back["m"].item.section == ("Git",)
    assert (back["m"].extra["label_a"], back["m"].extra["label_b"]) == ("F", "C")
    rows = {r["id"]: r for r in map(json.loads, path.read_text().splitlines())}
    assert rows["m"]["agreed"] is False and rows["a"]["agreed"] is True and rows["m"]["provenance"] == "majority"


runner = CliRunner()


def test_cli_second_round_agreement_and_export(tmp_path):
    root = str(tmp_path / "c")
    items = tmp_path / "items.jsonl"
    items.write_text("".join(json.dumps({"id": f"i{k}", "text": f"item {k}", "repo": "o/r"}) + "\n" for k in range(4)))
    first, second, third = (tmp_path / f"r{k}.jsonl" for k in (1, 2, 3))
    first.write_text("".join(json.dumps({"id": f"i{k}", "label": lab}) + "\n" for k, lab in enumerate("CPBF")))
    second.write_text("".join(json.dumps({"id": f"i{k}", "label": lab}) + "\n" for k, lab in enumerate("CFBP")))
    third.write_text(json.dumps({"id": "i1", "label": "F"}) + "\n")
    for path, who, rnd in ((first, "ann", "1"), (second, "ann", "2"), (third, "tie", "3")):
        res = runner.invoke(app, ["annotate", "import-labels", str(path), "--annotator", who, "--items", str(items),
                                  "--round", rnd, "--corpus", root])
        assert res.exit_code == 0, res.output
    # the same annotator in two rounds counts once (latest round) in gold, but the rounds still compare
    res = runner.invoke(app, ["annotate", "agreement", "--by", "round", "--corpus", root])
    assert res.exit_code == 0, res.output
    assert "round 1 vs round 2: n=4 observed=0.500" in res.output and "round 2 vs round 3: n=1 observed=1.000" in res.output
    assert runner.invoke(app, ["annotate", "agreement", "--by", "team", "--corpus", root]).exit_code == 2
    out = tmp_path / "gold.jsonl"
    res = runner.invoke(app, ["annotate", "export", "--out", str(out), "--corpus", root])
    assert res.exit_code == 0, res.output
    assert "wrote 1 labelled items" in res.output  # i1: ann (round 2) F + tie F agree; i0, i2, i3 have one annotator
    (row,) = map(json.loads, out.read_text().splitlines())
    assert (row["id"], row["label"], row["votes"], row["annotators"]) == ("i1", "F", ["F", "F"], ["ann", "tie"])
    empty = runner.invoke(app, ["annotate", "export", "--out", str(out), "--corpus", str(tmp_path / "none")])
    assert empty.exit_code == 1


def test_cli_queue_writes_blind_tie_break_tasks_whose_labels_settle_by_majority(tmp_path):
    from aac.core.store import Corpus

    root = tmp_path / "c"
    save(Corpus(root), [*_votes("i1", ("a", "C", 1), ("b", "F", 1), text="Never force-push main."),
                        *_votes("i2", ("a", "P", 1), ("b", "P", 1), text="Run make test.")])
    res = runner.invoke(app, ["annotate", "queue", "--corpus", str(root), "--tasks", str(tmp_path / "tb")])
    assert res.exit_code == 0, res.output
    tasks = json.loads((tmp_path / "tb" / "tasks.json").read_text())
    assert [t["data"]["item_id"] for t in tasks] == ["i1"]  # i2 is agreed
    assert tasks[0]["data"]["text"] == "Never force-push main." and tasks[0]["data"]["repo"] == "o/r"
    assert set(tasks[0]["data"]) == {"item_id", "text", "section", "section_path", "kind", "repo", "path",
                                      "platform"}  # blind: no labels
    export = tmp_path / "export.json"
    export.write_text(json.dumps([{"id": 1, "data": tasks[0]["data"], "annotations": [
        {"completed_by": {"email": "tie"}, "result": [{"from_name": "type", "to_name": "text", "type": "choices",
                                                       "value": {"choices": ["C"]}}]}]}]))
    res = runner.invoke(app, ["annotate", "import-ls", str(export), "--round", "2", "--corpus", str(root)])
    assert res.exit_code == 0, res.output
    gold = {g["item_id"]: g for g in gold_rows(Corpus(root))}
    assert (gold["i1"]["label"], gold["i1"]["provenance"], gold["i1"]["votes"]) == ("C", "majority", ["C", "F", "C"])
    assert "0 items awaiting" in runner.invoke(app, ["annotate", "queue", "--corpus", str(root)]).output


def test_each_round_against_the_adjudicated_labels_of_the_gold_items_it_saw(corpus):
    from aac.annotation.store import adjudicated_pairs

    adjudicated = {"g1": "C", "g2": "P", "g3": "B", "g4": "F"}
    save(corpus, [{"item_id": i, "annotator": "adjudicator", "label": lab, "round": 1} for i, lab in adjudicated.items()]
         + [*_votes("g1", ("A", "C", 1), ("B", "F", 1), ("n1", "C", 2)), *_votes("g2", ("A", "P", 1), ("n2", "P", 2)),
            *_votes("g3", ("A", "F", 1), ("n1", "F", 2)), *_votes("x", ("n1", "E", 2), ("n2", "E", 2))])
    pairs = adjudicated_pairs(corpus)
    assert list(pairs) == [("round 1", "adjudicated"), ("round 2", "adjudicated")]
    assert pairs[("round 1", "adjudicated")] == (["C", "P", "F"], ["C", "P", "B"])  # A, first by name; g4 unlabelled
    assert pairs[("round 2", "adjudicated")] == (["C", "P", "F"], ["C", "P", "B"])  # x is not adjudicated
    res = runner.invoke(app, ["annotate", "agreement", "--by", "gold", "--corpus", str(corpus.root)])
    assert res.exit_code == 0 and "round 2 vs adjudicated: n=3 observed=0.667" in res.output
