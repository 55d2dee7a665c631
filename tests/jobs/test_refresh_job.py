"""The refresh job: one sequence (lock, merge, the process rule) whatever stages the CLI or the flow give it."""

from __future__ import annotations

import pyarrow as pa
import pytest

from aac.core.ids import artifact_id
from aac.core.store import Corpus
from aac.jobs.refresh import RefreshCrawlFailed, RefreshOptions, RefreshStages, merge_stage, refresh

FILES = {("a/x", "CLAUDE.md", "claude"): "- rule one\n- rule two", ("b/y", ".cursorrules", "cursor"): "- cursor rule"}


def _incoming(root) -> Corpus:
    c = Corpus(root)
    c.replace("artifacts", pa.Table.from_pylist([dict(artifact_id=artifact_id(r, p), repo=r, path=p, platform=pl,
                                                      content=text) for (r, p, pl), text in FILES.items()]))
    return c


def test_a_merged_crawl_is_processed_by_the_given_stage_and_reported_as_a_dict(tmp_path):
    incoming = _incoming(tmp_path / "in")
    processed: list[str] = []
    stages = RefreshStages(process=lambda corpus: processed.append(corpus) or {"processed": 2})
    report = refresh(RefreshOptions(corpus=tmp_path / "main", incoming=incoming.root), stages=stages)
    assert (report.version, report.added, report.recorded) == (1, 2, True)
    assert processed == [str(Corpus(tmp_path / "main").root)]
    d = report.to_dict()
    assert d["process"] == {"processed": 2} and d["per_platform"]["claude"]["added"] == 1 and d["crawled_into"] is None


def test_an_unchanged_crawl_runs_no_processing_and_no_process_stage_means_none(tmp_path):
    incoming = _incoming(tmp_path / "in")
    options = RefreshOptions(corpus=tmp_path / "main", incoming=incoming.root, process=False)
    first = refresh(options)
    assert first.added == 2 and first.process is None
    calls: list[str] = []
    again = refresh(RefreshOptions(corpus=tmp_path / "main", incoming=incoming.root),
                    stages=RefreshStages(merge=lambda *a: calls.append("merge") or merge_stage(*a),
                                         process=lambda corpus: calls.append("process") or {}))
    assert not again.recorded and again.unchanged == 2 and calls[0] == "merge"
    # the first run left its rows unprocessed: the rule processes them now even though nothing changed upstream
    assert calls == ["merge", "process"] and again.awaiting == 2


def test_a_failed_crawl_names_the_run_folder_that_keeps_its_progress(tmp_path):
    def failing_crawl(options, settings, folder, source):
        raise ConnectionError("emulator down")

    with pytest.raises(RefreshCrawlFailed) as info:
        refresh(RefreshOptions(corpus=tmp_path / "main", api_url="http://127.0.0.1:9"),
                stages=RefreshStages(crawl=failing_crawl))
    assert info.value.folder.is_dir() and isinstance(info.value.cause, ConnectionError)
