"""docs/extending.md "Add a Hub config", followed once: a toy config (files per published repository) declared in
the layout gets its own shards, built from publishable rows only."""

from __future__ import annotations

import pyarrow.parquet as pq

from aac.core.store import Corpus
from aac.hub import layout

import hub_corpus_factory as fx

TOY_SQL = ("SELECT a.repo, count(*) AS files FROM artifacts a JOIN verdict v USING (artifact_id) "
           "WHERE v.reason IS NULL GROUP BY a.repo ORDER BY a.repo")


def test_toy_hub_config_is_written_with_publishable_rows_only(tmp_path, monkeypatch):
    selects = layout._selects
    monkeypatch.setattr(layout, "CONFIGS", (*layout.CONFIGS, "repo_files"))
    monkeypatch.setattr(layout, "_selects", lambda: {**selects(), "repo_files": TOY_SQL})

    corpus = fx.build(Corpus(tmp_path / "corpus"))
    report = layout.write_layout(corpus, tmp_path / "hub")

    assert report.files["repo_files"] == ["data/repo_files/train-00000-of-00001.parquet"]
    table = pq.read_table(tmp_path / "hub" / report.files["repo_files"][0])
    published = pq.read_table(tmp_path / "hub" / report.files["artifacts"][0]).column("repo").to_pylist()
    assert sorted(table.column("repo").to_pylist()) == sorted(set(published))
    assert sum(table.column("files").to_pylist()) == report.rows["artifacts"]
    assert report.held_back  # the factory plants rows the verdict holds back: none of them is counted above
