"""The consoles every command prints through: text is printed as it is.

Rich reads ``[...]`` as markup and ``:name:`` as emoji codes by default, so a message or table cell holding a
corpus text, a path or an exception (``dict[str, int]``, ``[/bold]``, ``:x:``) would be rewritten or raise.
Commands colour whole messages with ``style=`` instead, and build consoles only here.
"""

from __future__ import annotations

from rich.console import Console


def plain_console(stderr: bool = False, **kwargs) -> Console:
    """A console that never interprets markup, emoji codes or highlighting in what it prints; on stderr, a message
    stays one line in logs whatever the terminal's width."""
    kwargs.setdefault("soft_wrap", stderr)
    return Console(stderr=stderr, markup=False, emoji=False, highlight=False, **kwargs)


MIN_COLUMN = 16  # a column narrower than its contents is never squeezed below this (or its header)


def cell_text(value, max_width: int = 0) -> str:
    """A value as the table shows it: NULL as empty, cut to ``max_width`` characters with an ellipsis if asked."""
    text = "" if value is None else str(value)
    if max_width and len(text) > max_width:
        return text[: max(max_width - 1, 0)] + "…"
    return text


def literal_table(names: list[str], rows: list[tuple], max_width: int = 0, console: Console | None = None) -> None:
    """Print rows as a table whose cells are printed literally and wrapped (folded), never cut unless ``max_width``
    asks. Columns keep at least ``MIN_COLUMN`` characters (or their header's width): a result wider than the
    terminal gets wider lines rather than one-character columns."""
    from rich.table import Table
    from rich.text import Text

    cells = [[cell_text(v, max_width) for v in r] for r in rows]
    natural = [max([len(n)] + [max((len(x) for x in c[i].splitlines()), default=0) for c in cells])
               for i, n in enumerate(names)]
    least = [min(w, max(MIN_COLUMN, len(n))) for w, n in zip(natural, names)]
    console = console or plain_console()
    needed = sum(least) + 3 * len(names) + 1  # each column's padding and rule, and the left edge
    if needed > console.width:
        console = plain_console(width=needed, file=console.file)
    t = Table(show_lines=False)
    for name, w in zip(names, least):
        t.add_column(Text(name), overflow="fold", min_width=w)
    for c in cells:
        t.add_row(*(Text(x) for x in c))
    console.print(t)
