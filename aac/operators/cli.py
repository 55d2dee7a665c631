"""`aac compact`, `aac decompose`, `aac retrieve` and `aac eval operators`.

Start-up matters (the yardstick calls `aac compact` hundreds of times): everything beyond typer is imported
inside the command functions, and the compact path never touches Prefect, torch or scikit-learn.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import typer


def _parse_budget(value: str) -> float | int:
    try:
        if any(c in value for c in ".eE"):
            v = float(value)
            if not 0 < v <= 1:
                raise ValueError
            return v
        v = int(value)
        if v < 0:
            raise ValueError
        return v
    except ValueError:
        raise typer.BadParameter(f"{value!r}: give a share in (0, 1] like 0.5, or a token count like 2000")


def _kb_from_file(path: Path, classifier: str):
    from aac.operators.ingest import rows_from_file
    from aac.operators.model import KnowledgeBase
    from aac.tokens import count_tokens

    if not path.is_file():
        raise typer.BadParameter(f"no such file: {path}")
    text = path.read_text(encoding="utf-8", errors="replace")
    return KnowledgeBase.from_rows(rows_from_file(path, classifier), source_tokens=count_tokens(text))


def compact(
    file: Path = typer.Argument(..., help="A CLAUDE.md / AGENTS.md / rules / policy file."),
    budget: str = typer.Option(..., "--budget", "-b", help="Share of the file's tokens (0.5) or a token count (2000)."),
    out: Path = typer.Option(None, "--out", "-o", help="Write the compacted text here (default: stdout)."),
    as_json: bool = typer.Option(False, "--json", help="Print the result report as one JSON object."),
    allow_unsafe: bool = typer.Option(False, "--allow-unsafe", help="Exit 0 even when the hard lane does not fit."),
    classifier: str = typer.Option("default", "--classifier", help="Classifier registry name."),
) -> None:
    """Compact a file to a token budget: constraints and procedures verbatim, the rest compressed (TypeCompact)."""
    from aac.operators.compact import type_compact

    kb = _kb_from_file(file, classifier)
    res = type_compact(kb, _parse_budget(budget))
    if not res.unsafe or allow_unsafe:
        if out is not None:
            out.write_text(res.text + ("\n" if res.text else ""), encoding="utf-8")
        elif not as_json:
            sys.stdout.write(res.text + "\n")
    if as_json:
        report = res.as_dict()
        if out is None:
            report["text"] = res.text
        sys.stdout.write(json.dumps(report, ensure_ascii=False) + "\n")
    if res.unsafe:
        typer.echo(f"UNSAFE: {res.reason}; {len(res.dropped)} item(s) not in the output"
                   + ("" if allow_unsafe else " (no output written; --allow-unsafe writes the best effort)"), err=True)
        if not allow_unsafe:
            raise typer.Exit(3)


def register(app: typer.Typer, eval_app: typer.Typer) -> None:
    app.command("compact")(compact)
