"""Incremental processing: a refresh that changes 1 of N files runs pass 1 and itemisation for that file only,
and the tables equal a from-scratch process of the new snapshot."""

from __future__ import annotations

import pyarrow as pa

from aac.collectors.emulator import generate_snapshot
from aac.processing.pipeline import ProcessConfig, run
from aac.processing.records import artifacts_from_records, load_records
from aac.refresh.versioning import apply_refresh
from aac.core.store import Corpus


def _table(corpus: Corpus, name: str, key: str) -> list[dict]:
    return corpus.read(name).sort_by(key).to_pylist()


def test_refresh_of_one_changed_file_processes_exactly_that_row_and_matches_a_full_run(tmp_path):
    records = list(generate_snapshot(150, 21))
    inc = Corpus(tmp_path / "incremental")
    load_records(inc, records)
    first = run(inc)
    assert first.processed == len(records) and first.reused == 0

    arts = {r["artifact_id"]: r for r in inc.read("artifacts").to_pylist()}
    solo = sorted(a for a, r in arts.items() if r["status"] == "kept" and (r["dup_cluster_size"] or 1) == 1)
    target = arts[solo[0]]
    changed = [dict(r, content=r["content"] + "\n- Always run the linter before committing.\n")
               if (r["repo"], r["path"]) == (target["repo"], target["path"]) else r for r in records]

    crawled, repos = artifacts_from_records(changed)
    inc.upsert("repos", repos)
    version = apply_refresh(inc, crawled)
    assert (version.added, version.changed, version.removed) == (0, 1, 0)
    second = run(inc)
    assert second.processed == 1 and second.reused == len(records) - 1
    assert second.items_itemised == 1 and second.items_reused == first.items_itemised - 1

    full = Corpus(tmp_path / "from-scratch")
    load_records(full, changed)
    run(full, ProcessConfig(incremental=False))
    assert _table(inc, "artifacts", "artifact_id") == _table(full, "artifacts", "artifact_id")
    assert _table(inc, "items", "item_id") == _table(full, "items", "item_id")


def test_a_licence_change_of_the_repository_reprocesses_its_artifacts_only(tmp_path):
    records = list(generate_snapshot(60, 4))
    corpus = Corpus(tmp_path)
    load_records(corpus, records)
    run(corpus, ProcessConfig(items=False))
    repo = records[0]["repo"]
    n_repo = sum(r["repo"] == repo for r in records)
    repos = corpus.read("repos").to_pylist()
    for r in repos:
        if r["full_name"] == repo:
            r["license_spdx"] = "GPL-3.0-only" if r["license_spdx"] != "GPL-3.0-only" else "MIT"
    corpus.replace("repos", pa.Table.from_pylist(repos, schema=corpus.read("repos").schema))
    report = run(corpus, ProcessConfig(items=False))
    assert report.processed == n_repo and report.reused == len(records) - n_repo
