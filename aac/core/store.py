"""The corpus on disk: one Parquet dataset folder per table plus a DuckDB catalog of views.

Layout under the corpus root (``data/`` by default)::

    corpus/<table>/<part>.parquet   one folder per table, any number of part files
    aac.duckdb                      a view per table (and derived views) over those folders

Writes are atomic (a temp file in the same folder, then ``os.replace``) and idempotent: a part is named by
its caller from stable keys, so writing the same part again replaces it; ``upsert`` merges on the table's
key columns, so re-running a step never duplicates rows. A process killed mid-write (or one writing right
now) leaves at most a ``.tmp-<pid>-*.partial`` file, or a whole-table ``<table>.tmp-<pid>-*`` staging folder,
which neither the part listing nor the views' ``*.parquet`` globs match. Temp names carry the writer's pid, so
:meth:`Corpus.remove_stale_temps` (run whenever a command takes the corpus lock, :mod:`aac.core.corpus_lock`) can
remove those of dead processes at the next run; the next replace of a table also removes its staging folders
once they are an hour old.
"""

from __future__ import annotations

import logging
import os
import shutil
import uuid
from collections.abc import Iterable, Iterator
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq

from aac.core.gold_view import GOLD_SQL
from aac.core.publishable import PUBLISHABLE_ARTIFACTS, PUBLISHABLE_ITEMS
from aac.core.schema import KEYS, SCHEMAS, conform

log = logging.getLogger(__name__)

PARQUET_OPTS = dict(compression="zstd", row_group_size=64_000)

# Derived views: name -> SQL over the table views. Other modules add theirs with ``register_view``.
DERIVED_VIEWS: dict[str, str] = {}


def register_view(name: str, sql: str) -> None:
    """Declare a derived view (e.g. ``publishable_artifacts``) created in every catalog after the table views."""
    DERIVED_VIEWS[name] = sql


def _sql_str(s: str) -> str:
    return "'" + s.replace("'", "''") + "'"


STALE_AFTER_S = 3600.0


def remove_stale_dirs(parent: Path, pattern: str, older_than_s: float = STALE_AFTER_S) -> int:
    """Remove staging folders a killed run left (older than an hour, so a running writer's are never touched)."""
    import time

    n = 0
    for d in parent.glob(pattern):
        try:  # the folder's newest write, its files' included (a writer filling one part file keeps it fresh)
            newest = max([d.stat().st_mtime] + [f.stat().st_mtime for f in d.iterdir()]) if d.is_dir() else None
            if newest is not None and time.time() - newest > older_than_s:
                shutil.rmtree(d, ignore_errors=True)
                n += 1
        except OSError:
            continue
    return n


class EmptyRewrite(ValueError):
    """A whole-table replace would have emptied a table that holds rows (see :meth:`Corpus.replace`)."""


def temp_tag() -> str:
    """The unique part of a temp name: the writer's pid (who owns it) and a random suffix."""
    return f"{os.getpid()}-{uuid.uuid4().hex}"


def temp_owner(name: str) -> int | None:
    """The pid a temp name made by :func:`temp_tag` carries; None for a name of the earlier layout (no pid)."""
    tail = name.split(".tmp-", 1)[-1] if ".tmp-" in name else name.split(".old-", 1)[-1]
    pid = tail.split("-", 1)[0]
    return int(pid) if pid.isdigit() and "-" in tail else None


