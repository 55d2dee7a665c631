import json

import pyarrow as pa
from typer.testing import CliRunner

from aac.cli import app


def test_sql_json_and_csv_formats(corpus):
    corpus.upsert("repos", pa.table({"full_name": ["a/b"], "stars": [7]}))
    r = CliRunner().invoke(app, ["sql", "--corpus", str(corpus.root), "--format", "json", "select full_name, stars from repos"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout) == [{"full_name": "a/b", "stars": 7}]
    r = CliRunner().invoke(app, ["sql", "--corpus", str(corpus.root), "-f", "csv", "select stars from repos"])
    assert r.stdout.split() == ["stars", "7"]


def test_sql_error_exits_2_with_message(corpus):
    corpus.root.mkdir(parents=True)
    r = CliRunner().invoke(app, ["sql", "--corpus", str(corpus.root), "select * from no_such_table"])
    assert r.exit_code == 2 and "SQL error" in r.output


def test_sql_refuses_a_missing_corpus_and_an_empty_query(tmp_path):
    r = CliRunner().invoke(app, ["sql", "--corpus", str(tmp_path / "typo"), "select count(*) from artifacts"])
    assert r.exit_code == 2 and "no corpus folder" in r.output and not (tmp_path / "typo").exists()
    r = CliRunner().invoke(app, ["sql", "--corpus", str(tmp_path), "   "])
    assert r.exit_code == 2 and "give a SQL query" in r.output


def test_sql_json_writes_nan_as_null_and_statements_without_rows_pass(tmp_path):
    r = CliRunner().invoke(app, ["sql", "--corpus", str(tmp_path), "-f", "json",
                                 "select 'nan'::double as x, 'inf'::double as y, 1.5::double as z"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout) == [{"x": None, "y": None, "z": 1.5}]
    r = CliRunner().invoke(app, ["sql", "--corpus", str(tmp_path), "-f", "json", "set threads = 1"])
    assert r.exit_code == 0 and json.loads(r.stdout) == []


def test_sql_keeps_repeated_column_names_apart(tmp_path):
    q = "select 1 as x, 2 as x"
    r = CliRunner().invoke(app, ["sql", "--corpus", str(tmp_path), "-f", "csv", q])
    assert r.stdout.split() == ["x,x", "1,2"]
    r = CliRunner().invoke(app, ["sql", "--corpus", str(tmp_path), "-f", "json", q])
    assert json.loads(r.stdout) == [{"x": 1, "x_2": 2}]
    r = CliRunner().invoke(app, ["sql", "--corpus", str(tmp_path), q])
    assert "1" in r.stdout and "2" in r.stdout


def test_sql_csv_writes_lists_and_structs_as_json_and_a_bad_format_fails_before_the_query(tmp_path):
    import csv
    import io

    r = CliRunner().invoke(app, ["sql", "--corpus", str(tmp_path), "-f", "csv",
                                 "select ['Rules', 'Git'] as section_path, {'a': 1} as s"])
    assert r.exit_code == 0, r.output
    header, row = list(csv.reader(io.StringIO(r.stdout)))
    assert json.loads(row[0]) == ["Rules", "Git"] and json.loads(row[1]) == {"a": 1}
    r = CliRunner().invoke(app, ["sql", "--corpus", str(tmp_path), "-f", "xml", "select * from no_such_table"])
    assert r.exit_code == 2 and "unknown format" in r.output and "SQL error" not in r.output
