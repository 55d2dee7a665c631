from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from aac.core.store import Corpus, register_view, DERIVED_VIEWS


def test_upsert_twice_replaces_instead_of_duplicating(corpus):
    corpus.upsert("repos", pa.table({"full_name": ["a/b", "c/d"], "stars": [1, 2]}))
    corpus.upsert("repos", pa.table({"full_name": ["a/b", "e/f"], "stars": [5, 3]}))
    rows = corpus.sql("select full_name, stars from repos order by full_name").to_pylist()
    assert rows == [{"full_name": "a/b", "stars": 5}, {"full_name": "c/d", "stars": 2}, {"full_name": "e/f", "stars": 3}]


def test_duplicate_keys_within_one_write_keep_the_last(corpus):
    corpus.upsert("repos", pa.table({"full_name": ["a/b", "a/b"], "stars": [1, 9]}))
    assert corpus.sql("select stars from repos").to_pylist() == [{"stars": 9}]


def test_write_part_with_same_name_replaces(corpus):
    corpus.write_part("crawl_queries", "q1", pa.table({"query_id": ["q1"], "pages_done": [1]}))
    corpus.write_part("crawl_queries", "q1", pa.table({"query_id": ["q1"], "pages_done": [2]}))
    assert corpus.read("crawl_queries").column("pages_done").to_pylist() == [2]


def test_empty_tables_have_typed_views(corpus):
    assert corpus.sql("select count(*) as n from items").to_pylist() == [{"n": 0}]
    cols = corpus.sql("select * from artifacts").column_names
    assert "drop_reason" in cols and "near_dup_of" in cols


def test_unknown_column_is_rejected(corpus):
    with pytest.raises(ValueError, match="not in schema"):
        corpus.upsert("repos", pa.table({"full_name": ["a/b"], "bogus": [1]}))


def test_leftover_temp_files_are_ignored(corpus, monkeypatch):
    corpus.write_part("repos", "p", pa.table({"full_name": ["a/b"]}))
    temps = []
    real_write = pq.write_table
    monkeypatch.setattr(pq, "write_table", lambda table, where, **kw: (temps.append(Path(where)),
                                                                       real_write(table, where, **kw))[1])
    corpus.write_part("repos", "q", pa.table({"full_name": ["c/d"]}))
    monkeypatch.undo()
    # what a writer killed mid-write (or still writing) leaves behind, under the name a writer uses
    (corpus.table_dir("repos") / temps[0].name).write_bytes(b"garbage from a killed writer")
    assert corpus.count("repos") == 2
    corpus.refresh_catalog()
    assert corpus.sql("select count(*) as n from repos").to_pylist() == [{"n": 2}]  # DuckDB's glob skips it too


def test_replace_recovers_when_killed_between_renames(corpus):
    corpus.replace("repos", pa.table({"full_name": ["a/b"]}))
    d = corpus.table_dir("repos")
    d.rename(d.parent / "repos.old-deadbeef")  # the state a kill between the two renames leaves
    assert Corpus(corpus.root).read("repos").column("full_name").to_pylist() == ["a/b"]


def test_catalog_file_has_a_view_per_table(corpus):
    import duckdb

    corpus.upsert("repos", pa.table({"full_name": ["a/b"]}))
    path = corpus.refresh_catalog()
    con = duckdb.connect(str(path), read_only=True)
    names = {r[0] for r in con.execute("select view_name from duckdb_views() where not internal").fetchall()}
    con.close()
    assert {"repos", "artifacts", "items", "crawl_queries", "annotations"} <= names


def test_derived_view_registered_elsewhere_appears(corpus):
    register_view("big_repos_test", "select * from repos where stars > 10")
    try:
        corpus.upsert("repos", pa.table({"full_name": ["a/b", "c/d"], "stars": [1, 20]}))
        assert corpus.sql("select full_name from big_repos_test").to_pylist() == [{"full_name": "c/d"}]
    finally:
        DERIVED_VIEWS.pop("big_repos_test")


def test_a_damaged_catalog_file_is_written_anew(tmp_path, monkeypatch):
    import pyarrow as pa

    from aac.core.store import Corpus

    c = Corpus(tmp_path / "c")
    c.upsert("repos", pa.table({"full_name": ["a/b"], "stars": [1]}))
    c.catalog_path.write_bytes(b"not a database")
    c.refresh_catalog()
    import duckdb

    monkeypatch.chdir(c.root)  # the catalog's views name the folders relative to the corpus root

    con = duckdb.connect(str(c.catalog_path), read_only=True)
    try:
        assert con.sql("select full_name from repos").fetchall() == [("a/b",)]
    finally:
        con.close()


def test_a_catalog_held_open_elsewhere_is_kept_with_the_analysts_tables(tmp_path, caplog, monkeypatch):
    """DuckDB allows one writer: a catalog an analyst has open is left as it is, not deleted as "damaged"."""
    import subprocess
    import sys

    import duckdb
    import pyarrow as pa

    from aac.core.store import Corpus

    c = Corpus(tmp_path / "c")
    c.upsert("repos", pa.table({"full_name": ["a/b"], "stars": [1]}))
    c.refresh_catalog()
    monkeypatch.chdir(c.root)  # the analyst's shell, in the corpus folder
    con = duckdb.connect(str(c.catalog_path))
    con.execute("create table my_notes as select 1 as x")
    try:  # another process (DuckDB's lock is per process) refreshes while the analyst's session holds the file
        code = (f"import pyarrow as pa\nfrom aac.core.store import Corpus\nc = Corpus({str(c.root)!r})\n"
                "c.upsert('repos', pa.table({'full_name': ['c/d'], 'stars': [2]}))\nprint(c.refresh_catalog())")
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
        assert out.stdout.strip() == "None" and "not refreshed" in out.stderr
        assert con.sql("select count(*) from repos").fetchall() == [(2,)]  # its views glob the folders
    finally:
        con.close()
    con = duckdb.connect(str(c.catalog_path), read_only=True)
    try:
        assert con.sql("select x from my_notes").fetchall() == [(1,)]
    finally:
        con.close()


