"""Write the Hub layout: ``data/<config>/train-0000i-of-0000n.parquet`` shards of the publishable rows only.

The selection runs in DuckDB over the corpus views so it scales to the full corpus without loading it into
Python; the decision for every artifact (published, or the reason it was held back) is kept as data and
returned, so the card and the run report can say what was left out and why.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

from aac.hub.policy import PERMISSIVE, SECRETS_RE_SQL, OptOut
from aac.core.schema import SCHEMAS
from aac.core.store import Corpus

CONFIGS: tuple[str, ...] = ("artifacts", "items", "repos", "annotations")

# The Hub's viewer refuses row groups above ~286 MiB; stay far below and keep a page index for random access.
ROW_GROUP_BYTES = 32 * 1024 * 1024
SHARD_BYTES = 512 * 1024 * 1024


def _sql_str(s: str) -> str:
    return "'" + s.replace("'", "''") + "'"


@dataclass
class LayoutReport:
    """What was written and what was held back (reason -> artifact count)."""

    rows: dict[str, int] = field(default_factory=dict)
    files: dict[str, list[str]] = field(default_factory=dict)
    held_back: dict[str, int] = field(default_factory=dict)
    labels_of_changed_text: int = 0  # labels of published items held back: the item's text is not what was labelled


def _verdict_sql(allow: frozenset[str], has_publishable_view: bool) -> str:
    """One row per artifact: ``reason`` is NULL when it may be published, else the first rule it fails."""
    allow_list = ", ".join(_sql_str(s) for s in sorted(allow)) or "NULL"
    secret = _sql_str(SECRETS_RE_SQL)
    process_gate = (
        "WHEN a.artifact_id NOT IN (SELECT artifact_id FROM publishable_artifacts) THEN 'not_publishable_per_process'"
        if has_publishable_view
        else ""
    )
    return f"""
    WITH lic AS (SELECT full_name, any_value(license_spdx) AS license_spdx FROM repos GROUP BY full_name),
    dirty_items AS (SELECT DISTINCT artifact_id FROM items WHERE regexp_matches(coalesce(text, ''), {secret}))
    SELECT a.artifact_id, a.repo,
      CASE
        WHEN a.removed_at IS NOT NULL THEN 'removed_upstream'
        WHEN a.status IS DISTINCT FROM 'kept' THEN coalesce(a.drop_reason, 'status_' || coalesce(a.status, 'null'))
        WHEN coalesce(a.license_spdx, lic.license_spdx) IS NULL THEN 'license_unknown'
        WHEN coalesce(a.license_spdx, lic.license_spdx) NOT IN ({allow_list}) THEN 'license_not_permissive'
        WHEN lic.license_spdx IS NOT NULL AND lic.license_spdx NOT IN ({allow_list}) THEN 'repo_license_not_permissive'
        WHEN lower(a.repo) IN (SELECT name FROM optout_repos)
          OR split_part(lower(a.repo), '/', 1) IN (SELECT owner FROM optout_owners) THEN 'opted_out'
        WHEN regexp_matches(coalesce(a.content, ''), {secret}) THEN 'secret_in_content'
        WHEN a.artifact_id IN (SELECT artifact_id FROM dirty_items) THEN 'secret_in_items'
        {process_gate}
        ELSE NULL
      END AS reason
    FROM artifacts a LEFT JOIN lic ON lic.full_name = a.repo
    """


def _selects() -> dict[str, str]:
    """The SQL of each config over the ``verdict`` temp table."""
    return {
        "artifacts": "SELECT a.* FROM artifacts a JOIN verdict v USING (artifact_id) WHERE v.reason IS NULL "
        "ORDER BY a.platform, a.artifact_id",
        "items": "SELECT i.* FROM items i JOIN verdict v USING (artifact_id) WHERE v.reason IS NULL "
        "ORDER BY i.artifact_id, i.ordinal",
        "repos": "SELECT r.* FROM repos r WHERE r.full_name IN (SELECT repo FROM verdict WHERE reason IS NULL) "
        "ORDER BY r.full_name",
        # an annotation's own copy of the text and place may come from any label file: publish the checked item's
        "annotations": "SELECT an.* REPLACE (i.text AS text, i.section_path AS section_path, i.kind AS kind, "
        "a.repo AS repo, a.path AS path, a.platform AS platform, "
        "CASE WHEN an.path IS NOT DISTINCT FROM a.path THEN an.line END AS line) FROM annotations an "
        "JOIN items i USING (item_id) JOIN artifacts a ON a.artifact_id = i.artifact_id "
        "JOIN verdict v ON v.artifact_id = i.artifact_id WHERE v.reason IS NULL "
        f"AND {_LABELLED_TEXT_IS_ITEM_TEXT} ORDER BY an.item_id, an.annotator, an.round",
    }


# An item id is its file and its place in it, so after an upstream edit a stored label can name an item that now
# holds other text: only a label given to the item's present text (up to spacing) is published with it.
_LABELLED_TEXT_IS_ITEM_TEXT = ("(an.text IS NULL OR regexp_replace(trim(an.text), '\\s+', ' ', 'g') = "
                               "regexp_replace(trim(i.text), '\\s+', ' ', 'g'))")


class _ShardWriter:
    """Streams record batches into size-bounded shards with small row groups, named once the count is known."""

    def __init__(self, folder: Path, schema: pa.Schema):
        self.folder, self.schema = folder, schema
        self.tmp_files: list[Path] = []
        self._writer: pq.ParquetWriter | None = None
        self._file_bytes = 0
        self._buf: list[pa.RecordBatch] = []
        self._buf_bytes = 0
        self.rows = 0

    def _open(self) -> pq.ParquetWriter:
        if self._writer is None:
            path = self.folder / f".shard-{len(self.tmp_files):05d}.parquet"
            self.tmp_files.append(path)
            self._writer = pq.ParquetWriter(path, self.schema, compression="zstd", write_page_index=True)
            self._file_bytes = 0
        return self._writer

    def _flush(self) -> None:
        if not self._buf:
            return
        tbl = pa.Table.from_batches(self._buf, schema=self.schema)
        self._open().write_table(tbl, row_group_size=max(1, tbl.num_rows))
        self._file_bytes += self._buf_bytes
        self._buf, self._buf_bytes = [], 0
        if self._file_bytes >= SHARD_BYTES:
            self._writer.close()
            self._writer = None

    def write(self, batch: pa.RecordBatch) -> None:
        # split big batches so one row group never exceeds the budget by much
        per_row = max(1, batch.nbytes // max(1, batch.num_rows))
        step = max(1, ROW_GROUP_BYTES // per_row)
        for off in range(0, batch.num_rows, step):
            piece = batch.slice(off, step)
            self._buf.append(piece)
            self._buf_bytes += piece.nbytes
            self.rows += piece.num_rows
            if self._buf_bytes >= ROW_GROUP_BYTES:
                self._flush()

    def close(self) -> list[Path]:
        self._flush()
        if self._writer is not None:
            self._writer.close()
        # an empty config gets no shard at all: `datasets` cannot load a zero-row split (see
        # card.empty_configs_note), so the card declares no config for it and says so
        n = len(self.tmp_files)
        final = []
        for i, tmp in enumerate(self.tmp_files):
            dest = self.folder / f"train-{i:05d}-of-{n:05d}.parquet"
            os.replace(tmp, dest)
            final.append(dest)
        return final


def _publish_schema(config: str, rel: duckdb.DuckDBPyRelation) -> pa.Schema:
    """The table's declared Arrow schema when the query matches it (keeps list/fixed-size types exact)."""
    declared = SCHEMAS.get(config)
    if declared is not None and list(declared.names) == list(rel.columns):
        return declared
    return rel.limit(0).to_arrow_table().schema


