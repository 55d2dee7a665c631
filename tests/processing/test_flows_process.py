import pytest

from aac.store import Corpus


@pytest.fixture(scope="module")
def prefect_harness(tmp_path_factory, monkeypatch_module):
    from prefect.testing.utilities import prefect_test_harness

    monkeypatch_module.setenv("PREFECT_HOME", str(tmp_path_factory.mktemp("prefect-home")))
    with prefect_test_harness(server_startup_timeout=120):
        yield


@pytest.fixture(scope="module")
def monkeypatch_module():
    mp = pytest.MonkeyPatch()
    yield mp
    mp.undo()


@pytest.mark.slow
def test_build_flow_crawls_the_emulator_then_processes(tmp_path, prefect_harness, monkeypatch_module):
    from aac.collectors.emulator import EmulatorServer, generate_snapshot
    from aac.flows.build import build

    monkeypatch_module.setenv("GITHUB_TOKEN", "flow-test-token")
    records = list(generate_snapshot(120, 8))
    with EmulatorServer(records, profile="ideal", seed=1) as server:
        out = build(api_url=server.url, corpus=str(tmp_path), platforms=["claude", "universal", "cursor"])
    corpus = Corpus(tmp_path)
    wanted = sum(r["platform"] in ("claude", "universal", "cursor") for r in records)
    assert out["process"]["artifacts"] == corpus.count("artifacts") == wanted
    assert out["process"]["items"] == corpus.count("items") > 0
    assert {s["name"] for s in out["process"]["steps"]} >= {"stage", "dedupe exact+near", "items+classify"}
