"""The `aac publish` / `aac pull` commands end to end through the CLI, offline."""

from __future__ import annotations

from typer.testing import CliRunner

from aac.cli import app
from aac.core.store import Corpus

import hub_corpus_factory as fx


def test_publish_dry_run_then_pull_from_folder_gives_sql_over_the_release(tmp_path):
    corpus = fx.build(Corpus(tmp_path / "c"))
    (corpus.root / "optout.txt").write_text(fx.OPTOUT_TEXT)
    runner = CliRunner()
    res = runner.invoke(app, ["publish", "--corpus", str(corpus.root), "--out", str(tmp_path / "hub"), "--dry-run"])
    assert res.exit_code == 0, res.output
    assert "artifacts=3" in res.output and "opted_out=2" in res.output and "nothing uploaded" in res.output
    res = runner.invoke(app, ["pull", "--from-folder", str(tmp_path / "hub"), "--corpus", str(tmp_path / "analyst")])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["sql", "--corpus", str(tmp_path / "analyst"), "-f", "csv",
                              "SELECT count(*) AS n FROM items"])
    assert res.output.splitlines()[-1] == "8"


def test_publish_without_token_refuses_to_upload(tmp_path, monkeypatch):
    monkeypatch.delenv("HF_TOKEN", raising=False)
    corpus = fx.build(Corpus(tmp_path / "c"))
    res = CliRunner().invoke(app, ["publish", "--corpus", str(corpus.root), "--out", str(tmp_path / "hub"),
                                   "--repo-id", "org/name"])
    assert res.exit_code == 1 and "HF_TOKEN" in " ".join(res.output.split())


def test_bad_optout_line_is_a_clear_error(tmp_path):
    corpus = fx.build(Corpus(tmp_path / "c"))
    bad = tmp_path / "optout.txt"
    bad.write_text("justaname\n")
    res = CliRunner().invoke(app, ["publish", "--corpus", str(corpus.root), "--out", str(tmp_path / "hub"),
                                   "--optout", str(bad)])
    assert res.exit_code == 1 and "line 1" in " ".join(res.output.split())


def test_publish_of_a_corpus_with_nothing_publishable_says_why(tmp_path):
    corpus = fx.build(Corpus(tmp_path / "c"))
    (tmp_path / "all.txt").write_text("acme/*\nzed/*\nleaky/*\ncopyleft/*\nprivate-owner/*\n")
    res = CliRunner().invoke(app, ["publish", "--corpus", str(corpus.root), "--out", str(tmp_path / "hub"),
                                   "--optout", str(tmp_path / "all.txt")])
    assert res.exit_code == 1
    assert "nothing to publish" in " ".join(res.output.split()) and "opted_out=6" in res.output


def test_publish_command_uploads_to_hf_endpoint_without_printing_the_token(tmp_path, monkeypatch):
    from huggingface_hub import constants

    from local_hub import LocalHub

    token = "hf_" + "CliTokenMustNotShow" * 2
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(constants, "HF_HUB_DISABLE_XET", True)
    corpus = fx.build(Corpus(tmp_path / "c"))
    with LocalHub(token) as hub:
        monkeypatch.setenv("HF_TOKEN", token)
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        res = CliRunner().invoke(app, ["publish", "--corpus", str(corpus.root), "--out", str(tmp_path / "hub"),
                                       "--repo-id", "aac-test/cli"])
        assert res.exit_code == 0, res.output
        assert "uploaded" in res.output and token not in res.output
        assert "README.md" in hub.repos["aac-test/cli"].files


def test_pull_refuses_to_overwrite_a_working_corpus_or_labels_added_since_the_last_pull(tmp_path):
    import pyarrow as pa

    corpus = fx.build(Corpus(tmp_path / "c"))
    runner = CliRunner()
    runner.invoke(app, ["publish", "--corpus", str(corpus.root), "--out", str(tmp_path / "hub"), "--dry-run"])
    before = corpus.count("artifacts")
    res = runner.invoke(app, ["pull", "--from-folder", str(tmp_path / "hub"), "--corpus", str(corpus.root)])
    assert res.exit_code == 2 and "a release would overwrite" in " ".join(res.output.split())
    assert corpus.count("artifacts") == before  # nothing touched
    analyst = tmp_path / "analyst"
    pull = ["pull", "--from-folder", str(tmp_path / "hub"), "--corpus", str(analyst)]
    assert runner.invoke(app, pull).exit_code == 0
    assert runner.invoke(app, pull).exit_code == 0  # a pulled corpus left alone takes a newer release
    Corpus(analyst).write_part("annotations", "mine", pa.table({"item_id": ["x"], "annotator": ["me"],
                                                                         "label": ["C"]}))
    res = runner.invoke(app, pull)
    assert res.exit_code == 2 and "annotations added since its pull" in " ".join(res.output.split())
    assert runner.invoke(app, pull + ["--force"]).exit_code == 0
    assert "mine" not in Corpus(analyst).parts("annotations")


