import pytest

from aac.collectors.emulator import EmulatorServer
from aac.core.store import Corpus



@pytest.fixture(scope="module")
def prefect_harness(tmp_path_factory):
    with pytest.MonkeyPatch.context() as mp:  # restored after the module: later tests keep the session's home
        mp.setenv("PREFECT_HOME", str(tmp_path_factory.mktemp("prefect-home")))
        from prefect.testing.utilities import prefect_test_harness

        with prefect_test_harness():
            yield


def test_crawl_flow_runs_a_task_per_platform_and_publishes_a_table_artifact(prefect_harness, sample_path, tmp_path,
                                                                            monkeypatch):
    from prefect.client.orchestration import get_client

    from aac.flows.crawl import crawl

    monkeypatch.setenv("GITHUB_TOKEN", "ghp_flowTestToken_0123456789")
    with EmulatorServer(sample_path, profile="github", seed=7) as srv:
        rows = crawl(api_url=srv.url, corpus=str(tmp_path), platforms=["codeium", "continue"])
    assert [r["platform"] for r in rows] == ["codeium", "continue"]
    assert {r["platform"]: r["files"] for r in rows} == {"codeium": 5, "continue": 34}
    assert all(r["search_requests"] >= 1 for r in rows)
    assert Corpus(tmp_path).count("artifacts") == 39
    with get_client(sync_client=True) as client:
        arts = client.read_artifacts()
    table = [a for a in arts if a.key == "crawl-summary"]
    assert table and "codeium" in str(table[0].data)
    assert "ghp_flowTestToken" not in str(table[0].data)
