"""The build job crawls then processes one corpus; its report is the crawl's per-platform rows and the process
report, as the `build` flow returns them."""

from __future__ import annotations

import json

from aac.core.store import Corpus
from aac.jobs.build import BuildOptions, build


def test_a_build_crawls_then_processes_the_corpus(tmp_path, monkeypatch):
    from aac.collectors.emulator import EmulatorServer, generate_snapshot

    monkeypatch.setenv("GITHUB_TOKEN", "ghp_jobTestToken_0123456789")
    records = list(generate_snapshot(60, 5))
    with EmulatorServer(records, profile="ideal", seed=1) as server:
        report = build(BuildOptions(corpus=tmp_path / "c", api_url=server.url, platforms=("claude", "universal")))
    d = report.to_dict()
    assert json.loads(json.dumps(d)) == d  # what the flow returns: plain JSON
    files = sum(r["platform"] in ("claude", "universal") for r in records)
    assert [r["platform"] for r in d["crawl"]] == ["claude", "universal"]
    assert sum(r["files"] for r in d["crawl"]) == files == d["process"]["artifacts"]
    corpus = Corpus(tmp_path / "c")
    assert corpus.count("items") == d["process"]["items"] > 0
    assert corpus.sql("select count(*) as n from artifacts where status = 'collected'").to_pylist()[0]["n"] == 0
