"""Every command prints corpus text, paths and errors literally: Rich never reads them as markup or emoji codes
(`[/bold]` raised, `dict[str, int]` became `dict`, `:x:` an emoji), and `aac sql` never cuts a cell unasked."""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from aac import cli
from aac.cli import app

PACKAGE = Path(cli.__file__).resolve().parents[1]  # aac/
TERMINAL = PACKAGE / "core" / "terminal.py"
TRICKY = ["[/bold]", "dict[str, int]", "[root AGENTS.md](../AGENTS.md)", ":x:", "[red]not red[/red]", "[link=x]y"]


def _sql(*args):
    return CliRunner().invoke(app, ["sql", *args])


def test_sql_table_prints_markup_and_emoji_codes_as_text(tmp_path):
    for text in TRICKY:
        quoted = text.replace("'", "''")
        r = _sql("--corpus", str(tmp_path), f"select '{quoted}' as a, '{quoted}' as \"{quoted}\"")
        assert r.exit_code == 0, r.output
        assert r.stdout.count(text) == 3, (text, r.stdout)  # the header and both cells, as they are
    assert "❌" not in r.stdout


def test_sql_table_wraps_wide_results_instead_of_cutting_them(tmp_path):
    cols = ", ".join(f"repeat('x', 30) || '{i}' as column_number_{i}" for i in range(10))
    r = _sql("--corpus", str(tmp_path), f"select {cols}")
    assert r.exit_code == 0, r.output
    assert "…" not in r.stdout and r.stdout.count("x") == 300  # every character of every cell
    assert all(f"column_number_{i}" in r.stdout for i in range(10))  # headers whole, not squeezed to `col…`
    for i in range(10):  # each cell's tail is on a line of its own column, not one character per line
        assert re.search(rf"x{{6,}}{i}", r.stdout) or re.search(rf"x+{i}", r.stdout)
    lines = [ln for ln in r.stdout.splitlines() if "x" in ln]
    assert len(lines) <= 3 * 2  # at most a couple of wrapped lines per row, never 30 one-letter lines


def test_sql_max_width_cuts_each_cell_with_an_ellipsis(tmp_path):
    r = _sql("--corpus", str(tmp_path), "--max-width", "5", "select repeat('y', 40) as a, 'short' as b")
    assert r.exit_code == 0, r.output
    assert "yyyy…" in r.stdout and r.stdout.count("y") == 4 and "short" in r.stdout


def _main(monkeypatch, capsys, *args) -> tuple[int, str]:
    monkeypatch.setattr(sys, "argv", ["aac", *args])
    with pytest.raises(SystemExit) as exit_info:
        cli.main()
    captured = capsys.readouterr()
    return exit_info.value.code, captured.out + captured.err


@pytest.mark.parametrize("name", ["[/bold]", "a:x:b", "dict[str, int]"])
def test_errors_naming_a_user_path_print_it_literally(tmp_path, monkeypatch, capsys, name):
    missing = tmp_path / name / "corpus"
    code, out = _main(monkeypatch, capsys, "sql", "--corpus", str(missing), "select 1")
    assert code == 2 and str(missing) in out and "Traceback" not in out
    code, out = _main(monkeypatch, capsys, "classify", "--in", str(tmp_path / f"{name}.jsonl"), "--out",
                      str(tmp_path / "out.jsonl"))
    assert code == 2 and f"{name}.jsonl" in out and "Traceback" not in out
    code, out = _main(monkeypatch, capsys, "crawl", "--local", str(tmp_path / name), "--corpus", str(tmp_path / "c"))
    assert code == 2 and str(tmp_path / name) in out and "Traceback" not in out
    code, out = _main(monkeypatch, capsys, "sql", "--corpus", str(tmp_path), f"select * from \"{name}\"")
    assert code == 2 and name in out and "SQL error" in out


def test_the_error_line_of_main_prints_an_exception_literally(tmp_path, monkeypatch, capsys):
    bad = tmp_path / "[/bold]:x:.jsonl"
    code, out = _main(monkeypatch, capsys, "eval", "classifiers", "--gold", str(bad), "--classifiers", "regex",
                      "--no-cv")
    assert code == 2 and "[/bold]:x:.jsonl" in out and out.startswith("error: ")


def _sources():
    return [(p, p.read_text(encoding="utf-8")) for p in sorted(PACKAGE.rglob("*.py"))]


def test_consoles_are_built_only_by_aac_core_terminal():
    """The class of bug: a Console built elsewhere reads markup and emoji codes by default."""
    offenders = []
    for path, src in _sources():
        if path == TERMINAL:
            continue
        for node in ast.walk(ast.parse(src)):
            if isinstance(node, ast.Call):
                f = node.func
                name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
                if name == "Console":
                    offenders.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert offenders == []


def test_no_rich_markup_tags_left_in_messages():
    """With markup off, a `[red]...[/red]` in a message would print its tags: colour goes in `style=`."""
    tag = re.compile(r"\[/?(red|yellow|green|blue|cyan|magenta|bold|dim|italic|underline)\b[^\]]*\]")
    offenders = []
    for path, src in _sources():
        for node in ast.walk(ast.parse(src)):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and tag.search(node.value):
                if path == TERMINAL:  # its docstring names the bug
                    continue
                offenders.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: {node.value[:40]!r}")
    assert offenders == []


def test_progress_columns_print_their_fields_literally():
    """A progress line shows queries, names and paths: its text columns read no markup either."""
    offenders = []
    for path, src in _sources():
        for node in ast.walk(ast.parse(src)):
            if not isinstance(node, ast.Call):
                continue
            f = node.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
            literal = any(k.arg == "markup" and isinstance(k.value, ast.Constant) and k.value.value is False
                          for k in node.keywords)
            if name == "TextColumn" and not literal:
                offenders.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: TextColumn without markup=False")
            if name == "Progress" and any(isinstance(a, (ast.Constant, ast.JoinedStr)) for a in node.args):
                offenders.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: Progress column given as a markup string")
    assert offenders == []
