"""The `aac` command line: one Typer app; each area of the package registers its own commands.

The top layer, beside ``aac.flows``: stage packages never import it. Area modules (``aac/cli/<area>.py``) expose ``register(app, eval_app)`` and import their heavy
dependencies (Prefect, torch, PyGithub, ...) inside the command functions, so that ``aac --help`` and
quick commands such as ``aac compact`` start fast.
"""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path

import typer

from aac.core.config import Settings
from aac.core.errors import AacError, InputError
from aac.core.jsonsafe import finite
from aac.core.terminal import plain_console

app = typer.Typer(help="AgentArtifactCorpus: crawl, process, type and publish AI coding-agent configuration files.",
                  no_args_is_help=True, pretty_exceptions_show_locals=False)
eval_app = typer.Typer(help="Evaluate classifiers and operators against the dev data and the paper's figures.",
                       no_args_is_help=True)
app.add_typer(eval_app, name="eval")

console = plain_console(stderr=True, soft_wrap=True)  # a message stays one line in logs, whatever the width


def one_line(exc: BaseException) -> str:
    """An exception as one line (type and message, whitespace folded): what every command's error output is."""
    text = str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)
    return f"{type(exc).__name__}: {' '.join(text.split()) or 'no message'}"


def _corpus_option():
    from aac.cli.options import typer_parameter
    from aac.jobs.options import corpus_option, declared

    return typer_parameter(declared("corpus", Path, corpus_option())).default


CorpusOpt = _corpus_option()  # the jobs' --corpus, for the commands that run no job (sql, pull, annotate, ...)

# Each area's command module; adding an area is one line.
AREAS: tuple[str, ...] = (
    "aac.cli.emulator",
    "aac.cli.classifiers",
    "aac.cli.collectors",
    "aac.cli.processing",
    "aac.cli.operators",
    "aac.cli.hub",
    "aac.cli.hooks",
)


@app.command()
def sql(
    query: str = typer.Argument(..., help="SQL over the views artifacts, items, repos, crawl_queries, annotations, ..."),
    corpus: Path = CorpusOpt,
    format: str = typer.Option("table", "--format", "-f", help="table | csv | json"),
    limit: int = typer.Option(0, "--limit", min=0, help="Show at most this many rows in table format (0 = all)."),
    max_width: int = typer.Option(0, "--max-width", min=0,
                                  help="Cut each cell to this many characters in table format (0 = whole cells, "
                                       "wrapped)."),
) -> None:
    """Run SQL against the corpus with DuckDB (in memory, over views of the Parquet folders: it writes nothing, so
    it works on a read-only corpus and beside an analyst's open catalog)."""
    import duckdb

    from aac.core.store import Corpus

    if not query.strip():
        console.print("give a SQL query, e.g. aac sql \"select count(*) from artifacts\"", style="red")
        raise typer.Exit(2)
    if format not in ("table", "csv", "json"):  # before the query, which may be long
        console.print(f"unknown format {format!r}; use table, csv or json", style="red")
        raise typer.Exit(2)
    if not corpus.is_dir():  # a mistyped --corpus must not become a new, empty corpus answering 0
        console.print(f"no corpus folder at {corpus} (make one with `aac demo` or `aac crawl`, or give "
                      "--corpus)", style="red")
        raise typer.Exit(2)
    c = Corpus(corpus)
    try:
        table = c.sql(query)
    except duckdb.Error as exc:
        console.print(f"SQL error: {exc}", style="red")
        raise typer.Exit(2)
    names = table.column_names
    rows = list(zip(*(col.to_pylist() for col in table.columns)))  # by position: a self-join repeats names
    if format == "json":
        keys = _unique_names(names)
        if keys != names:
            console.print(f"repeated column names renamed in JSON: {', '.join(keys)}", style="yellow")
        sys.stdout.write(json.dumps(finite([dict(zip(keys, r)) for r in rows]), default=str, ensure_ascii=False)
                         + "\n")
    elif format == "csv":
        import csv

        w = csv.writer(sys.stdout)
        w.writerow(names)
        w.writerows([_csv_cell(v) for v in r] for r in rows)
    elif format == "table":
        from aac.core.terminal import literal_table

        literal_table(names, rows[: limit or None], max_width)
        if limit and len(rows) > limit:
            console.print(f"({len(rows) - limit} more rows)")


def _csv_cell(value):
    """Lists and structs (section paths, type probabilities) as JSON, which every CSV reader can parse back,
    not as Python's repr."""
    if isinstance(value, (list, dict)):
        return json.dumps(finite(value), default=str, ensure_ascii=False)
    return value


def _unique_names(names: list[str]) -> list[str]:
    """Column names made unique for JSON objects: a repeated ``x`` becomes ``x_2``, ``x_3``, ..."""
    seen: dict[str, int] = {}
    out = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        out.append(name if seen[name] == 1 else f"{name}_{seen[name]}")
    return out


def _register_areas() -> None:
    for name in AREAS:
        importlib.import_module(name).register(app, eval_app)


_register_areas()


# An error a command did not catch itself ends as one scrubbed line instead of a traceback: an AacError with its
# class's exit status (aac.core.errors: input 2, run 1, refused 3); Python's errors of bad input (a missing or
# unreadable file, a folder where a file was expected, a malformed line, an unknown name) with the input status 2.
# AAC_DEBUG=1 re-raises.
USER_ERRORS = (OSError, ValueError, KeyError)  # ValueError covers JSON and Unicode errors, and Arrow's ArrowInvalid


def main() -> None:
    from typer.exceptions import Abort, TyperException

    try:
        code = app(standalone_mode=False, prog_name="aac")  # usage errors come here too, said in one line
    except TyperException as exc:  # an unknown option, a value out of range, a missing argument, ...
        if type(exc).__name__ == "NoArgsIsHelpError":
            raise SystemExit(2) from None  # the help was printed
        ctx = getattr(exc, "ctx", None)
        where = f"  (see `{ctx.command_path} --help`)" if ctx is not None else ""
        console.print(f"error: {' '.join(exc.format_message().split())}{where}", style="red")
        raise SystemExit(exc.exit_code) from None
    except Abort:
        console.print("aborted", style="red")
        raise SystemExit(1) from None
    except ModuleNotFoundError as exc:  # `pip install aac` without the extra this command needs
        from aac.core.extras import missing_extra_message

        message = missing_extra_message(exc)
        if message is None or Settings.from_env().debug:
            raise
        console.print(f"error: {message}", style="red")
        raise SystemExit(InputError.exit_code) from None
    except (AacError, *USER_ERRORS) as exc:
        if Settings.from_env().debug:
            raise
        from aac.core.config import scrub

        console.print(f"error: {scrub(one_line(exc))}  (AAC_DEBUG=1 shows the traceback)", style="red")
        raise SystemExit(exc.exit_code if isinstance(exc, AacError) else InputError.exit_code) from None
    raise SystemExit(code if isinstance(code, int) else 0)


if __name__ == "__main__":
    main()
