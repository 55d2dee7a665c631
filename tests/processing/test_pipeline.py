import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aac.core.ids import artifact_id
from aac.processing.dedupe import NearDupConfig
from aac.processing.pipeline import ProcessConfig, run
from aac.processing.records import artifacts_from_records, load_records
from aac.core.store import Corpus

REPO_ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def processed_sample(tmp_path_factory):
    from tests.conftest import shared_file

    rows = [json.loads(line) for line in shared_file("agent_configs_sample.jsonl").open()]
    corpus = Corpus(tmp_path_factory.mktemp("sample"))
    load_records(corpus, rows)
    # The sample has no cluster over 3+ repositories; its one cross-repo pair (two projects of one owner sharing an
    # AGENTS.md with ~83% of shingles in common) is a template copy at threshold 0.8 over 2 repositories.
    report = run(corpus, ProcessConfig(template_min_repos=2, near=NearDupConfig(threshold=0.8, num_perm=128)))
    arts = {(r["repo"], r["path"]): r for r in corpus.read("artifacts").to_pylist()}
    return rows, arts, report, corpus


def test_every_sample_file_is_in_artifacts_with_its_platform_or_a_drop_reason(processed_sample):
    rows, arts, report, _ = processed_sample
    assert len(arts) == len(rows) == report.artifacts == 293
    for r in rows:
        a = arts[(r["repo"], r["path"])]
        assert a["platform"] == r["platform"]
        assert a["status"] in ("kept", "private", "dropped")
        assert (a["status"] == "kept") == (a["drop_reason"] is None)


def test_sample_licences_decide_kept_versus_private(processed_sample):
    rows, arts, _, _ = processed_sample
    for r in rows:
        a = arts[(r["repo"], r["path"])]
        if a["status"] == "dropped":
            assert a["drop_reason"] == "exact_duplicate"
        elif r["license_spdx"] in ("MIT", "Apache-2.0", "Unlicense"):
            assert a["status"] == "kept"
        else:
            assert a["status"] == "private" and a["drop_reason"].startswith("license:") and a["content"] is None


def test_sample_tags_fire_on_pinned_files(processed_sample):
    _, arts, _, _ = processed_sample
    assert arts[("Belgian-Coder/treadmill-runner", "GEMINI.md")]["function"] == "pointer"
    assert arts[("3301x2/MaestroNexus", ".cursorrules")]["function"] == "pointer"
    assert arts[("0143g/rubiks-ring", "CLAUDE.md")]["authorship"] == "tool_generated"
    assert arts[("2anki/2anki.net", ".aider.conf.yml")]["function"] == "tool_config"
    # the same AGENTS.md text in two repositories of one owner: a template copy once the cluster spans 2 repos
    for key in [("0000005/DouDouChat", "AGENTS.md"), ("0000005/WeAgentChat", "AGENTS.md")]:
        assert arts[key]["dup_cluster_repos"] == 2 and arts[key]["authorship"] == "template_copy"


def test_generated_template_copies_across_repos_are_tagged_template_copy(tmp_path):
    corpus = Corpus(tmp_path)
    load_records(corpus, _generated(1500, seed=3))
    run(corpus, ProcessConfig(items=False))
    rows = corpus.read("artifacts").to_pylist()
    templ = [r for r in rows if r["authorship"] == "template_copy"]
    assert templ and all(r["dup_cluster_repos"] >= 3 for r in templ)
    assert all(r["authorship"] != "template_copy" for r in rows if (r["dup_cluster_repos"] or 0) < 3)


def test_items_are_written_for_kept_artifacts_only(processed_sample):
    _, arts, report, corpus = processed_sample
    kept = {a["artifact_id"] for a in arts.values() if a["status"] == "kept"}
    item_arts = set(corpus.read("items", columns=["artifact_id"]).column("artifact_id").to_pylist())
    assert item_arts and item_arts <= kept and report.items == corpus.count("items")
    assert corpus.sql("select count(*) n from publishable_artifacts").to_pylist()[0]["n"] == len(kept)


def _generated(n, seed=5):
    from aac.collectors.emulator import generate_snapshot

    return list(generate_snapshot(n, seed))


def test_no_planted_secret_reaches_artifacts_or_items(tmp_path):
    generated = _generated(2000, seed=11)  # ~15 planted secrets; the files around them are only context
    records = [r for r in generated if r.get("_planted")] + [r for r in generated if not r.get("_planted")][:100]
    planted = [p["value"] for r in records for p in r.get("_planted", [])]
    assert len(planted) > 10
    corpus = Corpus(tmp_path)
    load_records(corpus, records)
    run(corpus, ProcessConfig(keep_private=True))
    texts = [t for t in corpus.read("artifacts", columns=["content"]).column("content").to_pylist() if t]
    texts += corpus.read("items", columns=["text"]).column("text").to_pylist()
    blob = "\n".join(texts)
    assert [v for v in planted if v in blob] == []
    assert corpus.sql("select sum(secrets_found) n from artifacts").to_pylist()[0]["n"] >= len(set(planted)) // 2


def test_private_content_is_kept_only_when_asked(tmp_path):
    recs = [{"repo": "a/gpl", "path": "AGENTS.md", "content": "- run make check before pushing\n", "license_spdx": "GPL-3.0"}]
    for keep in (False, True):
        corpus = Corpus(tmp_path / str(keep))
        load_records(corpus, recs)
        run(corpus, ProcessConfig(keep_private=keep))
        row = corpus.read("artifacts").to_pylist()[0]
        assert row["status"] == "private" and row["drop_reason"] == "license:GPL-3.0"
        assert (row["content"] is not None) == keep
        assert corpus.count("items") == (1 if keep else 0)


