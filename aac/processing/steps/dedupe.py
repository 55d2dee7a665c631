"""Corpus step ``dedupe``: exact copies dropped, near-duplicate clusters recorded (:mod:`aac.processing.dedupe`).

It observes one small metadata row per live artifact and one signature per distinct content, decides once
(order-independent), then applies the decisions column by column to each staged batch."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from aac.core.drop_reasons import DropReason
from aac.processing.dedupe import DEDUPE_SCHEMA, NearDupConfig, dedupe
from aac.processing.steps.base import CorpusStep

_META = ["artifact_id", "repo", "path", "_stars", "_pushed_at", "collected_at", "_publishable", "content_sha256"]
_AS = ["artifact_id", "repo", "path", "stars", "pushed_at", "collected_at", "publishable", "content_sha256"]


class Dedupe(CorpusStep):
    name = "dedupe"
    libraries = ("datasketch", "duckdb", "scipy")
    observes = (*_META, "_signature")

    def __init__(self, near: NearDupConfig = NearDupConfig()) -> None:
        self.near = near
        self._metas: list[pa.Table] = []
        self._sigs: dict[str, np.ndarray] = {}
        self._decisions: pa.Table | None = None
        self._row_of: dict[str, int] = {}

    @classmethod
    def from_config(cls, cfg) -> "Dedupe":
        return cls(cfg.near)

    def parameters(self) -> dict:
        near = self.near
        return {"threshold": near.threshold, "num_perm": near.num_perm, "shingle": near.shingle, "seed": near.seed}

    def observe(self, table: pa.Table) -> None:
        live = table.filter(pc.is_valid(table.column("content_sha256")))
        self._metas.append(live.select(_META))
        shas, sigs = live.column("content_sha256").to_pylist(), live.column("_signature")
        lengths = pc.min_max(pc.list_value_length(sigs)).as_py() if live.num_rows else None
        if sigs.null_count == 0 and lengths and lengths["min"] == lengths["max"]:  # one array, not a list per row
            sigs = pc.list_flatten(sigs).to_numpy(zero_copy_only=False).reshape(len(shas), -1)
        else:
            sigs = sigs.to_pylist()
        for sha, sig in zip(shas, sigs):
            if sha not in self._sigs:  # the first met wins: staged batches come in a fixed order
                self._sigs[sha] = np.asarray(sig, dtype=np.uint32)

    def decide(self) -> int:
        if not self._metas:
            self._decisions = DEDUPE_SCHEMA.empty_table()
            return 0
        meta = pa.concat_tables(self._metas).rename_columns(_AS)
        self._decisions = dedupe(meta, self._sigs, self.near)
        self._row_of = {a: i for i, a in enumerate(self._decisions.column("artifact_id").to_pylist())}
        self._metas, self._sigs = [], {}
        return meta.num_rows

    def apply(self, t: pa.Table) -> pa.Table:
        decisions = self._decisions
        at = pa.array([self._row_of.get(a) for a in t.column("artifact_id").to_pylist()], pa.int64())  # null: none

        def decided(name: str) -> pa.ChunkedArray:
            keep = t.column(name)
            return pc.if_else(pc.is_valid(at), decisions.column(name).take(at).cast(keep.type), keep)

        exact = pc.fill_null(decisions.column("exact_duplicate").take(at), False)
        columns = {name: decided(name) for name in ("near_dup_of", "dup_cluster_size", "dup_cluster_repos")}
        columns["status"] = pc.if_else(exact, pa.scalar("dropped"), t.column("status"))
        columns["drop_reason"] = pc.if_else(exact, pa.scalar(DropReason.EXACT_DUPLICATE.value), t.column("drop_reason"))
        for name, col in columns.items():
            t = t.set_column(t.schema.get_field_index(name), name, col)
        return t
