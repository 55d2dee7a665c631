"""The process job: the options are the one declaration of a run's parameters; the report is a plain dict."""

from __future__ import annotations

import json

import pytest

from aac.jobs.process import ProcessOptions, process
from aac.processing.records import load_records
from aac.core.store import Corpus


def test_the_process_job_runs_the_pipeline_and_reports_a_json_able_dict(tmp_path):
    corpus = Corpus(tmp_path / "c")
    load_records(corpus, [
        {"repo": "a/x", "path": "CLAUDE.md", "content": "# Rules\n- never push to main\n", "license_spdx": "MIT"},
        {"repo": "b/y", "path": "CLAUDE.md", "content": "- no licence here\n"}])
    d = process(ProcessOptions(corpus.root)).to_dict()
    assert (d["artifacts"], d["kept"]) == (2, 1) and d["items"] >= 1
    assert {s["name"] for s in d["steps"]} and json.loads(json.dumps(d)) == d
    from aac.flows.process import step_count_rows

    rows = {r["step"]: r for r in step_count_rows(d)}  # the flow's per-step table artifact
    assert list(rows)[:3] == ["platform", "normalize", "agent_file"] and rows["dedupe"]["rows"] == 2
    assert rows["license"]["rows"] == 2 and all(r["errors"] == 0 for r in rows.values())


def test_an_unknown_classifier_fails_before_any_work(tmp_path):
    with pytest.raises(KeyError, match="unknown classifier"):
        ProcessOptions(tmp_path, classifier="no-such-model").config()