class Corpus:
    """A corpus folder. Cheap to construct; touches the disk only when asked."""

    def __init__(self, root: str | os.PathLike = "data"):
        self.root = Path(root)
        self.tables_dir = self.root / "corpus"
        self.catalog_path = self.root / "aac.duckdb"

    # ---- paths -------------------------------------------------------------------------------------
    def table_dir(self, table: str) -> Path:
        if not table.replace("_", "").isalnum():
            raise ValueError(f"bad table name: {table!r}")
        return self.tables_dir / table

    def part_files(self, table: str) -> list[Path]:
        self._recover(table)
        d = self.table_dir(table)
        if not d.is_dir():
            return []
        return sorted(p for p in d.glob("*.parquet") if not p.name.startswith("."))

    def parts(self, table: str) -> list[str]:
        return [p.stem for p in self.part_files(table)]

    def exists(self, table: str) -> bool:
        return bool(self.part_files(table))

    def tables(self) -> list[str]:
        if not self.tables_dir.is_dir():
            return []
        return sorted(p.name for p in self.tables_dir.iterdir() if p.is_dir() and "." not in p.name)

    # ---- reading -----------------------------------------------------------------------------------
    def schema(self, table: str) -> pa.Schema | None:
        if table in SCHEMAS:
            return SCHEMAS[table]
        files = self.part_files(table)
        return pq.read_schema(files[0]) if files else None

    def read(self, table: str, columns: list[str] | None = None, filter=None) -> pa.Table:
        """The whole table (all parts), or an empty table with its schema if nothing is written yet."""
        files = self.part_files(table)
        schema = self.schema(table)
        if not files:
            if schema is None:
                raise KeyError(f"no such table: {table}")
            empty = schema.empty_table()
            return empty.select(columns) if columns else empty
        try:
            dataset = ds.dataset([str(f) for f in files], format="parquet", schema=schema)
            return dataset.to_table(columns=columns, filter=filter)
        except (OSError, pa.ArrowException) as exc:
            raise _damaged(table, files, columns, exc) from exc

    def iter_batches(self, table: str, columns: list[str] | None = None, batch_size: int = 8192) -> Iterator[pa.RecordBatch]:
        files = self.part_files(table)
        if not files:
            return
        try:
            dataset = ds.dataset([str(f) for f in files], format="parquet", schema=self.schema(table))
            yield from dataset.to_batches(columns=columns, batch_size=batch_size)
        except (OSError, pa.ArrowException) as exc:
            raise _damaged(table, files, columns, exc) from exc

    def count(self, table: str) -> int:
        files = self.part_files(table)
        try:
            return sum(pq.ParquetFile(f).metadata.num_rows for f in files)
        except (OSError, pa.ArrowException) as exc:
            raise _damaged(table, files, None, exc) from exc

    # ---- writing -----------------------------------------------------------------------------------
    def _prepare(self, table: str, data: pa.Table) -> pa.Table:
        return conform(data, SCHEMAS[table]) if table in SCHEMAS else data

    def write_part(self, table: str, part: str, data: pa.Table) -> Path:
        """Atomically write (or replace) one named part of a table."""
        if not part or "/" in part or part.startswith("."):
            raise ValueError(f"bad part name: {part!r}")
        d = self.table_dir(table)
        d.mkdir(parents=True, exist_ok=True)
        target = d / f"{part}.parquet"
        tmp = d / f".tmp-{temp_tag()}.partial"  # not *.parquet: DuckDB's globs match hidden files too
        try:
            pq.write_table(self._prepare(table, data), tmp, **PARQUET_OPTS)
            os.replace(tmp, target)
        finally:
            tmp.unlink(missing_ok=True)
        return target

    def replace(self, table: str, data: pa.Table | Iterable[pa.RecordBatch | pa.Table], rows_per_file: int = 250_000,
                allow_empty: bool = False) -> int:
        """Atomically replace the whole table with ``data`` (a table or a stream of batches). Returns rows written.

        Replacing a table that holds rows with no rows at all raises :class:`EmptyRewrite` and leaves the table
        as it was, unless ``allow_empty`` says an empty result is a legitimate outcome of the caller's own
        (non-empty) input: a derived table rebuilt from a source that is empty by mistake (a corpus without the
        rows a step reads) must never wipe what is there."""
        final = self.table_dir(table)
        final.parent.mkdir(parents=True, exist_ok=True)
        remove_stale_dirs(final.parent, f"{table}.tmp-*")  # a killed replace's staging folder
        staging = final.parent / f"{table}.tmp-{temp_tag()}"
        staging.mkdir()
        rows = 0
        try:
            chunks = [data] if isinstance(data, pa.Table) else data
            writer: pq.ParquetWriter | None = None
            n_file = in_file = 0
            schema = SCHEMAS.get(table)
            for chunk in chunks:
                tbl = chunk if isinstance(chunk, pa.Table) else pa.Table.from_batches([chunk])
                tbl = self._prepare(table, tbl)
                schema = tbl.schema
                offset = 0
                while offset < tbl.num_rows:
                    if writer is None:
                        writer = pq.ParquetWriter(staging / f"part-{n_file:05d}.parquet", schema, **{k: v for k, v in PARQUET_OPTS.items() if k != "row_group_size"})
                    take = min(rows_per_file - in_file, tbl.num_rows - offset)
                    writer.write_table(tbl.slice(offset, take), row_group_size=PARQUET_OPTS["row_group_size"])
                    offset += take
                    in_file += take
                    rows += take
                    if in_file >= rows_per_file:
                        writer.close()
                        writer, n_file, in_file = None, n_file + 1, 0
            if writer is not None:
                writer.close()
            if rows == 0 and not allow_empty and (held := self.count(table)):
                raise EmptyRewrite(f"refusing to replace table {table} ({held:,} rows) with no rows: what it is "
                                   f"rebuilt from is empty; {self.table_dir(table)} was left as it was")
            if rows == 0 and schema is not None:
                pq.write_table(schema.empty_table(), staging / "part-00000.parquet", **PARQUET_OPTS)
            old = final.parent / f"{table}.old-{temp_tag()}"
            if final.exists():
                os.replace(final, old)
            os.replace(staging, final)
            shutil.rmtree(old, ignore_errors=True)
        finally:
            if staging.exists():
                shutil.rmtree(staging, ignore_errors=True)
        return rows

    def upsert(self, table: str, data: pa.Table, key: tuple[str, ...] | None = None) -> int:
        """Merge ``data`` into ``table`` on its key columns (new rows win; duplicates within ``data``: last wins)."""
        key = key or KEYS[table]
        data = self._prepare(table, data)
        con = duckdb.connect()
        try:
            con.register("new_rows", data)
            keys = ", ".join(f'"{k}"' for k in key)
            dedup_new = (
                f"SELECT * EXCLUDE (_rn) FROM (SELECT *, row_number() OVER (PARTITION BY {keys} ORDER BY _ord DESC) AS _rn "
                f"FROM (SELECT *, row_number() OVER () AS _ord FROM new_rows)) WHERE _rn = 1"
            )
            if self.exists(table):
                con.register("old_rows", self.read(table))
                on = " AND ".join(f'o."{k}" IS NOT DISTINCT FROM n."{k}"' for k in key)
                sql = (
                    f"SELECT o.* FROM old_rows o WHERE NOT EXISTS (SELECT 1 FROM new_rows n WHERE {on}) "
                    f"UNION ALL SELECT * EXCLUDE (_ord) FROM ({dedup_new})"
                )
            else:
                sql = f"SELECT * EXCLUDE (_ord) FROM ({dedup_new})"
            merged = con.sql(sql).to_arrow_table()
        finally:
            con.close()
        return self.replace(table, merged)

    def _recover(self, table: str) -> None:
        """Finish a replace() that was killed between its two renames."""
        final = self.table_dir(table)
        if final.exists() or not self.tables_dir.is_dir():
            return
        olds = sorted(self.tables_dir.glob(f"{table}.old-*"))
        if olds:
            os.replace(olds[-1], final)

    def remove_stale_temps(self, held: bool = True) -> int:
        """Remove what killed writers left in the corpus: ``<table>.tmp-*`` staging folders, ``.tmp-*.partial``
        part files, ``<table>.old-*`` folders of a finished swap, ``<table>.pull-tmp`` folders of a pull and the
        processing stage folder. Returns how many were removed.

        A temp whose name carries a pid that still runs is left alone (unless it is this process's own, of a
        write that no longer runs: ``held`` says the caller holds the corpus lock, so no write of its own is in
        flight). Names without a pid (the earlier layout, or a pull's fixed name) are removed only when
        ``held``: every writer holds the lock, so nobody else is writing them. A swap killed between its two
        renames is finished first (:meth:`_recover`), never undone."""
        if not self.tables_dir.is_dir():
            return 0
        me = os.getpid()

        def stale(name: str) -> bool:
            pid = temp_owner(name)
            if pid is None:
                return held
            if pid == me:
                return held
            return not _pid_alive(pid)

        n = 0
        for entry in sorted(self.tables_dir.iterdir()):
            name = entry.name
            if ".old-" in name:
                table = name.split(".old-", 1)[0]
                if not table.replace("_", "").isalnum():  # not a name a swap makes: not ours to touch
                    continue
                self._recover(table)
                if not entry.exists() or not self.table_dir(table).exists():
                    continue
            elif not (".tmp-" in name or name.endswith(".pull-tmp") or name.startswith(".write-check-")):
                if entry.is_dir() and "." not in name:  # a table folder: its part files being written
                    for f in entry.glob(".tmp-*"):
                        if stale(f.name):
                            f.unlink(missing_ok=True)
                            n += 1
                continue
            if name.startswith(".write-check-") or name.endswith(".pull-tmp"):
                if not held:
                    continue
            elif not stale(name):
                continue
            shutil.rmtree(entry, ignore_errors=True) if entry.is_dir() else entry.unlink(missing_ok=True)
            n += 1
        if held:  # folders of fixed or pid-less names only a lock holder writes: `aac process`, `aac classify`
            for stage in [self.root / "tmp" / "process-stage", *self.root.glob(".classify-staging-*")]:
                if stage.is_dir():
                    shutil.rmtree(stage, ignore_errors=True)
                    n += 1
        return n

    # ---- catalog -----------------------------------------------------------------------------------
    def _view_sql(self, table: str, relative: bool = False) -> str | None:
        """The table's view: its declared columns in order (typed NULLs where parts written before a column existed
        lack it, so views and queries over them keep working), then any other columns the parts hold.

        ``relative``: the parts named relative to the corpus root (``corpus/<table>/*.parquet``), as the catalog
        file stores them, so a moved or copied corpus folder reads its own files (see ``refresh_catalog``)."""
        files = self.part_files(table)
        schema = SCHEMAS.get(table)
        parts = None
        if files:
            folder = self.table_dir(table).relative_to(self.root) if relative else self.table_dir(table).resolve()
            glob = (folder / "*.parquet").as_posix()
            parts = f"SELECT * FROM read_parquet({_sql_str(glob)}, union_by_name = true)"
        if schema is None:
            return parts
        rel = duckdb.from_arrow(schema.empty_table())
        cols = ", ".join(f'CAST(NULL AS {t}) AS "{n}"' for n, t in zip(rel.columns, rel.types))
        declared = f"SELECT {cols} WHERE false"
        return declared if parts is None else f"{declared} UNION ALL BY NAME {parts}"

    def create_views(self, con: duckdb.DuckDBPyConnection, relative: bool = False) -> list[str]:
        """A view per table (and the derived views) on ``con``; ``relative``: over paths relative to the corpus root,
        which ``con`` must then resolve (its ``file_search_path`` set to the root)."""
        names = []
        for table in sorted(set(SCHEMAS) | set(self.tables())):
            sql = self._view_sql(table, relative)
            if sql is None:
                continue
            try:
                con.execute(f'CREATE OR REPLACE VIEW "{table}" AS {sql}')
            except duckdb.Error as exc:  # one damaged part must not stop queries on every other table
                bad = [p.name for p in self.part_files(table) if not _readable_parquet(p)]
                log.warning("table %s left out of the views: %s", table,
                            f"damaged part(s) {', '.join(bad)} in {self.table_dir(table)}" if bad
                            else str(exc).splitlines()[0][:200])
                continue
            names.append(table)
        for name, sql in DERIVED_VIEWS.items():
            try:
                con.execute(f'CREATE OR REPLACE VIEW "{name}" AS {sql}')
                names.append(name)
            except duckdb.Error:
                # a derived view over a table whose columns are not there yet: skip, it appears once they are
                continue
        return names

    def check_writable(self) -> None:
        """Raise a clear OSError now when the corpus cannot be written (a read-only mount, no permission),
        before a long step (a crawl spending search quota) would find out at its first write."""
        import tempfile

        try:
            self.tables_dir.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile(dir=self.tables_dir, prefix=".write-check-"):
                pass
        except OSError as exc:
            raise OSError(f"corpus {self.root} cannot be written ({exc.strerror or exc}): nothing was done") from exc

    def refresh_catalog(self) -> Path | None:
        """(Re)write the DuckDB catalog file so analysts can ``duckdb data/aac.duckdb`` directly; returns its path,
        or None when it could not be written.

        The Parquet folders are the data and the catalog only views over them, so this is best effort: a catalog
        another process holds open (DuckDB allows one writer; an analyst's shell is one) or a folder the user
        cannot write is left as it is, with a warning, never deleted and never a failure of the command that
        wrote the data. Views are replaced in place, so tables an analyst made in the file stay. Only a file
        that is not a DuckDB database at all is made anew.

        The views name the Parquet folders relative to the corpus root (``corpus/items/*.parquet``), never by
        absolute path: DuckDB resolves them against its working folder or its ``file_search_path`` (a setting the
        file does not keep), so ``duckdb aac.duckdb`` run inside the folder reads that folder's own files wherever
        it was moved, copied or unzipped, and fails loudly rather than reading another copy's."""
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            con = _open_catalog(self.catalog_path)
            try:
                con.execute(f"SET file_search_path = {_sql_str(str(self.root.resolve()))}")
                self.create_views(con, relative=True)
            finally:
                con.close()
        except (duckdb.Error, OSError) as exc:
            log.warning("catalog %s not refreshed, left as it was (%s); `aac sql` reads the tables directly",
                        self.catalog_path, str(exc).splitlines()[0][:200])
            return None
        return self.catalog_path

    def connect(self) -> duckdb.DuckDBPyConnection:
        """An in-memory DuckDB connection with every view registered (never locks the catalog file)."""
        con = duckdb.connect()
        self.create_views(con)
        return con

    def sql(self, query: str) -> pa.Table:
        con = self.connect()
        try:
            result = con.sql(query)
            return pa.table({}) if result is None else result.to_arrow_table()  # None: a statement without rows
        finally:
            con.close()


