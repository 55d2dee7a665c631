"""End to end over HTTP: emulator snapshot -> crawl (PyGithub) -> process -> publish / refresh."""

from __future__ import annotations

import pyarrow.parquet as pq
import pytest

from aac.collectors.clock import VirtualClock
from aac.collectors.collect import run_github_crawl
from aac.collectors.emulator.server import EmulatorServer
from aac.core.config import Secret
from aac.hub.layout import CONFIGS
from aac.hub.publish import build_hub_folder
from aac.processing import pipeline
from aac.refresh.versioning import merge_incoming
from aac.core.store import Corpus

import hub_snapshot as snap


def _crawl(emu: EmulatorServer, folder) -> Corpus:
    c = Corpus(folder)
    run_github_crawl(c, emu.url, (Secret("emulator-token"),), clock=VirtualClock())
    return c


@pytest.fixture(scope="module")
def processed(tmp_path_factory):
    root = tmp_path_factory.mktemp("e2e")
    with EmulatorServer(snap.V1, profile="ideal", seed=0) as emu:
        corpus = _crawl(emu, root / "corpus")
    pipeline.run(corpus)
    return corpus, root


def test_publish_of_a_processed_emulator_corpus_loads_every_config_offline(processed):
    corpus, root = processed
    result = build_hub_folder(corpus, root / "hub", repo_id="aac-test/AAC")
    assert set(result.validated_rows) == set(CONFIGS) - {"annotations"}  # nothing annotated in a fresh corpus
    assert result.validated_rows["artifacts"] == 3 and result.validated_rows["items"] > 0


def test_planted_secret_and_gpl_file_from_the_snapshot_never_reach_the_hub_folder(processed):
    corpus, root = processed
    build_hub_folder(corpus, root / "hub2")
    text = "".join(str(pq.read_table(p).to_pylist()) for p in (root / "hub2" / "data").rglob("*.parquet"))
    text += (root / "hub2" / "README.md").read_text()
    assert snap.PLANTED_KEY not in text and snap.GPL_TEXT not in text and "copyleft/app" not in text
    assert "[REDACTED:aws_access_key]" in text  # the file itself is published, redacted


def test_refresh_after_snapshot_change_logs_it_and_stages_only_what_changed(tmp_path):
    main = Corpus(tmp_path / "main")
    with EmulatorServer(snap.V1, profile="ideal", seed=0) as emu:
        v1 = merge_incoming(main, _crawl(emu, tmp_path / "in1"))
        pipeline.run(main)
        emu.load_snapshot(snap.v2())
        v2 = merge_incoming(main, _crawl(emu, tmp_path / "in2"))
    assert (v1.version, v1.added) == (1, 4)
    assert (v2.version, v2.added, v2.changed, v2.removed, v2.unchanged) == (2, 1, 1, 1, 2)
    log = main.sql("SELECT repo, path, change FROM changelog WHERE version = 2 ORDER BY change").to_pylist()
    assert log == [{"repo": "new/repo", "path": "AGENTS.md", "change": "added"},
                   {"repo": "acme/web", "path": "CLAUDE.md", "change": "changed"},
                   {"repo": "zed/tool", "path": ".cursorrules", "change": "removed"}]
    report = pipeline.run(main)
    staged = next(s.rows for s in report.steps if s.name == "stage")
    assert staged == 3  # the added, the changed and the tombstone; the two unchanged files are not re-staged
    rows = {r["repo"] + "/" + r["path"]: r for r in main.sql(
        "SELECT repo, path, status, removed_at FROM artifacts").to_pylist()}
    assert rows["zed/tool/.cursorrules"]["removed_at"] is not None
    assert rows["new/repo/AGENTS.md"]["status"] == "kept"
    published = build_hub_folder(main, tmp_path / "hub")
    got = {(r["repo"], r["path"]) for r in pq.read_table(tmp_path / "hub" / "data" / "artifacts").to_pylist()}
    assert got == {("acme/web", "CLAUDE.md"), ("acme/web", "AGENTS.md"), ("new/repo", "AGENTS.md")}
    assert published.report.held_back.get("removed_upstream") == 1


def test_aac_refresh_command_crawls_merges_and_processes_over_http(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from aac.cli import app

    monkeypatch.setenv("GITHUB_TOKEN", "emulator-token")
    main = tmp_path / "main"
    with EmulatorServer(snap.V1, profile="ideal", seed=0) as emu:
        first = CliRunner().invoke(app, ["refresh", "--corpus", str(main), "--api-url", emu.url])
        emu.load_snapshot(snap.v2())
        second = CliRunner().invoke(app, ["refresh", "--corpus", str(main), "--api-url", emu.url])
    assert first.exit_code == 0 and second.exit_code == 0, first.output + second.output
    assert "version 1: added=4" in first.output
    assert "version 2: added=1 changed=1 removed=1 unchanged=2" in second.output
    assert "processed: 3 artifacts through pass 1 (2 reused)" in second.output  # added + changed + removed
    kept = Corpus(main).sql("SELECT count(*) AS n FROM artifacts WHERE status = 'kept'").column("n")[0].as_py()
    assert kept == 3  # acme/web x2 and new/repo; zed/tool tombstoned, copyleft/app private
