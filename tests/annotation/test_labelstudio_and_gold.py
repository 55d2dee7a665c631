"""Label Studio export -> import round trip, dev-format import, adjudication queue and the `gold` view."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

from aac.annotation.labelstudio import export_tasks, import_export
from aac.annotation.store import adjudicate, adjudication_queue, save
from aac.classifiers.datasets import gold_from_corpus

ITEMS = [{"item_id": "i1", "text": "Never push to main.", "section_path": ["Git"], "repo": "o/r"},
         {"item_id": "i2", "text": "Run make test.", "section_path": [], "repo": "o/r"}]


def _simulate_labelling(tasks: list[dict], labels: dict[str, dict[str, str]]) -> list[dict]:
    """What Label Studio's JSON export looks like after annotators worked on our tasks."""
    out = []
    for n, t in enumerate(tasks):
        anns = []
        for who, by_item in labels.items():
            label = by_item[t["data"]["item_id"]]
            anns.append({"completed_by": {"email": who}, "was_cancelled": False,
                         "result": [{"from_name": "type", "to_name": "text", "type": "choices",
                                     "value": {"choices": [label]}}]})
        out.append({"id": n + 1, "data": t["data"], "annotations": anns})
    return out


def test_label_studio_round_trip_with_two_annotators(tmp_path):
    tasks_path, config_path = export_tasks(ITEMS, tmp_path)
    root = ET.fromstring(config_path.read_text())
    assert [c.get("value") for c in root.find("Choices").findall("Choice")] == ["C", "P", "B", "F", "E"]
    tasks = json.loads(tasks_path.read_text())
    export = tmp_path / "export.json"
    export.write_text(json.dumps(_simulate_labelling(tasks, {"ann1": {"i1": "C", "i2": "P"},
                                                              "ann2": {"i1": "C", "i2": "F"}})))
    rows, problems = import_export(export)
    assert problems == []
    assert {(r["item_id"], r["annotator"], r["label"]) for r in rows} == {
        ("i1", "ann1", "C"), ("i1", "ann2", "C"), ("i2", "ann1", "P"), ("i2", "ann2", "F")}
    assert rows[0]["section_path"] == ["Git"]


def test_label_studio_import_reports_cancelled_and_empty_annotations(tmp_path):
    export = tmp_path / "e.json"
    export.write_text(json.dumps([{"id": 1, "data": {"item_id": "x", "text": "t"}, "annotations": [
        {"completed_by": 7, "was_cancelled": True, "result": []},
        {"completed_by": 8, "result": []}]}]))
    rows, problems = import_export(export)
    assert rows == [] and len(problems) == 3 and "cancelled" in problems[0] and "user id (7, 8)" in problems[2]


def test_agreed_and_adjudicated_labels_form_the_gold_view(corpus):
    rows = [{"item_id": "i1", "annotator": "a", "label": "C", "round": 1, "text": "Never push.", "repo": "o/r"},
            {"item_id": "i1", "annotator": "b", "label": "C", "round": 1, "text": "Never push.", "repo": "o/r"},
            {"item_id": "i2", "annotator": "a", "label": "P", "round": 1, "text": "Run it."},
            {"item_id": "i2", "annotator": "b", "label": "F", "round": 1, "text": "Run it."},
            {"item_id": "i3", "annotator": "a", "label": "B", "round": 1, "text": "Single."}]
    save(corpus, rows)
    assert [q["item_id"] for q in adjudication_queue(corpus)] == ["i2"]
    assert {g.extra["id"] for g in gold_from_corpus(corpus.root)} == {"i1"}  # i3 has one annotator only
    adjudicate(corpus, "i2", "p")
    assert adjudication_queue(corpus) == []
    gold = {g.extra["id"]: g for g in gold_from_corpus(corpus.root)}
    assert gold["i2"].label == "P" and gold["i1"].label == "C" and gold["i1"].group == "o/r"


def test_gold_dev_import_yields_the_adjudicated_labels(corpus, gold_path):
    from aac.annotation.formats import import_gold_jsonl

    save(corpus, import_gold_jsonl(gold_path))
    gold = gold_from_corpus(corpus.root)
    truth = {r["id"]: r["label"] for r in map(json.loads, open(gold_path, encoding="utf-8"))}
    assert len(gold) == len(truth) and all(truth[g.extra["id"]] == g.label for g in gold)


def test_the_leans_c_mark_comes_back_from_both_export_formats(tmp_path):
    _, config_path = export_tasks(ITEMS, tmp_path)
    controls = {c.get("name"): [x.get("value") for x in c.findall("Choice")]
                for c in ET.fromstring(config_path.read_text()).findall("Choices")}
    assert controls["unsure"] == ["leans C"]
    unsure = {"from_name": "unsure", "to_name": "text", "type": "choices", "value": {"choices": ["leans C"]}}
    full = [{"id": 1, "data": {"item_id": "i2", "text": "Run make test."}, "annotations": [
        {"completed_by": {"email": "a"}, "result": [{"from_name": "type", "to_name": "text", "type": "choices",
                                                     "value": {"choices": ["P"]}}, unsure]},
        {"completed_by": {"email": "b"}, "result": [{"from_name": "type", "to_name": "text", "type": "choices",
                                                     "value": {"choices": ["P"]}}]}]}]
    minimal = [{"item_id": "i2", "text": "Run make test.", "annotator": "a", "type": "P", "unsure": ["leans C"]},
               {"item_id": "i2", "text": "Run make test.", "annotator": "b", "type": "C", "unsure": ["leans C"]}]
    for name, export, want in (("full", full, {"a": True, "b": False}), ("min", minimal, {"a": True, "b": False})):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(export))
        rows, problems = import_export(path)
        assert problems == [] and {r["annotator"]: r["leans_c"] for r in rows} == want  # a C label needs no lean


def test_label_files_carry_the_mark_in_either_spelling(tmp_path):
    from aac.annotation.formats import import_label_file

    path = tmp_path / "a.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in [{"id": "x", "label": "F", "text": "t", "unsure": "C"},
                                                        {"id": "y", "label": "B", "text": "u", "leans_c": True},
                                                        {"id": "z", "label": "B", "text": "v"}]))
    assert [r["leans_c"] for r in import_label_file(path, "a")] == [True, True, False]