def write_layout(corpus: Corpus, out: Path, optout: OptOut | None = None,
                 allow: frozenset[str] = PERMISSIVE) -> LayoutReport:
    """Replace ``out/data/`` with shards of the publishable rows of every config."""
    optout = optout or OptOut()
    report = LayoutReport()
    data_dir = Path(out) / "data"
    staging = Path(out) / ".data-staging"
    shutil.rmtree(staging, ignore_errors=True)
    con = corpus.connect()
    try:
        con.register("optout_repos", pa.table({"name": pa.array(sorted(optout.repos), pa.string())}))
        con.register("optout_owners", pa.table({"owner": pa.array(sorted(optout.owners), pa.string())}))
        views = {r[0] for r in con.sql("SELECT view_name FROM duckdb_views() WHERE NOT internal").fetchall()}
        con.execute(f"CREATE TEMP TABLE verdict AS {_verdict_sql(allow, 'publishable_artifacts' in views)}")
        held = con.sql("SELECT reason, count(*) FROM verdict WHERE reason IS NOT NULL GROUP BY 1 ORDER BY 1").fetchall()
        report.held_back = {r: n for r, n in held}
        report.labels_of_changed_text = con.sql(
            "SELECT count(*) FROM annotations an JOIN items i USING (item_id) JOIN verdict v USING (artifact_id) "
            f"WHERE v.reason IS NULL AND NOT {_LABELLED_TEXT_IS_ITEM_TEXT}").fetchall()[0][0]
        for config, sql in _selects().items():
            folder = staging / config
            folder.mkdir(parents=True)
            rel = con.sql(sql)
            schema = _publish_schema(config, rel)
            writer = _ShardWriter(folder, schema)
            reader = rel.to_arrow_reader(8192)
            for batch in reader:
                writer.write(batch.cast(schema) if batch.schema != schema else batch)
            files = writer.close()
            report.rows[config] = writer.rows
            report.files[config] = [f"data/{config}/{f.name}" for f in files]
    finally:
        con.close()
    shutil.rmtree(data_dir, ignore_errors=True)
    os.replace(staging, data_dir)
    return report


