"""Pass 1's inputs and stored outputs: the raw rows, which of them changed, and the stage rows kept for reuse.

``raw_artifacts`` holds the original content keyed by artifact_id: the crawler's new rows in ``artifacts`` are
merged into it (:func:`stage_raw`), and ``artifacts`` is always *derived* from it, so a re-run recomputes the same
table instead of re-processing redacted output. ``process_stage`` keeps pass 1's row per artifact with its input
key (:meth:`aac.processing.executor.RowExecutor.input_key`) and MinHash signature: a row whose key is unchanged
is reused instead of run through the steps again.
"""

from __future__ import annotations

import logging
import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from aac.core.drop_reasons import CRAWL_DROP_REASONS
from aac.core.store import Corpus
from aac.processing.executor import STAGE_SCHEMA, RowExecutor

log = logging.getLogger(__name__)

INPUT_STATUSES = ("collected", "removed")
_TS = pa.timestamp("us", tz="UTC")


def _crawler_rows(b: pa.RecordBatch) -> pa.Array:
    """Mask of rows written by the crawler (not yet processed)."""
    fresh = pc.is_in(b.column("status"), pa.array(INPUT_STATUSES))
    crawl_dropped = pc.and_(pc.equal(b.column("status"), "dropped"),
                            pc.is_in(b.column("drop_reason"), pa.array([r.value for r in CRAWL_DROP_REASONS])))
    return pc.fill_null(pc.or_(fresh, crawl_dropped), False)


def _as_baseline(b: pa.RecordBatch) -> pa.RecordBatch:
    """Processed rows taken as raw input: a kept or private file with its content is ``collected`` again (pass 1
    judges its content anew); a dropped, removed or content-less private row keeps its status and reason
    (the executor passes such rows through)."""
    status = b.column("status")
    again = pc.fill_null(pc.and_(pc.is_in(status, pa.array(["kept", "private"])), pc.is_valid(b.column("content"))),
                         False)
    return b.set_column(b.schema.get_field_index("status"), "status",
                        pc.if_else(again, pa.scalar("collected"), status))


def stage_raw(corpus: Corpus, batch_size: int = 8192) -> int:
    """Merge the crawler's new rows in ``artifacts`` into ``raw_artifacts`` (new rows win). Returns rows staged.

    Rows of ``artifacts`` that no processing run made from ``raw_artifacts`` - a corpus installed by ``aac pull``
    (a release carries no raw rows), or one whose ``raw_artifacts`` was deleted before it was shared - are
    staged too, as the baseline (:func:`_as_baseline`): otherwise the run would rebuild ``artifacts`` from the
    raw rows alone and lose every one of them, and a refresh of a pulled release would keep only what it
    crawled anew."""
    if not corpus.exists("artifacts"):
        return 0
    raw_ids = set()
    for b in corpus.iter_batches("raw_artifacts", columns=["artifact_id"], batch_size=batch_size):
        raw_ids.update(b.column("artifact_id").to_pylist())
    new_ids: set[str] = set()
    baseline: set[str] = set()
    for b in corpus.iter_batches("artifacts", columns=["artifact_id", "status", "drop_reason"], batch_size=batch_size):
        crawler = _crawler_rows(b)
        new_ids.update(pc.filter(b.column("artifact_id"), crawler).to_pylist())
        baseline.update(a for a in pc.filter(b.column("artifact_id"), pc.invert(crawler)).to_pylist()
                        if a not in raw_ids)
    baseline -= new_ids
    if not new_ids and not baseline:
        return 0
    if baseline:
        log.info("%d processed artifacts have no raw row (a pulled release?): staged as the baseline", len(baseline))
    id_set = pa.array(sorted(new_ids | baseline))
    adopt = pa.array(sorted(baseline))

    def merged() -> Iterator[pa.RecordBatch]:
        for b in corpus.iter_batches("raw_artifacts", batch_size=batch_size):
            keep = pc.invert(pc.is_in(b.column("artifact_id"), id_set))
            yield b.filter(keep)
        for b in corpus.iter_batches("artifacts", batch_size=batch_size):
            yield b.filter(_crawler_rows(b))
            if baseline:
                yield _as_baseline(b.filter(pc.is_in(b.column("artifact_id"), adopt)))

    corpus.replace("raw_artifacts", merged())
    return len(new_ids) + len(baseline)


def repos_lookup(corpus: Corpus) -> dict[str, dict]:
    if not corpus.exists("repos"):
        return {}
    t = corpus.read("repos", columns=["full_name", "stars", "license_spdx", "pushed_at"])
    return {r["full_name"]: r for r in t.to_pylist()}


def write_part(path: Path, tbl: pa.Table) -> None:
    tmp = path.with_name(f".tmp-{uuid.uuid4().hex}")
    pq.write_table(tbl, tmp, compression="zstd")
    os.replace(tmp, path)


def stored_keys(corpus: Corpus, incremental: bool) -> dict[str, str]:
    """artifact_id -> input key of the stored pass-1 rows (empty when not incremental or never processed)."""
    if not incremental or not corpus.exists("process_stage"):
        return {}
    t = corpus.read("process_stage", columns=["artifact_id", "_input_key"])
    return dict(zip(t.column("artifact_id").to_pylist(), t.column("_input_key").to_pylist()))


def changed_batches(corpus: Corpus, executor: RowExecutor, batch_size: int, repos: dict[str, dict],
                    stored: dict[str, str], reuse: set[str]) -> Iterator[tuple[RowExecutor, list[dict], dict]]:
    """Worker inputs for the raw rows whose input key changed since the stored pass-1 row; the ids of the
    unchanged ones are added to ``reuse`` instead."""
    fp = executor.fingerprint()
    for b in corpus.iter_batches("raw_artifacts", batch_size=batch_size):
        todo = []
        for row in b.to_pylist():
            key = executor.input_key(row, repos.get(row["repo"]), fp)
            if stored.get(row["artifact_id"]) == key:
                reuse.add(row["artifact_id"])
            else:
                row["_input_key"] = key
                todo.append(row)
        if todo:
            names = {r["repo"] for r in todo}
            yield executor, todo, {r: repos[r] for r in names if r in repos}


def reused_batches(corpus: Corpus, reuse: set[str], repos: dict[str, dict]) -> Iterator[pa.Table]:
    """The stored pass-1 rows of ``reuse`` (stars and push date refreshed from ``repos``: dedupe ranks by them)."""
    if not reuse:
        return
    ids = pa.array(sorted(reuse))
    for b in corpus.iter_batches("process_stage", batch_size=4096):
        t = pa.Table.from_batches([b]).filter(pc.is_in(b.column("artifact_id"), ids))
        if not t.num_rows:
            continue
        repo_col = t.column("repo").to_pylist()
        t = t.set_column(t.schema.get_field_index("_stars"), "_stars",
                         pa.array([(repos.get(r) or {}).get("stars") for r in repo_col], pa.int64()))
        t = t.set_column(t.schema.get_field_index("_pushed_at"), "_pushed_at",
                         pa.array([(repos.get(r) or {}).get("pushed_at") for r in repo_col], _TS))
        yield t.select(STAGE_SCHEMA.names).cast(STAGE_SCHEMA)
