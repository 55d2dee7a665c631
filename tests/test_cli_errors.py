"""Bad input to any command ends in one clear line and exit status 2, never a traceback (aac.cli.main)."""

from __future__ import annotations

import sys

import pytest
from typer.testing import CliRunner

from aac import cli


def _main(monkeypatch, capsys, *args) -> tuple[int, str]:
    monkeypatch.setattr(sys, "argv", ["aac", *args])
    with pytest.raises(SystemExit) as exit_info:
        cli.main()
    return exit_info.value.code, " ".join(capsys.readouterr().err.split())


def test_a_missing_file_is_one_line_not_a_traceback(tmp_path, monkeypatch, capsys):
    code, err = _main(monkeypatch, capsys, "eval", "classifiers", "--gold", str(tmp_path / "missing.jsonl"),
                      "--classifiers", "regex", "--no-cv")
    assert code == 2 and err.startswith("error: FileNotFoundError") and "missing.jsonl" in err
    assert "Traceback" not in err


def test_a_bad_line_names_its_place(tmp_path, monkeypatch, capsys):
    gold = tmp_path / "gold.jsonl"
    gold.write_text('{"id": "1", "text": "x", "label": "banana"}\n')
    code, err = _main(monkeypatch, capsys, "eval", "classifiers", "--gold", str(gold), "--classifiers", "regex",
                      "--no-cv")
    assert code == 2 and "gold.jsonl:1: label 'banana'" in err


def test_secrets_are_scrubbed_from_the_line(tmp_path, monkeypatch, capsys):
    token = "ghp_cliErrorTest0123456789abcdefABCDEF"
    monkeypatch.setenv("GITHUB_TOKEN", token)
    code, err = _main(monkeypatch, capsys, "eval", "classifiers", "--gold", str(tmp_path / token),
                      "--classifiers", "regex", "--no-cv")
    assert code == 2 and token not in err and "***" in err


def test_aac_debug_shows_the_traceback(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("AAC_DEBUG", "1")
    monkeypatch.setattr(sys, "argv", ["aac", "eval", "classifiers", "--gold", str(tmp_path / "missing.jsonl"),
                                      "--classifiers", "regex", "--no-cv"])
    with pytest.raises(FileNotFoundError):
        cli.main()


@pytest.mark.parametrize("args, message", [
    (["crawl", "--api-url", "notaurl"], "expected an http:// or https:// URL"),
    (["emulator", "serve", "--snapshot", "x.jsonl", "--port", "99999"], "less than or equal to 65535"),
    (["retrieve", "q", "-k", "-1"], "greater than or equal to 1"),
])
def test_bad_option_values_are_refused_before_work(tmp_path, args, message):
    if args[0] == "crawl":
        args = [*args, "--corpus", str(tmp_path / "c")]
    res = CliRunner().invoke(cli.app, args)
    assert res.exit_code == 2 and message in " ".join(res.output.split())


def test_crawl_refuses_a_file_as_its_corpus(tmp_path):
    f = tmp_path / "not-a-folder"
    f.write_text("x")
    res = CliRunner().invoke(cli.app, ["crawl", "--api-url", "http://127.0.0.1:9", "--corpus", str(f)])
    assert res.exit_code == 2 and "a file, not a folder" in " ".join(res.output.split())


def test_eval_refuses_an_unknown_classifier_before_work():
    res = CliRunner().invoke(cli.app, ["eval", "classifiers", "--classifiers", "regex,bogus", "--no-cv"])
    assert res.exit_code == 2 and "unknown classifier 'bogus'" in " ".join(res.output.split())


def test_a_long_error_stays_on_one_line_of_the_log(tmp_path, monkeypatch, capsys):
    """stderr is a log as often as a terminal: rich must not wrap a message at 80 columns."""
    deep = tmp_path / ("a-rather-long-folder-name-" * 4) / "missing-gold-file.jsonl"
    monkeypatch.setattr(sys, "argv", ["aac", "eval", "classifiers", "--gold", str(deep), "--classifiers", "regex",
                                      "--no-cv"])
    with pytest.raises(SystemExit):
        cli.main()
    lines = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: FileNotFoundError") and len(lines[0]) > 100


def test_one_line_folds_a_multi_line_message():
    assert cli.one_line(ConnectionError("cannot reach\n  https://hub.example\n(retries exhausted)")) == \
        "ConnectionError: cannot reach https://hub.example (retries exhausted)"


@pytest.mark.parametrize("args, says", [
    (["--bogus"], "error: No such option: --bogus (see `aac --help`)"),
    (["demo", "--files", "0"], "error: Invalid value for '--files'"),
    (["sql"], "error: Missing argument 'query'. (see `aac sql --help`)"),
])
def test_a_usage_error_is_one_line_too(monkeypatch, capsys, args, says):
    monkeypatch.setattr(sys, "argv", ["aac", *args])
    with pytest.raises(SystemExit) as exit_info:
        cli.main()
    err = capsys.readouterr().err
    assert exit_info.value.code == 2 and len(err.strip().splitlines()) == 1 and says in " ".join(err.split())


def test_a_command_that_succeeds_or_exits_with_its_own_status_keeps_it(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["aac", "sql", "--corpus", str(tmp_path), "-f", "csv", "select 1 as x"])
    with pytest.raises(SystemExit) as exit_info:
        cli.main()
    assert exit_info.value.code == 0 and capsys.readouterr().out.split() == ["x", "1"]
    monkeypatch.setattr(sys, "argv", ["aac", "sql", "--corpus", str(tmp_path / "nowhere"), "select 1"])
    with pytest.raises(SystemExit) as exit_info:
        cli.main()
    assert exit_info.value.code == 2
