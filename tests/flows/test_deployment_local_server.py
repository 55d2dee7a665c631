"""prefect.yaml end to end: a real local Prefect server (127.0.0.1, temp PREFECT_HOME), `prefect deploy --all`,
both deployments run once by a process worker, and the runs publish their figures as Prefect artifacts."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from aac.core.store import Corpus

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "hub"))
import hub_corpus_factory as fx  # noqa: E402
import hub_snapshot as snap  # noqa: E402

REPO_ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def prefect_server(tmp_path_factory):
    home = tmp_path_factory.mktemp("prefect-home")
    port = _free_port()
    env = dict(os.environ, PREFECT_HOME=str(home), DO_NOT_TRACK="1", PREFECT_SERVER_ANALYTICS_ENABLED="false",
               PREFECT_API_URL=f"http://127.0.0.1:{port}/api", PREFECT_SERVER_API_HOST="127.0.0.1",
               PREFECT_UI_ENABLED="false", PREFECT_LOGGING_LEVEL="WARNING",
               # no scheduler: refresh-corpus's weekly cron (Mondays 03:00 UTC) would otherwise put a due run in the
               # pool at that hour, holding the deployment's one concurrency slot while the test's run waits
               PREFECT_SERVER_SERVICES_SCHEDULER_ENABLED="false")
    log = open(home / "server.log", "w")
    proc = subprocess.Popen([sys.executable, "-m", "prefect", "server", "start", "--host", "127.0.0.1", "--port", str(port)],
                            env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 150
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if proc.poll() is not None:
                pytest.fail(f"prefect server exited: {(home / 'server.log').read_text()[-2000:]}")
            time.sleep(0.5)
        else:
            pytest.fail("prefect server did not become healthy within 150 s")
        yield env
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
        log.close()


def _prefect(env, *args, timeout=180) -> str:
    res = subprocess.run([sys.executable, "-m", "prefect", *args], cwd=REPO_ROOT, env=env, capture_output=True,
                         text=True, timeout=timeout)
    assert res.returncode == 0, f"prefect {' '.join(args)} failed:\n{res.stdout[-3000:]}\n{res.stderr[-3000:]}"
    return res.stdout


@pytest.mark.slow
def test_both_deployments_from_prefect_yaml_run_once_on_a_local_server(prefect_server, tmp_path):
    from aac.collectors.emulator.server import EmulatorServer

    env = dict(prefect_server, GITHUB_TOKEN="emulator-token")
    api = env["PREFECT_API_URL"]
    main = Corpus(tmp_path / "main")
    fx.build(Corpus(tmp_path / "pubcorpus"))

    _prefect(env, "work-pool", "create", "aac-process", "--type", "process")
    out = _prefect(env, "--no-prompt", "deploy", "--all")
    assert "refresh-corpus/refresh-corpus" in out and "publish-corpus/publish-corpus" in out
    deployments = httpx.post(f"{api}/deployments/filter", json={}).json()
    refresh = next(d for d in deployments if d["name"] == "refresh-corpus")
    assert [s["schedule"]["cron"] for s in refresh["schedules"]] == ["0 3 * * 1"]

    with EmulatorServer(snap.V1, profile="ideal", seed=0) as emu:
        run_ids = []
        for name, params in (("refresh-corpus/refresh-corpus", {"corpus": main.root, "api_url": emu.url}),
                             ("publish-corpus/publish-corpus", {"corpus": tmp_path / "pubcorpus", "out": tmp_path / "hub"})):
            args = [a for k, v in params.items() for a in ("--param", f"{k}={v}")]
            out = _prefect(env, "deployment", "run", name, *args)
            run_ids.append(re.search(r"UUID: ([0-9a-f-]{36})", out).group(1))
        _prefect(env, "worker", "start", "--pool", "aac-process", "--run-once", timeout=240)
        for rid in run_ids:
            for _ in range(120):
                state = httpx.get(f"{api}/flow_runs/{rid}").json()["state"]["type"]
                if state in ("COMPLETED", "FAILED", "CRASHED", "CANCELLED"):
                    break
                time.sleep(0.5)
            assert state == "COMPLETED", httpx.get(f"{api}/flow_runs/{rid}").json()["state"]

    # refresh: crawled the emulator over HTTP, merged as version 1, processed (secret redacted, GPL held private)
    assert main.sql("SELECT change, count(*) AS n FROM changelog GROUP BY 1").to_pylist() == [{"change": "added", "n": 4}]
    statuses = {r["repo"] + "/" + r["path"]: r["status"] for r in main.sql("SELECT repo, path, status FROM artifacts").to_pylist()}
    assert statuses["acme/web/AGENTS.md"] == "kept" and statuses["copyleft/app/CLAUDE.md"] != "kept"
    assert sorted(p.name for p in (tmp_path / "hub" / "data").iterdir()) == ["annotations", "artifacts", "items", "repos"]
    arts_of_runs = httpx.post(f"{api}/artifacts/filter", json={"artifacts": {"flow_run_id": {"any_": run_ids}}}).json()
    assert {a["key"] for a in arts_of_runs} >= {"refresh-changelog", "refresh-summary", "publish-rows", "publish-summary"}
