"""The annotation loop loses and mis-reads nothing: rounds in agreement, adjudication that
keeps the item's text and supersedes itself, labels without text, Label Studio exports as Label Studio writes them,
sample sizes as asked, and gold_dev's fields through the export."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from aac.annotation.formats import gold_jsonl_rows, import_gold_jsonl
from aac.annotation.labelstudio import import_export, read_users
from aac.annotation.sample import allocate, allocate_even
from aac.annotation.store import adjudicate, annotator_pairs, save
from aac.core.gold_view import gold_rows
from aac.cli import app

runner = CliRunner()


def _row(item, who, label, rnd=1, text="Never push to main.", **extra):
    return {"item_id": item, "annotator": who, "label": label, "round": rnd, "text": text, "repo": "o/r",
            "section_path": ["Git"], "kind": "line", **extra}


def test_agreement_pairs_an_annotators_latest_round_whatever_the_import_order(corpus):
    save(corpus, [_row("i", "A", "P", 2), _row("i", "B", "P")])
    save(corpus, [_row("i", "A", "C", 1)])  # round 1 imported after round 2
    assert annotator_pairs(corpus) == {("A", "B"): (["P"], ["P"])}


def test_adjudication_keeps_the_text_another_vote_has_and_the_annotators_meta_flag(corpus):
    save(corpus, [_row("i", "A", "C", text=None, meta=True), _row("i", "B", "P", meta=True)])
    adjudicate(corpus, "i", "C")
    (g,) = gold_rows(corpus)
    assert (g["label"], g["text"], g["meta"]) == ("C", "Never push to main.", True)
    adjudicate(corpus, "i", "C", meta=False)  # an explicit flag wins
    assert gold_rows(corpus)[0]["meta"] is False


def test_a_second_adjudication_supersedes_the_first_and_a_gold_reimport_does_not_undo_it(corpus, gold_path):
    first = json.loads(open(gold_path, encoding="utf-8").readline())
    save(corpus, import_gold_jsonl(gold_path))
    other = "C" if first["label"] != "C" else "P"
    assert adjudicate(corpus, first["id"], other) == 2
    assert adjudicate(corpus, first["id"], "B") == 3
    label = {g["item_id"]: g["label"] for g in gold_rows(corpus)}
    assert label[first["id"]] == "B"
    save(corpus, import_gold_jsonl(gold_path))
    assert {g["item_id"]: g["label"] for g in gold_rows(corpus)}[first["id"]] == "B"


def test_the_cli_warns_when_an_older_round_is_adjudicated_and_when_an_import_replaces_labels(tmp_path, gold_path):
    root = str(tmp_path / "c")
    assert runner.invoke(app, ["annotate", "import-gold", str(gold_path), "--corpus", root]).exit_code == 0
    item = json.loads(open(gold_path, encoding="utf-8").readline())["id"]
    assert runner.invoke(app, ["annotate", "adjudicate", item, "E", "--round", "5", "--corpus", root]).exit_code == 0
    res = runner.invoke(app, ["annotate", "adjudicate", item, "P", "--round", "4", "--corpus", root])
    assert res.exit_code == 0 and "gold keeps E" in res.output
    edited = tmp_path / "gold.jsonl"
    rows = [json.loads(line) for line in open(gold_path, encoding="utf-8")]
    rows[1]["label"] = "E" if rows[1]["label"] != "E" else "B"
    edited.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    res = runner.invoke(app, ["annotate", "import-gold", str(edited), "--corpus", root])
    assert res.exit_code == 0 and "1 stored labels" in res.output.replace("\n", " ")


def test_labels_without_item_text_are_refused_unless_the_corpus_has_the_text(tmp_path):
    labels = tmp_path / "A.jsonl"
    labels.write_text('{"id": "i", "label": "C"}\n{"id": "j", "label": "Preference"}\n', encoding="utf-8")
    root = str(tmp_path / "c")
    res = runner.invoke(app, ["annotate", "import-labels", str(labels), "--annotator", "A", "--corpus", root])
    assert res.exit_code == 2 and "nothing imported" in res.output.replace("\n", " ")
    from aac.core.store import Corpus

    save(Corpus(root), [_row("i", "B", "C"), _row("j", "B", "F", text="Prefer tabs.")])
    res = runner.invoke(app, ["annotate", "import-labels", str(labels), "--annotator", "A", "--corpus", root])
    assert res.exit_code == 0, res.output
    gold = {g["item_id"]: (g["label"], g["text"]) for g in gold_rows(Corpus(root))}
    assert gold == {"i": ("C", "Never push to main."), "j": ("F", "Prefer tabs.")}


def _ann(who, label, updated, meta=False):
    result = [{"from_name": "type", "to_name": "text", "type": "choices", "value": {"choices": [label]}}]
    if meta:
        result.append({"from_name": "meta", "to_name": "text", "type": "choices", "value": {"choices": ["meta"]}})
    return {"completed_by": {"email": who}, "updated_at": updated, "result": result}


def test_label_studio_keeps_an_annotators_latest_annotation_of_a_task_and_says_so(tmp_path):
    export = tmp_path / "export.json"
    export.write_text(json.dumps([
        {"id": 1, "data": {"item_id": "i", "text": "t", "section_path": "Only heading"},
         "annotations": [_ann("a@x", "C", "2026-01-02T00:00:00"), _ann("a@x", "P", "2026-01-01T00:00:00"),
                         _ann("b@x", "F", "2026-01-01T00:00:00", meta=True)]},
        {"id": 2, "data": {"item_id": 7, "text": "u"}, "annotations": None},
        {"id": 3, "data": None, "annotations": [{"completed_by": 3, "result": None}]},
    ]), encoding="utf-8")
    rows, problems = import_export(export)
    got = {(r["item_id"], r["annotator"]): (r["label"], r["meta"], r["section_path"]) for r in rows}
    assert got == {("i", "a@x"): ("C", False, ["Only heading"]), ("i", "b@x"): ("F", True, ["Only heading"])}
    assert "1 earlier annotations of a task by the same annotator replaced by the latest" in problems
    assert "1 tasks have no annotations" in problems
    assert any("annotation by label-studio:3 has no valid type" in p for p in problems)


def test_label_studio_json_min_export_is_read(tmp_path):
    export = tmp_path / "min.json"
    export.write_text(json.dumps([
        {"id": 1, "item_id": "i", "text": "t", "type": "C", "meta": {"choices": ["meta"]}, "annotator": 4,
         "updated_at": "2026-01-01"},
        {"id": 1, "item_id": "i", "text": "t", "type": "Procedural", "annotator": 5},
    ]), encoding="utf-8")
    rows, problems = import_export(export, users={"4": "a@x"})
    assert problems == ["annotators known only by Label Studio user id (5): recorded as label-studio:<id>; pass "
                        "--users with the server's GET /api/users answer to record their names"]
    assert {(r["annotator"], r["label"], r["meta"], r["text"]) for r in rows} == {("a@x", "C", True, "t"),
                                                                                   ("label-studio:5", "P", False, "t")}


def test_allocation_gives_exactly_what_is_asked_when_enough_exists():
    alloc = allocate({"s0": 4, "s1": 27, "s2": 3, "s3": 2}, 34)
    assert sum(alloc.values()) == 34 and all(alloc[k] <= n for k, n in {"s0": 4, "s1": 27, "s2": 3, "s3": 2}.items())
    even = allocate_even({"big": 500, "mid": 12, "small": 1}, 30)
    assert even == {"big": 17, "mid": 12, "small": 1}
    assert sum(allocate_even({"a": 3, "b": 3, "c": 3}, 7).values()) == 7


def test_agreement_between_files_reads_labels_by_name_and_skips_blank_lines(tmp_path):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_text('{"id": "1", "label": "Constraint"}\n\n{"id": "2", "label": "P"}\n', encoding="utf-8")
    b.write_text('{"id": "1", "label": "C"}\n{"id": "2", "label": "procedural"}\n', encoding="utf-8")
    res = runner.invoke(app, ["annotate", "agreement", "--a", str(a), "--b", str(b)])
    assert res.exit_code == 0 and "n=2 observed=1.000" in res.output


def test_gold_export_keeps_gold_devs_place_fields(corpus, gold_path):
    save(corpus, import_gold_jsonl(gold_path))
    src = {r["id"]: r for r in map(json.loads, open(gold_path, encoding="utf-8"))}
    out = gold_jsonl_rows(gold_rows(corpus))
    assert len(out) == len(src)
    for r in out:
        assert {k: r[k] for k in ("repo", "path", "platform", "line", "text", "label")} == \
               {k: src[r["id"]][k] for k in ("repo", "path", "platform", "line", "text", "label")}


def test_annotations_written_before_the_place_columns_still_make_the_gold_view(corpus):
    """A corpus from before path/platform/line were annotation columns: the view fills them with NULLs."""
    import pyarrow as pa

    old = pa.table({"item_id": ["i", "i"], "annotator": ["A", "B"], "label": ["C", "C"],
                    "round": pa.array([1, 1], pa.int32()), "meta": [False, False],
                    "text": ["Never push to main."] * 2, "section_path": [["Git"], ["Git"]],
                    "kind": ["line", "line"], "repo": ["o/r", "o/r"]})
    import pyarrow.parquet as pq

    corpus.table_dir("annotations").mkdir(parents=True)
    pq.write_table(old, corpus.table_dir("annotations") / "old.parquet")  # as the old schema wrote it
    (g,) = gold_rows(corpus)
    assert (g["label"], g["path"], g["line"]) == ("C", None, None)
    assert adjudicate(corpus, "i", "P") == 1 and gold_rows(corpus)[0]["label"] == "P"


def test_a_json_min_export_with_a_record_without_type_reads_the_others(tmp_path):
    export = tmp_path / "min.json"
    export.write_text(json.dumps([{"id": 1, "item_id": "i", "text": "t", "type": "C", "annotator": 4},
                                  {"id": 2, "item_id": "j", "text": "u", "annotator": 4}]), encoding="utf-8")
    rows, problems = import_export(export)
    assert [(r["item_id"], r["label"]) for r in rows] == [("i", "C")] and problems[0] == "j: annotation by label-studio:4 has no valid type"


def test_label_studio_user_list_names_annotators_of_a_plain_export(tmp_path):
    users = tmp_path / "users.json"  # the shape of Label Studio's GET /api/users answer
    users.write_text(json.dumps([{"id": 1, "email": "a@x", "username": ""}, {"id": 2, "email": "", "username": "b"},
                                 {"id": 3, "email": None}]), encoding="utf-8")
    assert read_users(users) == {"1": "a@x", "2": "b"}
    (tmp_path / "bad.json").write_text('"x"', encoding="utf-8")
    with pytest.raises(ValueError, match="user list"):
        read_users(tmp_path / "bad.json")


def test_an_export_without_the_file_takes_it_from_the_corpus_and_exports_labels_only(tmp_path):
    import pyarrow as pa

    from aac.annotation.formats import labels_only_rows
    from aac.annotation.store import fill_text
    from aac.core.ids import annotated_item_id
    from aac.core.schema import ARTIFACTS, ITEMS
    from aac.core.store import Corpus

    corpus = Corpus(tmp_path / "c")
    corpus.write_part("artifacts", "p", pa.Table.from_pydict(
        {f.name: [{"artifact_id": "a", "repo": "o/r", "path": "AGENTS.md", "platform": "universal"}.get(f.name)]
         for f in ARTIFACTS}, schema=ARTIFACTS))
    corpus.write_part("items", "p", pa.Table.from_pydict(
        {f.name: [{"item_id": "i", "artifact_id": "a", "text": "Never push to main.", "kind": "bullet"}.get(f.name)]
         for f in ITEMS}, schema=ITEMS))
    save(corpus, [_row("i", "A", "C", text="Never push to main.")])  # stored before tasks carried the file
    rows = [{"item_id": "i", "annotator": "B", "label": "C", "round": 1, "text": "Never push to main.", "path": None}]
    assert fill_text(corpus, rows) == [] and (rows[0]["path"], rows[0]["platform"]) == ("AGENTS.md", "universal")
    save(corpus, rows)
    (g,) = gold_rows(corpus)
    assert labels_only_rows([g]) == [{"id": annotated_item_id("Never push to main."), "repo": "o/r",
                                      "path": "AGENTS.md", "label": "C", "annotator": "A", "provenance": "agreed",
                                      "votes": ["C", "C"], "annotators": ["A", "B"]}]
    assert labels_only_rows([{**g, "path": None}]) == []  # nothing to join it back by
