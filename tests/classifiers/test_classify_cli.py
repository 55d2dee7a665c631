"""`aac classify --in/--out`, `aac classify --corpus`, `aac classify train` and `aac eval classifiers` end to end."""

from __future__ import annotations

import json

import pyarrow as pa
import pytest
from typer.testing import CliRunner

from aac.cli import app

runner = CliRunner()


def _write(path, rows):
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")


def test_classify_jsonl_adds_type_and_proba_and_keeps_bad_lines(tmp_path):
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    _write(src, [{"id": "a", "text": "Never commit .env files.", "section": ["Security"]},
                 {"id": "b", "text": "Run `pytest -q` to test."},
                 "not json",
                 {"id": "c"}])
    res = runner.invoke(app, ["classify", "--in", str(src), "--out", str(out)])
    assert res.exit_code == 1 and "2 lines of" in " ".join(res.output.split())  # written, but said: not clean
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r.get("id") for r in rows[:2]] == ["a", "b"] and len(rows) == 4
    assert rows[0]["type"] == "C" and set(rows[0]["proba"]) == {"C", "P", "B", "F", "E"}
    assert all(abs(sum(r["proba"].values()) - 1.0) < 1e-9 for r in rows[:2])  # rounded, still a distribution
    assert {"confidence", "abstained"} <= set(rows[0])
    assert rows[2]["type"] is None and "line 3" in rows[2]["error"]
    assert rows[3]["id"] == "c" and rows[3]["type"] is None


def test_classify_jsonl_keeps_undecodable_lines_and_may_write_over_its_input(tmp_path):
    src = tmp_path / "items.jsonl"
    lines = [b"\xef\xbb\xbf" + json.dumps({"id": "bom", "text": "Never push to main."}).encode(),
             json.dumps({"id": "bad", "text": "x"}).encode()[:-3] + b"\xff\"}",
             b'{"id": "lone", "text": "\\ud800 never push"}',
             json.dumps({"id": "ok", "text": "Prefer tabs."}).encode()]
    src.write_bytes(b"\n".join(lines) + b"\n")
    res = runner.invoke(app, ["classify", "--in", str(src), "--out", str(src)])
    assert res.exit_code == 1, res.output  # one undecodable line
    rows = [json.loads(line) for line in src.read_text(encoding="utf-8").splitlines()]
    assert [r.get("id", r.get("line")) for r in rows] == ["bom", 2, "lone", "ok"]
    assert rows[0]["type"] == "C" and rows[2]["text"] == "\ud800 never push" and rows[3]["type"] is not None
    assert rows[1]["type"] is None and "line 2: not UTF-8 (byte 0xff" in rows[1]["error"]
    assert [p.name for p in tmp_path.iterdir()] == ["items.jsonl"]  # no partial file left


def test_classify_refuses_a_folder_or_a_missing_folder(tmp_path):
    src = tmp_path / "in.jsonl"
    _write(src, [{"id": "a", "text": "Prefer tabs."}])
    for args, message in ((["--in", str(tmp_path), "--out", str(tmp_path / "o.jsonl")], "no such file"),
                          (["--in", str(src), "--out", str(tmp_path / "no" / "o.jsonl")], "no such folder"),
                          (["--in", str(src), "--out", str(tmp_path)], "a folder")):
        res = runner.invoke(app, ["classify", *args])
        assert res.exit_code == 2 and message in " ".join(res.output.split())  # rich wraps long paths


def test_classify_with_a_named_variant(tmp_path):
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    _write(src, [{"id": "a", "text": "Prefer tabs."}])
    assert runner.invoke(app, ["classify", "--in", str(src), "--out", str(out), "--classifier", "regex"]).exit_code == 0
    assert json.loads(out.read_text())["classifier"] == "regex"


def test_classify_unknown_variant_exits_with_message(tmp_path):
    src = tmp_path / "in.jsonl"
    _write(src, [{"id": "a", "text": "x"}])
    res = runner.invoke(app, ["classify", "--in", str(src), "--out", str(tmp_path / "o"), "--classifier", "zzz"])
    assert res.exit_code == 2 and "unknown classifier" in res.output


def small_corpus(tmp_path):
    """A corpus folder whose items table holds two untyped items (a constraint and a step)."""
    from aac.core.schema import ITEMS
    from aac.core.store import Corpus

    corpus = Corpus(tmp_path / "small-corpus")
    rows = {f.name: [] for f in ITEMS}
    for i, text in enumerate(["Never delete production data.", "Run make test."]):
        for f in ITEMS:
            rows[f.name].append({"item_id": f"i{i}", "artifact_id": "a", "ordinal": i, "text": text,
                                 "kind": "bullet", "section_path": []}.get(f.name))
    corpus.write_part("items", "p0", pa.Table.from_pydict(rows, schema=ITEMS))
    return corpus.root


def test_classify_corpus_retypes_the_items_table(tmp_path):
    from aac.core.store import Corpus

    corpus = Corpus(small_corpus(tmp_path))
    res = runner.invoke(app, ["classify", "--corpus", str(corpus.root)])
    assert res.exit_code == 0, res.output
    got = {r["item_id"]: r for r in corpus.read("items").to_pylist()}
    assert got["i0"]["type"] == "C" and got["i1"]["type"] == "P" and len(got["i0"]["type_proba"]) == 5
    assert got["i0"]["classifier"] == "trained"


