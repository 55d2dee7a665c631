"""The classify flow on Prefect with a local Dask cluster (skips cleanly without the `aac[dask]` extra)."""

from __future__ import annotations

import pyarrow as pa
import pytest

from aac.core.schema import ITEMS

pytest.importorskip("prefect_dask", reason="the dask extra is not installed (pip install 'aac[dask]')")


def _items(n0: int, texts: list[str]) -> pa.Table:
    rows = [{"item_id": f"i{n0 + k}", "artifact_id": "a", "ordinal": k, "text": t, "kind": "bullet", "section_path": []}
            for k, t in enumerate(texts)]
    return pa.Table.from_pydict({f.name: [r.get(f.name) for r in rows] for f in ITEMS}, schema=ITEMS)


def test_dask_runner_retypes_every_part_of_the_items_table(corpus, tmp_path, monkeypatch):
    from prefect.testing.utilities import prefect_test_harness

    from aac.flows.classify import classify_corpus_flow

    monkeypatch.setenv("PREFECT_HOME", str(tmp_path / "prefect-home"))
    corpus.write_part("items", "p0", _items(0, ["Never delete production backups.", "Run make test."]))
    corpus.write_part("items", "p1", _items(2, ["We moved to Vite last week."]))
    with prefect_test_harness(server_startup_timeout=120):
        n = classify_corpus_flow(str(corpus.root), "trained", "dask",
                                 cluster_kwargs={"n_workers": 1, "processes": False, "threads_per_worker": 2})
    assert n == 3
    got = {r["item_id"]: r["type"] for r in corpus.read("items").to_pylist()}
    assert got == {"i0": "C", "i1": "P", "i2": "E"}


def test_unknown_runner_is_rejected():
    from aac.flows.classify import task_runner

    with pytest.raises(ValueError, match="unknown runner"):
        task_runner("spark")
