"""A corpus folder works after it is moved, copied or unzipped: its catalog file's views read that folder's own
Parquet files (paths relative to the corpus root), never the original's by absolute path."""

from __future__ import annotations

import shutil
import zipfile

import duckdb
import pyarrow as pa
import pytest
from typer.testing import CliRunner

from aac.cli import app
from aac.core.store import Corpus


def _small_corpus(root, names) -> Corpus:
    c = Corpus(root)
    c.upsert("repos", pa.table({"full_name": names, "stars": list(range(len(names)))}))
    assert c.refresh_catalog() == c.catalog_path
    return c


def _count(con) -> int:
    return con.sql("select count(*) from repos").fetchall()[0][0]


def test_the_catalog_names_no_absolute_path(tmp_path):
    c = _small_corpus(tmp_path / "orig", ["a/b", "c/d"])
    con = duckdb.connect(str(c.catalog_path), read_only=True)
    try:
        sql = con.sql("select sql from duckdb_views() where view_name = 'repos'").fetchall()[0][0]
    finally:
        con.close()
    assert "corpus/repos/*.parquet" in sql and str(tmp_path) not in sql


def test_a_moved_corpus_reads_its_own_files_from_inside_and_with_aac_sql_from_anywhere(tmp_path, monkeypatch):
    _small_corpus(tmp_path / "orig", ["a/b", "c/d"])
    moved = tmp_path / "elsewhere" / "copy"
    moved.parent.mkdir()
    shutil.copytree(tmp_path / "orig", moved)
    Corpus(tmp_path / "orig").upsert("repos", pa.table({"full_name": ["e/f"], "stars": [9]}))  # the original grows
    shutil.rmtree(tmp_path / "orig" / "corpus" / "repos")  # ... and then loses its table: the copy must not care

    monkeypatch.chdir(moved)  # `duckdb aac.duckdb` in the folder
    con = duckdb.connect("aac.duckdb", read_only=True)
    try:
        assert _count(con) == 2
    finally:
        con.close()

    monkeypatch.chdir(tmp_path)  # `aac sql --corpus DIR` from another folder
    r = CliRunner().invoke(app, ["sql", "--corpus", str(moved), "-f", "csv", "select count(*) as n from repos"])
    assert r.exit_code == 0, r.output
    assert r.stdout.split() == ["n", "2"]


def test_a_zipped_and_unzipped_corpus_opens_elsewhere_with_the_documented_search_path(tmp_path, monkeypatch):
    c = _small_corpus(tmp_path / "orig", ["a/b", "c/d", "g/h"])
    archive = shutil.make_archive(str(tmp_path / "shared"), "zip", c.root)
    shutil.rmtree(c.root)
    unzipped = tmp_path / "unzipped"
    zipfile.ZipFile(archive).extractall(unzipped)

    monkeypatch.chdir(tmp_path)  # not inside: the relative paths do not resolve, loudly (never another copy's)
    con = duckdb.connect(str(unzipped / "aac.duckdb"), read_only=True)
    try:
        with pytest.raises(duckdb.IOException):
            _count(con)
        con.execute(f"SET file_search_path = '{unzipped}'")  # docs/sql.md: how to open it from elsewhere
        assert _count(con) == 3
    finally:
        con.close()
