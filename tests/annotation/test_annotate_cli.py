"""`aac annotate` commands end to end on the shared dev label files."""

from __future__ import annotations

from typer.testing import CliRunner

from aac.cli import app
from tests.conftest import shared_file

runner = CliRunner()


def test_import_two_annotators_then_agreement_queue_and_adjudication(tmp_path):
    root = str(tmp_path / "c")
    items = str(shared_file("gold_dev_items.jsonl"))
    for who in ("A", "B"):
        res = runner.invoke(app, ["annotate", "import-labels", str(shared_file(f"gold_dev_labels_{who}.jsonl")),
                                  "--annotator", who, "--items", items, "--corpus", root])
        assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["annotate", "agreement", "--corpus", root])
    assert res.exit_code == 0 and "kappa five-class=0.895" in res.output and "C-vs-other=0.820" in res.output
    queue = runner.invoke(app, ["annotate", "queue", "--corpus", root])
    first = queue.output.splitlines()[0]
    assert '"item_id"' in first
    import json

    item_id = json.loads(first)["item_id"]
    assert runner.invoke(app, ["annotate", "adjudicate", item_id, "C", "--corpus", root]).exit_code == 0
    assert item_id not in runner.invoke(app, ["annotate", "queue", "--corpus", root]).output
    bad = runner.invoke(app, ["annotate", "adjudicate", "no-such-item", "C", "--corpus", root])
    assert bad.exit_code == 2
    import duckdb  # plain DuckDB on the catalog file sees the labels and the adjudication

    con = duckdb.connect(str(tmp_path / "c" / "aac.duckdb"), read_only=True)
    try:
        con.execute(f"SET file_search_path = '{tmp_path / 'c'}'")  # its views name the folders relative to it
        assert con.sql("select count(*) from annotations where annotator = 'A'").fetchall()[0][0] > 0
        assert con.sql(f"select label from gold where item_id = '{item_id}'").fetchall() == [("C",)]
    finally:
        con.close()


def test_import_labels_refuses_a_nameless_annotator_and_a_round_below_one(tmp_path):
    labels = str(shared_file("gold_dev_labels_A.jsonl"))
    items = str(shared_file("gold_dev_items.jsonl"))
    root = str(tmp_path / "c")
    res = runner.invoke(app, ["annotate", "import-labels", labels, "--annotator", " ", "--items", items, "--corpus", root])
    assert res.exit_code == 2 and "--annotator needs a name" in res.output
    res = runner.invoke(app, ["annotate", "import-labels", labels, "--annotator", "A", "--items", items, "--corpus", root,
                              "--round", "-1"])
    assert res.exit_code == 2