class DamagedPart(OSError):
    """A Parquet part of a table cannot be read; the message names the file and how to get it rewritten."""


# Tables a rerun rebuilds whole once a damaged part is moved away: ``aac process`` derives them (raw rows it
# lost are taken from the processed ``artifacts`` as the baseline, see aac.processing.staging.stage_raw).
REWRITTEN_BY = {"artifacts": "aac process", "items": "aac process", "process_stage": "aac process",
                "raw_artifacts": "aac process"}


def _damaged(table: str, files: list[Path], columns: list[str] | None, exc: BaseException) -> BaseException:
    """The error to raise for a table that failed to read: names the damaged part (found by reading each part
    on its own: only on this error path) and says that a rerun rewrites it; ``exc`` itself when every part
    reads fine alone (the failure is not a damaged file)."""
    bad = None
    for f in files:
        try:
            pf = pq.ParquetFile(f)
            pf.read(columns=[c for c in columns if c in pf.schema_arrow.names] if columns else None)
        except (OSError, pa.ArrowException):
            bad = f
            break
    if bad is None:
        return exc
    reason = " ".join(str(exc).split())
    if str(bad) in reason:
        reason = "not a readable Parquet file"
    rerun = REWRITTEN_BY.get(table)
    advice = (f"move it out of the folder and run `{rerun}` again: the rerun rewrites the table" if rerun else
              "restore it from a copy, or move it out of the folder to use the table's other parts")
    return DamagedPart(f"damaged Parquet part {bad} of table {table} ({reason[:160]}); {advice}")


def _pid_alive(pid: int) -> bool:
    from aac.core.corpus_lock import pid_alive

    return pid_alive(pid)


def _readable_parquet(path: Path) -> bool:
    try:
        pq.read_metadata(path)
        return True
    except Exception:  # noqa: BLE001 - any failure to read the footer means the part is damaged
        return False


def _open_catalog(path: Path) -> duckdb.DuckDBPyConnection:
    """A read-write connection to the catalog file; a file that is not a DuckDB database is replaced (it holds
    only views), anything else - another process's lock above all - is raised to the caller."""
    try:
        return duckdb.connect(str(path))
    except duckdb.IOException as exc:
        if not path.is_file() or "not a valid DuckDB database" not in str(exc):
            raise
        log.warning("%s is not a DuckDB database; writing the catalog anew", path)
        path.unlink()
        return duckdb.connect(str(path))


# Derived views declared as SQL data (the ``gold`` labels, the ``publishable_*`` sets), registered here so that every
# catalog, whoever opens it, has them.
register_view("gold", GOLD_SQL)
register_view("publishable_artifacts", PUBLISHABLE_ARTIFACTS)
register_view("publishable_items", PUBLISHABLE_ITEMS)