def _tables(corpus):
    return {t: corpus.sql(f"select * from {t} order by all").to_pylist() for t in ("artifacts", "items", "raw_artifacts")}


def test_rerun_gives_identical_tables_and_new_crawl_rows_are_picked_up(tmp_path):
    corpus = Corpus(tmp_path)
    load_records(corpus, _generated(400))
    run(corpus)
    first = _tables(corpus)
    run(corpus)
    assert _tables(corpus) == first
    load_records(corpus, [{"repo": "new/repo", "path": "CLAUDE.md", "content": "- new rule\n", "license_spdx": "MIT"}])
    run(corpus)
    arts = corpus.read("artifacts")
    assert arts.num_rows == len(first["artifacts"]) + 1
    assert artifact_id("new/repo", "CLAUDE.md") in arts.column("artifact_id").to_pylist()


_CHILD = """
import sys
from aac.core.store import Corpus
from aac.processing.pipeline import ProcessConfig, run
run(Corpus(sys.argv[1]), ProcessConfig(batch_size=50))
"""


def test_process_killed_mid_run_then_rerun_gives_identical_tables(tmp_path):
    records = _generated(800, seed=9)
    victim, clean = Corpus(tmp_path / "victim"), Corpus(tmp_path / "clean")
    for c in (victim, clean):
        load_records(c, records)
    run(clean, ProcessConfig(batch_size=50))
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT))
    proc = subprocess.Popen([sys.executable, "-c", _CHILD, str(victim.root)], env=env, cwd=REPO_ROOT)
    marker = victim.root / "tmp" / "process-stage" / "part-000003.parquet"
    deadline = time.time() + 60
    while not marker.exists() and proc.poll() is None and time.time() < deadline:
        time.sleep(0.02)
    assert proc.poll() is None, "process finished before it could be killed"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    run(victim, ProcessConfig(batch_size=50))
    got, want = _tables(victim), _tables(clean)
    assert got == want
    ids = [r["artifact_id"] for r in got["artifacts"]]
    assert len(ids) == len(set(ids)) == len(records)


_records = st.lists(
    st.tuples(st.sampled_from(["CLAUDE.md", "AGENTS.md", ".cursorrules", ".cursor/rules/a.mdc", "notes.txt"]),
              st.binary(max_size=600), st.sampled_from(["MIT", "GPL-3.0", None])),
    min_size=1, max_size=6,
)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(_records)
def test_random_bytes_never_crash_and_every_artifact_is_accounted_for(tmp_path_factory, recs):
    corpus = Corpus(tmp_path_factory.mktemp("fuzz"))
    records = [{"repo": f"o/r{i}", "path": p, "content": b, "license_spdx": lic} for i, (p, b, lic) in enumerate(recs)]
    load_records(corpus, records)
    report = run(corpus)
    rows = corpus.read("artifacts").to_pylist()
    assert len(rows) == len(records) == report.artifacts
    for r in rows:
        assert r["status"] in ("kept", "private", "dropped")
        assert r["status"] == "kept" or r["drop_reason"]
        assert (r["content"] is not None) == (r["status"] == "kept")


def test_artifacts_from_records_marks_rows_collected_and_detects_license_text():
    arts, repos = artifacts_from_records([{"repo": "o/r", "path": "AGENTS.md", "content": b"- x\n",
                                           "license_text": "Permission is hereby granted, free of charge, to any person obtaining a copy"}])
    a = arts.to_pylist()[0]
    assert a["status"] == "collected" and a["platform"] == "universal" and a["license_spdx"] == "MIT"
    assert repos.to_pylist()[0]["license_source"] == "license_file"


def test_worker_processes_give_the_same_tables_as_one_process(tmp_path):
    records = _generated(300, seed=21)
    one, two = Corpus(tmp_path / "one"), Corpus(tmp_path / "two")
    for c in (one, two):
        load_records(c, records)
    run(one, ProcessConfig(batch_size=40))
    run(two, ProcessConfig(batch_size=40, workers=2))
    assert _tables(one) == _tables(two)


def _classify_workers_seen(_: int) -> str | None:
    return os.environ.get("AAC_CLASSIFY_WORKERS")


def test_process_workers_keep_the_classifier_in_one_process_each():
    from aac.processing.workers import ordered_map

    assert list(ordered_map(_classify_workers_seen, range(3), workers=2)) == ["1", "1", "1"]


def test_a_step_that_raises_on_one_file_drops_that_file_with_a_reason(tmp_path, monkeypatch, caplog):
    from aac.processing import tagging

    real = tagging.tag

    def failing(repo, path, text):
        if path == "CLAUDE.md" and repo == "o/bad":
            raise RuntimeError("tagger bug: sk-secretvalue")
        return real(repo, path, text)

    monkeypatch.setattr(tagging, "tag", failing)
    corpus = Corpus(tmp_path)
    load_records(corpus, [{"repo": "o/bad", "path": "CLAUDE.md", "content": "- Never push to main.\n", "license_spdx": "MIT"},
                          {"repo": "o/good", "path": "CLAUDE.md", "content": "- Run the tests.\n", "license_spdx": "MIT"}])
    run(corpus, ProcessConfig(workers=1))
    arts = {r["repo"]: r for r in corpus.read("artifacts").to_pylist()}
    assert arts["o/bad"]["status"] == "dropped" and arts["o/bad"]["drop_reason"] == "processing_error"
    assert arts["o/bad"]["content"] is None
    assert arts["o/good"]["status"] == "kept"
    assert "o/bad:CLAUDE.md" in caplog.text and "RuntimeError" in caplog.text and "sk-secretvalue" not in caplog.text
