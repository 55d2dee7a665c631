"""``aac crawl``: GitHub (or an emulator, or GitHub Enterprise) code search into the corpus; or local checkouts.

By default the steps run in-process (no Prefect start-up, ~8 s saved on small crawls); ``--prefect`` runs the same
steps as the Prefect flow ``crawl`` (a task per platform, retries, a table artifact). Heavy imports stay inside
the command so ``aac --help`` is fast.
"""

from __future__ import annotations

import typer


def register(app: typer.Typer, eval_app: typer.Typer) -> None:
    from aac.cli.options import job_options
    from aac.jobs.crawl import CrawlOptions

    @app.command()
    @job_options(CrawlOptions)
    def crawl(
        options: CrawlOptions,
        prefect: bool = typer.Option(False, "--prefect/--no-prefect",
                                     help="Run as the Prefect flow `crawl` (tasks, retries, table artifact)."),
    ) -> None:
        """Crawl agent configuration files into the corpus; resumable (rerun after a kill continues)."""
        from aac.core.config import Settings, scrub
        from aac.core.terminal import plain_console
        from aac.jobs.crawl import BadCrawlOption, check
        from aac.jobs.crawl import crawl as crawl_job

        err = plain_console(stderr=True)
        settings = Settings.from_env()
        try:
            check(options, settings)  # before a Prefect flow starts its server
            if options.local is not None:  # local checkouts: no network, no flow
                report = crawl_job(options, settings)
            elif prefect:
                _crawl_flow(options)
                return
            else:
                report = _crawl_with_progress(options, settings, err)
        except BadCrawlOption as exc:
            err.print(f"{exc}", style="red")
            raise typer.Exit(exc.exit_code)
        except Exception as exc:  # noqa: BLE001 - every failure ends as one scrubbed line, never a token
            if options.local is not None:
                raise
            from aac.collectors.github import GitHubError

            msg = scrub(str(exc), settings)
            err.print(f"crawl failed: {msg}" if isinstance(exc, GitHubError) else
                      f"crawl failed ({type(exc).__name__}): {msg}", style="red")
            raise typer.Exit(1)
        if report.local_files is None:
            typer.echo("per platform: " + ", ".join(f"{k} {v}" for k, v in report.platforms.items()))
        typer.echo(report.line())


def _crawl_flow(options) -> None:
    """The Prefect flow ``crawl`` (a task per platform, retries, a table artifact)."""
    from aac.flows.crawl import crawl as crawl_flow
    from aac.flows.interrupt import exit_at_once_on_interrupt
    from aac.jobs.options import as_parameters

    with exit_at_once_on_interrupt("the crawl"):
        rows = crawl_flow(**as_parameters(options))
    typer.echo(f"crawl (prefect): {sum(r['files'] for r in rows)} files over {len(rows)} platforms; "
               f"{sum(r['search_requests'] for r in rows)} search requests")


def _crawl_with_progress(options, settings, console):
    """The crawl job in this process, with a progress bar over the platforms' queries."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from aac.collectors.collect import platform_queries
    from aac.jobs.crawl import CrawlWatch
    from aac.jobs.crawl import crawl as crawl_job

    n_queries = len(platform_queries(list(options.platforms) if options.platforms else None))
    state = {"waits": 0}
    with Progress(TextColumn("crawl {task.fields[query]}", markup=False), BarColumn(), MofNCompleteColumn(),
                  TextColumn("{task.fields[info]}", markup=False), TimeElapsedColumn(), console=console,
                  transient=False) as progress:
        task = progress.add_task("crawl", total=n_queries, query="", info="")

        def on_progress(t, stats) -> None:
            progress.update(task, completed=t.queries_done,
                            info=f"partitions {t.partitions} · files {t.files} · requests {stats.search_requests} "
                                 f"· rate-limit waits {state['waits']}")

        def on_query(platform: str, query: str) -> None:
            progress.update(task, query=f"{platform}: {query}")

        def on_wait(seconds: float, why: str) -> None:
            if why != "backoff":
                state["waits"] += 1

        return crawl_job(options, settings, watch=CrawlWatch(on_progress, on_query, on_wait))
