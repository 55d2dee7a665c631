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
    r = CliRunner().invoke(app, ["sql", "--corpus", str(corpus.root), "select * from no_such_table"])
    assert r.exit_code == 2
