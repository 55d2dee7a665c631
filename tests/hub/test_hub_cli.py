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
    assert res.exit_code == 1 and "a release would overwrite" in " ".join(res.output.split())
    assert corpus.count("artifacts") == before  # nothing touched
    analyst = tmp_path / "analyst"
    pull = ["pull", "--from-folder", str(tmp_path / "hub"), "--corpus", str(analyst)]
    assert runner.invoke(app, pull).exit_code == 0
    assert runner.invoke(app, pull).exit_code == 0  # a pulled corpus left alone takes a newer release
    Corpus(analyst).write_part("annotations", "mine", pa.table({"item_id": ["x"], "annotator": ["me"],
                                                                         "label": ["C"]}))
    res = runner.invoke(app, pull)
    assert res.exit_code == 1 and "annotations added since its pull" in " ".join(res.output.split())
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