def test_a_damaged_part_leaves_its_table_out_of_the_views_with_a_warning_and_others_queryable(tmp_path, caplog):
    import pyarrow as pa

    from aac.core.store import Corpus

    c = Corpus(tmp_path / "c")
    c.upsert("repos", pa.table({"full_name": ["a/b"], "stars": [1]}))
    c.write_part("items", "part-00000", pa.table({"item_id": ["i"], "artifact_id": ["a"], "ordinal": [0]}))
    damaged = c.table_dir("items") / "part-00000.parquet"
    damaged.write_bytes(damaged.read_bytes()[:40])
    with caplog.at_level("WARNING"):
        assert c.sql("select full_name from repos").to_pylist() == [{"full_name": "a/b"}]
    assert "table items left out of the views: damaged part(s) part-00000.parquet" in caplog.text


def test_check_writable_names_the_corpus_before_any_work(tmp_path, monkeypatch):
    import tempfile

    import pytest

    from aac.core.store import Corpus

    c = Corpus(tmp_path / "c")
    c.check_writable()  # a fresh folder is fine (and made)

    def refuse(*a, **kw):
        raise PermissionError(13, "Read-only file system")

    monkeypatch.setattr(tempfile, "NamedTemporaryFile", refuse)
    with pytest.raises(OSError, match=r"corpus .* cannot be written \(Read-only file system\): nothing was done"):
        c.check_writable()


def _flip_middle(path: Path) -> None:
    """Damage a data page (footer intact): the reader fails mid-scan with a message that names no file."""
    data = bytearray(path.read_bytes())
    for i in range(len(data) // 3, len(data) // 3 + 2000):
        data[i] ^= 0x5A
    path.write_bytes(bytes(data))


def test_a_damaged_part_error_names_the_file_and_the_rerun_that_rewrites_it(tmp_path):
    """Issue 27 item 13: `OSError: Received invalid number of bytes (corrupt data page?)` named no file."""
    from aac.processing.records import artifacts_from_records
    from aac.core.store import DamagedPart

    c = Corpus(tmp_path / "c")
    rows, _ = artifacts_from_records({"repo": f"o/r{i}", "path": "CLAUDE.md", "content": f"- rule {i}\n" * 40}
                                     for i in range(3000))
    c.replace("raw_artifacts", rows)
    part = c.part_files("raw_artifacts")[0]
    _flip_middle(part)
    for read in (lambda: c.read("raw_artifacts"), lambda: list(c.iter_batches("raw_artifacts"))):
        with pytest.raises(DamagedPart) as err:
            read()
        msg = str(err.value)
        assert str(part) in msg and "raw_artifacts" in msg and "`aac process` again: the rerun rewrites" in msg
    part.write_bytes(part.read_bytes()[:100])  # a torn file: its footer is gone
    with pytest.raises(DamagedPart, match="part-00000.parquet"):
        c.count("raw_artifacts")


def test_replace_never_empties_a_table_that_holds_rows_unless_told(corpus):
    """Issue 27 item 4, the class of bug: a derived table rebuilt from an empty source wiped the corpus."""
    from aac.core.store import EmptyRewrite

    corpus.replace("repos", pa.table({"full_name": ["a/b", "c/d"]}))
    with pytest.raises(EmptyRewrite, match="repos .*2 rows"):
        corpus.replace("repos", iter([]))
    with pytest.raises(EmptyRewrite):
        corpus.replace("repos", pa.table({"full_name": pa.array([], pa.string())}))
    assert corpus.count("repos") == 2 and not list(corpus.tables_dir.glob("repos.tmp-*"))
    assert corpus.replace("repos", iter([]), allow_empty=True) == 0
    assert corpus.count("repos") == 0
    assert corpus.replace("repos", iter([])) == 0  # empty over empty is no loss


def test_stale_temps_of_dead_writers_are_removed_and_live_ones_kept(corpus):
    import subprocess
    import sys

    corpus.replace("repos", pa.table({"full_name": ["a/b"]}))
    dead = int(subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                              text=True).stdout)
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        t = corpus.tables_dir
        doomed = [t / f"items.tmp-{dead}-0a", t / "items.tmp-0123abcd", t / f"repos.old-{dead}-1b", t / "items.pull-tmp"]
        for d in doomed:
            d.mkdir()
        partial = corpus.table_dir("repos") / f".tmp-{dead}-2c.partial"
        partial.write_bytes(b"half a part")
        kept = [t / f"items.tmp-{live.pid}-3d", corpus.table_dir("repos") / f".tmp-{live.pid}-4e.partial"]
        kept[0].mkdir()
        kept[1].write_bytes(b"being written")
        assert corpus.remove_stale_temps(held=False) == 3  # without the lock: only the dead pids' own
        assert corpus.remove_stale_temps(held=True) == 2  # with it: the pid-less names too
        assert not any(p.exists() for p in doomed + [partial]) and all(p.exists() for p in kept)
        assert corpus.read("repos").column("full_name").to_pylist() == ["a/b"]
    finally:
        live.kill()
        live.wait()