def test_classify_train_writes_a_loadable_model_and_card(tmp_path, phrasing_path):
    out = tmp_path / "model"
    res = runner.invoke(app, ["classify", "train", "--gold", str(phrasing_path), "--out", str(out), "--no-cv"])
    assert res.exit_code == 0, res.output
    card = (out / "trained.md").read_text()
    assert "phrasing_dev.jsonl" in card and "in-sample" in card
    from aac.classifiers.trained import TrainedClassifier
    from aac.classifiers.base import ItemInput

    [p] = TrainedClassifier(out).predict([ItemInput("Never drop the orders table.")])
    assert p.label == "C"


def test_eval_classifiers_prints_every_variant_and_the_paper_figures(tmp_path, gold_path, phrasing_path):
    small = tmp_path / "gold.jsonl"
    small.write_text("".join(open(gold_path, encoding="utf-8").readlines()[:60]))
    res = runner.invoke(app, ["eval", "classifiers", "--gold", str(small), "--phrasing", str(phrasing_path), "--no-cv",
                              "--classifiers", "regex,trained,cascade"])
    assert res.exit_code == 0, res.output
    for word in ("regex", "trained", "cascade", "paper: regex", "paper: safetymargin", "decl."):
        assert word in res.output


def test_eval_classifiers_with_nothing_to_evaluate_or_a_missing_corpus_exits_2(tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    res = runner.invoke(app, ["eval", "classifiers", "--gold", str(empty), "--phrasing", str(empty),
                              "--classifiers", "regex"])
    assert res.exit_code == 2
    res = runner.invoke(app, ["eval", "classifiers", "--corpus", str(tmp_path / "nowhere"), "--classifiers", "regex"])
    assert res.exit_code == 2 and "no corpus folder" in res.output


def test_eval_classifiers_refuses_an_unknown_holdout(gold_path, phrasing_path):
    res = runner.invoke(app, ["eval", "classifiers", "--gold", str(gold_path), "--holdout", "file"])
    assert res.exit_code == 2 and "--holdout must be repo, item or both" in res.output


def test_classify_train_reads_annotated_labels_against_their_sample(tmp_path):
    import json

    from aac.classifiers.datasets import annotated_item_id
    from aac.core.segment import segment

    content = "# Safety\n\n- Never delete the backups bucket.\n- Prefer short commit messages.\n- We deploy on Fridays.\n"
    sample = tmp_path / "sample.jsonl"
    sample.write_text(json.dumps({"repo": "o/r", "path": "AGENTS.md", "content": content}) + "\n")
    labels = tmp_path / "labels.jsonl"
    labels.write_text("".join(json.dumps({"id": annotated_item_id(s.text), "repo": "o/r", "path": "AGENTS.md", "label": lab})
                              + "\n" for s, lab in zip(segment(content, "AGENTS.md"), "CFB")))
    out = tmp_path / "model"
    res = runner.invoke(app, ["classify", "train", "--annotated", str(labels), "--sample", str(sample), "--out", str(out),
                              "--no-cv"])
    assert res.exit_code == 0, res.output
    assert "labels.jsonl: 3 annotated items of sample.jsonl" in (out / "trained.md").read_text()
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"id": "s000000000000", "repo": "o/r", "path": "AGENTS.md", "label": "C"}) + "\n")
    res = runner.invoke(app, ["classify", "train", "--annotated", str(bad), "--sample", str(sample), "--out", str(out)])
    assert res.exit_code == 2 and "match no item" in res.output


def test_classify_train_refuses_a_missing_corpus_folder(tmp_path):
    res = runner.invoke(app, ["classify", "train", "--corpus", str(tmp_path / "nowhere"), "--out", str(tmp_path / "m")])
    assert res.exit_code == 2 and "no corpus folder" in res.output and not (tmp_path / "m").exists()


def test_classify_output_is_json_even_when_an_input_line_holds_nan(tmp_path):
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    src.write_text('{"id": NaN, "text": "Never push to main."}\n')
    assert runner.invoke(app, ["classify", "--in", str(src), "--out", str(out)]).exit_code == 0
    row = json.loads(out.read_text(), parse_constant=lambda c: pytest.fail(f"{c} is not JSON"))
    assert row["id"] is None and row["type"] == "C"


def test_eval_classifiers_says_when_teacher_folds_cannot_apply(tmp_path, gold_path, phrasing_path):
    small = tmp_path / "gold.jsonl"
    small.write_text("".join(open(gold_path, encoding="utf-8").readlines()[:40]))
    res = runner.invoke(app, ["eval", "classifiers", "--gold", str(small), "--phrasing", str(phrasing_path), "--no-cv",
                              "--classifiers", "regex", "--teacher-folds", str(tmp_path / "folds")])
    assert res.exit_code == 0, res.output
    assert "--teacher-folds adds the teacher-cascade" in res.output
    assert not (tmp_path / "folds").exists()  # nothing fine-tuned, nothing cached
