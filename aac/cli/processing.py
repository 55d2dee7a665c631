"""``aac process``, ``aac build`` and ``aac demo``. Heavy imports stay inside the commands (fast ``aac --help``)."""

from __future__ import annotations

import shlex
from dataclasses import replace

import typer


def _print_process(report, console) -> None:
    from rich.table import Table

    t = Table(title="process steps")
    for col in ("step", "rows", "seconds", "rows/s", "peak RSS MiB"):
        t.add_column(col, justify="right" if col != "step" else "left")
    for s in report.steps:
        rate = f"{s.rows / s.seconds:,.0f}" if s.seconds > 0 else "-"
        t.add_row(s.name, f"{s.rows:,}", f"{s.seconds:.1f}", rate, f"{s.peak_rss_mb:,.0f}")
    console.print(t)
    counts = Table(title="processing steps (this run's rows; reused rows skip the row steps)")
    for col in ("step", "rows", "dropped", "errors", "seconds"):
        counts.add_column(col, justify="right" if col != "step" else "left")
    for c in report.step_counts:
        counts.add_row(c.name, f"{c.rows:,}", f"{c.dropped:,}", f"{c.errors:,}", f"{c.seconds:.2f}")
    console.print(counts)
    console.print(f"artifacts {report.artifacts:,}: kept {report.kept:,}, private {report.private:,}, "
                  f"dropped {report.dropped:,}; items {report.items:,}")
    console.print(f"pass 1 ran on {report.processed:,} artifacts ({report.reused:,} unchanged, reused); "
                  f"{report.items_itemised:,} itemised, {report.items_reused:,} reused, {report.items_retyped:,} "
                  f"re-typed because the classifier changed ({report.item_rows_retyped:,} items)")
    console.print(f"classifier: {report.classifier or 'no fingerprint (its items are re-typed on every run)'}")
    if report.drop_reasons:
        console.print("reasons: " + ", ".join(f"{k} {v:,}" for k, v in sorted(report.drop_reasons.items(),
                                                                             key=lambda kv: -kv[1])))


def register(app: typer.Typer, eval_app: typer.Typer) -> None:
    from aac.cli.options import job_options
    from aac.jobs.build import BuildOptions
    from aac.jobs.demo import DemoOptions
    from aac.jobs.options import as_parameters
    from aac.jobs.process import ProcessOptions

    @app.command()
    @job_options(ProcessOptions)
    def process(
        options: ProcessOptions,
        prefect: bool = typer.Option(False, "--prefect/--no-prefect", help="Run as the Prefect flow `process`."),
    ) -> None:
        """Normalise, dedupe, licence-filter, redact secrets, tag and itemise crawled artifacts (idempotent)."""
        from aac.core.store import Corpus
        from aac.core.terminal import plain_console

        console = plain_console()
        c = Corpus(options.corpus)
        if not c.exists("artifacts") and not c.exists("raw_artifacts"):
            plain_console(stderr=True).print(f"no artifacts in {options.corpus}: run `aac crawl` (or `aac demo`) "
                                             "first", style="red")
            raise typer.Exit(2)
        options = replace(options, corpus=c.root)
        if prefect:
            from aac.flows.interrupt import exit_at_once_on_interrupt
            from aac.flows.process import process as process_flow

            with exit_at_once_on_interrupt("processing"):
                out = process_flow(**as_parameters(options))
            typer.echo(f"process (prefect): {out['artifacts']} artifacts, {out['kept']} kept, {out['items']} items")
            return
        from aac.jobs.process import process as process_job

        try:
            cfg = options.config()
        except KeyError as exc:  # an unknown classifier name, before any work: say which exist
            plain_console(stderr=True).print(f"{exc.args[0]}", style="red")
            raise typer.Exit(2)
        report = process_job(options, cfg)
        _print_process(report, console)

    @app.command()
    @job_options(BuildOptions)
    def build(options: BuildOptions) -> None:
        """Crawl + process + classify as one Prefect flow (`build`): the options of `aac crawl` and `aac process`."""
        from aac.core.config import Settings, scrub
        from aac.core.terminal import plain_console
        from aac.flows.build import build as build_flow
        from aac.flows.interrupt import exit_at_once_on_interrupt
        from aac.jobs.crawl import BadCrawlOption, check

        settings = Settings.from_env()
        try:
            check(options.crawl_options())  # before the flow starts its server
            with exit_at_once_on_interrupt("the build"):
                out = build_flow(**as_parameters(options))
        except BadCrawlOption as exc:
            plain_console(stderr=True).print(f"{exc}", style="red")
            raise typer.Exit(exc.exit_code)
        except Exception as exc:  # noqa: BLE001 - one scrubbed line, never a token
            typer.echo(f"build failed ({type(exc).__name__}): {scrub(str(exc), settings)}", err=True)
            raise typer.Exit(1)
        p = out["process"]
        typer.echo(f"build: {sum(r['files'] for r in out['crawl'])} files crawled; {p['artifacts']} artifacts, "
                   f"{p['kept']} kept, {p['private']} private, {p['dropped']} dropped, {p['items']} items")

    @app.command()
    @job_options(DemoOptions)
    def demo(options: DemoOptions) -> None:
        """The whole pipeline offline in one command: snapshot -> emulator -> crawl -> process -> classify -> data/."""
        from rich.table import Table

        from aac.core.terminal import plain_console
        from aac.jobs.demo import EXAMPLE_QUERIES
        from aac.jobs.demo import demo as demo_job

        corpus, snapshot = options.corpus, options.snapshot
        console = plain_console()
        if snapshot is not None and not snapshot.is_file():
            plain_console(stderr=True).print(f"--snapshot {snapshot}: no such file", style="red")
            raise typer.Exit(2)
        with console.status("demo") as status:
            r = demo_job(options, on_phase=lambda phase: status.update(f"demo: {phase}"))
        console.print(f"AAC demo: {r.snapshot_files:,} snapshot files -> {corpus}/  "
                      f"(snapshot {r.seconds['snapshot']:.1f}s, crawl {r.seconds['crawl']:.1f}s, "
                      f"process+classify {r.seconds['process']:.1f}s)")
        console.print(r.crawl_line)
        by: dict[str, dict[str, int]] = {}
        for row in r.platforms:
            by.setdefault(row["platform"] or "?", {})[row["status"]] = row["n"]
        t = Table(title="artifacts per platform")
        for col in ("platform", "kept", "private", "dropped", "total"):
            t.add_column(col, justify="left" if col == "platform" else "right")
        for name, counts in sorted(by.items(), key=lambda kv: -sum(kv[1].values())):
            t.add_row(name, *(str(counts.get(s, 0)) for s in ("kept", "private", "dropped")), str(sum(counts.values())))
        console.print(t)
        total_items = sum(x["n"] for x in r.types) or 1
        console.print("publishable items by type: " + ", ".join(
            f"{x['type']} {x['n']:,} ({100 * x['n'] / total_items:.0f}%)" for x in r.types))
        console.print("drop reasons: " + (", ".join(f"{k} {v:,}" for k, v in sorted(
            r.process.drop_reasons.items(), key=lambda kv: -kv[1])) or "none"))
        corpus_flag = "" if str(corpus) == "data" else f" --corpus {shlex.quote(str(corpus))}"
        console.print("\ntry:", style="bold")
        for q in EXAMPLE_QUERIES:
            console.print(f'  aac sql{corpus_flag} "{q}"', soft_wrap=True, highlight=False, markup=False)