def summarize(hub_dir: Path) -> dict:
    """Figures for the card, computed by DuckDB over the shards just written (what readers will get)."""
    con = duckdb.connect()
    try:
        for config in CONFIGS:
            folder = Path(hub_dir).resolve() / "data" / config
            if any(folder.glob("*.parquet")):
                sql = f"SELECT * FROM read_parquet({_sql_str(str(folder / '*.parquet'))})"
            else:  # empty config: same columns, no rows
                sql = "SELECT * FROM empty_" + config
                con.register("empty_" + config, SCHEMAS[config].empty_table())
            con.execute(f'CREATE VIEW "{config}" AS {sql}')
        q = lambda s: con.sql(s).fetchall()  # noqa: E731
        return {
            "rows": {c: q(f'SELECT count(*) FROM "{c}"')[0][0] for c in CONFIGS},
            "per_platform": q(
                "SELECT coalesce(a.platform, 'unknown') AS platform, count(DISTINCT a.artifact_id) AS artifacts, "
                "count(i.item_id) AS items, count(DISTINCT a.repo) AS repos "
                "FROM artifacts a LEFT JOIN items i USING (artifact_id) GROUP BY 1 ORDER BY 2 DESC, 1"
            ),
            "per_type": q("SELECT coalesce(type, 'untyped'), count(*) FROM items GROUP BY 1 ORDER BY 1"),
            "per_platform_type": q(
                "SELECT coalesce(a.platform, 'unknown'), coalesce(i.type, 'untyped'), count(*) FROM items i "
                "JOIN artifacts a USING (artifact_id) GROUP BY 1, 2 ORDER BY 1, 2"
            ),
            "licenses": q("SELECT coalesce(license_spdx, 'unknown'), count(*) FROM artifacts GROUP BY 1 ORDER BY 2 DESC, 1"),
            "snapshot": q("SELECT max(collected_at) FROM artifacts")[0][0],
        }
    finally:
        con.close()