def test_a_corpus_pulled_before_the_marker_recorded_its_labels_takes_a_newer_release(tmp_path):
    corpus = fx.build(Corpus(tmp_path / "c"))
    runner = CliRunner()
    runner.invoke(app, ["publish", "--corpus", str(corpus.root), "--out", str(tmp_path / "hub"), "--dry-run"])
    pull = ["pull", "--from-folder", str(tmp_path / "hub"), "--corpus", str(tmp_path / "analyst")]
    assert runner.invoke(app, pull).exit_code == 0
    (tmp_path / "analyst" / ".pulled").write_text(f"{tmp_path / 'hub'}\n", encoding="utf-8")  # the earlier layout
    assert runner.invoke(app, pull).exit_code == 0


def test_publish_refuses_a_non_empty_folder_it_did_not_write_and_force_overwrites(tmp_path):
    """Issue 27 item 9: `--out DIR` replaced the user's README.md and deleted unrelated Parquet files."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    corpus = fx.build(Corpus(tmp_path / "c"))
    mine = tmp_path / "mine"
    (mine / "data" / "sales").mkdir(parents=True)
    (mine / "README.md").write_text("# My project\n")
    pq.write_table(pa.table({"x": [1]}), mine / "data" / "sales" / "q1.parquet")
    runner = CliRunner()
    args = ["publish", "--corpus", str(corpus.root), "--out", str(mine), "--dry-run"]
    res = runner.invoke(app, args)
    assert res.exit_code == 2, res.output
    text = " ".join(res.output.split())
    assert "error:" in text and "not empty" in text and "--force" in text and "README.md" in text
    assert (mine / "README.md").read_text() == "# My project\n" and (mine / "data" / "sales" / "q1.parquet").exists()
    # an earlier publish folder is AAC's own: published again without --force
    hub = tmp_path / "hub"
    assert runner.invoke(app, ["publish", "--corpus", str(corpus.root), "--out", str(hub), "--dry-run"]).exit_code == 0
    assert runner.invoke(app, ["publish", "--corpus", str(corpus.root), "--out", str(hub), "--dry-run"]).exit_code == 0
    (hub / ".aac-publish.json").unlink()  # a folder published before the marker existed is still recognised
    assert runner.invoke(app, ["publish", "--corpus", str(corpus.root), "--out", str(hub), "--dry-run"]).exit_code == 0
    res = runner.invoke(app, args + ["--force"])
    assert res.exit_code == 0, res.output
    assert "AgentArtifactCorpus" in (mine / "README.md").read_text()


def test_raw_artifacts_is_announced_and_never_copied_into_the_publish_folder(tmp_path):
    """Issue 27 item 6: raw_artifacts keeps contents unredacted; publish says so and never writes it out."""
    from aac.processing.pipeline import run
    from aac.processing.records import load_records

    leak = "AKIA" + "Q7PLANTEDRAWKEY1"
    corpus = Corpus(tmp_path / "c")
    load_records(corpus, [{"repo": "acme/web", "path": "CLAUDE.md", "license_spdx": "MIT",
                           "content": f"# Rules\n- Never push to main.\n- Deploy key {leak} lives in CI.\n"},
                          {"repo": "acme/api", "path": "AGENTS.md", "license_spdx": "MIT",
                           "content": "# Setup\n1. Install deps with pnpm.\n2. Run the tests.\n"}])
    run(corpus)
    assert leak in " ".join(corpus.read("raw_artifacts").column("content").to_pylist())  # kept, as documented
    hub = tmp_path / "hub"
    res = CliRunner().invoke(app, ["publish", "--corpus", str(corpus.root), "--out", str(hub), "--dry-run"])
    assert res.exit_code == 0, res.output
    text = " ".join(res.output.split())
    assert "raw_artifacts" in text and "unredacted" in text and "never published" in text
    files = [p for p in hub.rglob("*") if p.is_file()]
    assert files and not any("raw" in p.relative_to(hub).as_posix() for p in files)
    assert not any(leak.encode() in p.read_bytes() for p in files)
    assert {p.parent.name for p in files if p.suffix == ".parquet"} <= {"artifacts", "items", "repos", "annotations"}


def test_pull_needs_a_repo_id_and_its_errors_are_error_lines_with_exit_2(tmp_path, monkeypatch):
    """Issue 27 item 13: no silent default repository; `error:` and exit 2 like every command."""
    monkeypatch.delenv("AAC_HF_REPO_ID", raising=False)
    runner = CliRunner()
    res = runner.invoke(app, ["pull", "--corpus", str(tmp_path / "a")])
    assert res.exit_code == 2 and "--repo-id" in res.output and "error:" in res.output
    assert not (tmp_path / "a").exists()
    import re

    help_text = " ".join(re.sub(r"[│╭╮╰╯─]", " ", runner.invoke(app, ["pull", "--help"]).output).split())
    assert "required unless --from-folder" in help_text
    res = runner.invoke(app, ["pull", "--from-folder", str(tmp_path / "nothing"), "--corpus", str(tmp_path / "a")])
    assert res.exit_code == 2 and "error:" in res.output and "not an AAC release" in " ".join(res.output.split())
