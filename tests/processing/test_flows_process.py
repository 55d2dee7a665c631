import os
import subprocess
import sys
from pathlib import Path

import pytest

from aac.core.store import Corpus

REPO_ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_aac_build_runs_crawl_and_process_flows_against_the_emulator(tmp_path):
    """`aac build` in a subprocess (its own ephemeral Prefect server), crawling an emulator served from here."""
    from aac.collectors.emulator import EmulatorServer, generate_snapshot

    records = list(generate_snapshot(120, 8))
    platforms = ("claude", "universal", "cursor")
    env = dict(os.environ, PREFECT_HOME=str(tmp_path / "prefect-home"), GITHUB_TOKEN="flow-test-token",
               PYTHONPATH=str(REPO_ROOT), DO_NOT_TRACK="1", PREFECT_SERVER_ANALYTICS_ENABLED="false",
               PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS="120")
    with EmulatorServer(records, profile="ideal", seed=1) as server:
        args = [sys.executable, "-m", "aac", "build", "--api-url", server.url, "--corpus", str(tmp_path / "data")]
        for p in platforms:
            args += ["-p", p]
        out = subprocess.run(args, env=env, cwd=REPO_ROOT, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "build:" in out.stdout
    corpus = Corpus(tmp_path / "data")
    assert corpus.count("artifacts") == sum(r["platform"] in platforms for r in records)
    assert corpus.count("items") > 0
    assert corpus.sql("select count(*) as n from artifacts where status = 'collected'").to_pylist()[0]["n"] == 0
