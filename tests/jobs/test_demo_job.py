"""The demo job's report is a plain, JSON-able dict holding the process report's own dict."""

from __future__ import annotations

import json

from aac.jobs.demo import DemoOptions, demo


def test_the_demo_job_reports_the_crawl_and_the_process_as_one_dict(tmp_path):
    phases: list[str] = []
    r = demo(DemoOptions(tmp_path / "c", files=40, seed=3, profile="ideal"), on_phase=phases.append)
    d = r.to_dict()
    assert phases == ["snapshot", "crawl", "process + classify"]
    assert d["snapshot_files"] == 40 and d["process"]["artifacts"] == r.process.artifacts > 0
    assert json.loads(json.dumps(d)) == d
