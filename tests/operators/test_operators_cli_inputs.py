"""What `aac compact|decompose|retrieve` do with a user's file that is no text, or holds a secret (issue 27, 3)."""

from __future__ import annotations

import sys

import pytest

from aac import cli

TOKEN = "ghp_" + "Zq7Xw2Lm9Pk4Rt6Yv8Bn1Cd3Fg5Hj0Ks2Ma4"  # a GitHub token's shape, made up
DOC = f"# Deploy\n\nUse the token {TOKEN} to push releases.\n\n- Never push to main.\n"


def _main(monkeypatch, capsys, *args) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "argv", ["aac", *args])
    with pytest.raises(SystemExit) as exit_info:
        cli.main()
    out = capsys.readouterr()
    return exit_info.value.code, out.out, out.err


@pytest.mark.parametrize("command", [["compact", "{f}", "--budget", "0.5"],
                                     ["decompose", "{f}", "-p", "100", "--out", "{d}"],
                                     ["retrieve", "q", "--file", "{f}"]])
def test_binary_file_is_an_input_error(tmp_path, monkeypatch, capsys, command):
    binary = tmp_path / "x.bin"
    binary.write_bytes(bytes(range(256)) * 8)
    args = [a.format(f=binary, d=tmp_path / "parts") for a in command]
    code, out, err = _main(monkeypatch, capsys, *args)
    assert code == 2 and out == ""
    assert err.strip() == f"error: {binary} is not a text file"


def test_a_folder_is_an_input_error(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    code, out, err = _main(monkeypatch, capsys, "compact", ".", "--budget", "0.5")
    assert code == 2 and out == "" and err.strip() == "error: . is a folder; give a file"


def test_a_latin1_file_with_a_few_accents_is_text(tmp_path, monkeypatch, capsys):
    f = tmp_path / "r.md"
    f.write_bytes("# Règles\n\nNever push to main. Café and crème are fine words here.\n".encode("latin-1"))
    code, out, _ = _main(monkeypatch, capsys, "compact", str(f), "--budget", "1.0")
    assert code == 0 and "Never push to main." in out


@pytest.mark.parametrize("command", [["compact", "{f}", "--budget", "1.0"], ["retrieve", "token push", "--file", "{f}"]])
def test_secrets_in_the_users_file_are_redacted_by_default(tmp_path, monkeypatch, capsys, command):
    f = tmp_path / "CLAUDE.md"
    f.write_text(DOC, encoding="utf-8")
    code, out, err = _main(monkeypatch, capsys, *[a.format(f=f) for a in command])
    assert code == 0 and TOKEN not in out and TOKEN not in err
    assert "[REDACTED:github_token]" in out and "redacted 1 secret(s)" in err
    code, out, _ = _main(monkeypatch, capsys, *[a.format(f=f) for a in command], "--keep-secrets")
    assert code == 0 and TOKEN in out


def test_decompose_partitions_are_redacted(tmp_path, monkeypatch, capsys):
    f = tmp_path / "CLAUDE.md"
    f.write_text(DOC, encoding="utf-8")
    code, _, _ = _main(monkeypatch, capsys, "decompose", str(f), "-p", "200", "--out", str(tmp_path / "parts"))
    assert code == 0
    text = "".join(p.read_text(encoding="utf-8") for p in (tmp_path / "parts").glob("partition-*.md"))
    assert TOKEN not in text and "[REDACTED:github_token]" in text
