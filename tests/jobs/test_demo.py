import json

from typer.testing import CliRunner

from aac.cli import app
from aac.collectors.emulator import EmulatorServer
from aac.processing.pipeline import ProcessConfig, run
from aac.core.store import Corpus


def test_demo_command_builds_a_corpus_and_prints_the_report(tmp_path):
    out = CliRunner().invoke(app, ["demo", "--files", "150", "--seed", "2", "--corpus", str(tmp_path)])
    assert out.exit_code == 0, out.output
    for part in ("artifacts per platform", "publishable items by type", "drop reasons", "aac sql --corpus"):
        assert part in out.output
    c = Corpus(tmp_path)
    assert c.count("artifacts") >= 140 and c.count("items") > 0
    assert (tmp_path / "aac.duckdb").exists()
    n = c.sql("select count(*) as n from publishable_artifacts").to_pylist()[0]["n"]
    assert 0 < n < c.count("artifacts")
    # the three example queries printed by the demo run as printed
    from aac.jobs.demo import EXAMPLE_QUERIES

    for q in EXAMPLE_QUERIES:
        c.sql(q)


def test_process_command_refuses_an_empty_corpus(tmp_path):
    out = CliRunner().invoke(app, ["process", "--corpus", str(tmp_path)])
    assert out.exit_code == 2


def test_real_sample_through_the_emulator_every_file_accounted_for(tmp_path, sample_path):
    from aac.collectors.collect import run_github_crawl

    rows = [json.loads(line) for line in sample_path.open()]
    corpus = Corpus(tmp_path)
    with EmulatorServer(rows, profile="ideal", seed=1) as server:
        run_github_crawl(corpus, server.url, ["t"], clock=server.clock)
    run(corpus, ProcessConfig(items=False))
    arts = {(a["repo"], a["path"]): a for a in corpus.read("artifacts").to_pylist()}
    for r in rows:
        a = arts[(r["repo"], r["path"])]
        assert a["platform"] == r["platform"]
        assert a["status"] == "kept" or a["drop_reason"], a
    assert len(arts) == len(rows)
