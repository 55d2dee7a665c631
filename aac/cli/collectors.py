"""``aac crawl``: GitHub (or an emulator, or GitHub Enterprise) code search into the corpus; or local checkouts.

By default the steps run in-process (no Prefect start-up, ~8 s saved on small crawls); ``--prefect`` runs the same
steps as the Prefect flow ``crawl`` (a task per platform, retries, a table artifact). Heavy imports stay inside
the command so ``aac --help`` is fast.
"""

from __future__ import annotations

from pathlib import Path

import typer


def register(app: typer.Typer, eval_app: typer.Typer) -> None:
    from aac.cli import CorpusOpt

    @app.command()
    def crawl(
        api_url: str = typer.Option(None, "--api-url", envvar="AAC_GITHUB_API_URL",
                                    help="REST API base: https://api.github.com (default), https://HOST/api/v3 "
                                         "(Enterprise) or an emulator's URL."),
        platform: list[str] = typer.Option(None, "--platform", "-p", help="Only these platforms (repeatable)."),
        corpus: Path = CorpusOpt,
        local: Path = typer.Option(None, "--local", help="Collect from a folder of local checkouts instead."),
        prefect: bool = typer.Option(False, "--prefect/--no-prefect",
                                     help="Run as the Prefect flow `crawl` (tasks, retries, table artifact)."),
        fetch_workers: int = typer.Option(None, "--fetch-workers", min=1,
                                          help="Parallel raw-content downloads per partition (default 8, "
                                               "or AAC_FETCH_WORKERS)."),
        graphql_batch: int = typer.Option(None, "--graphql-batch", min=0,
                                          help="Repositories per GraphQL metadata request, batched across "
                                               "partitions (default 100; 0 = one REST request per repo)."),
    ) -> None:
        """Crawl agent configuration files into the corpus; resumable (rerun after a kill continues)."""
        from aac.core.config import DEFAULT_GITHUB_API, Settings, scrub
        from aac.core.terminal import plain_console
        from aac.core.store import Corpus

        err = plain_console(stderr=True)
        settings = Settings.from_env()
        if platform:
            from aac.core import platforms as reg

            for name in platform:
                try:
                    reg.get(name)
                except KeyError as exc:
                    err.print(f"{exc.args[0]}", style="red")
                    raise typer.Exit(2)
        if corpus.exists() and not corpus.is_dir():
            err.print(f"--corpus {corpus}: a file, not a folder", style="red")
            raise typer.Exit(2)
        if local is not None and not local.is_dir():
            err.print(f"--local {local}: not a folder", style="red")
            raise typer.Exit(2)
        c = Corpus(corpus)
        from aac.core.corpus_lock import corpus_lock

        with corpus_lock(c.root, "aac crawl" + (" --local" if local is not None else "")):  # one writer at a time
            if local is not None:
                from aac.collectors.local import collect_local

                n = collect_local(c, local, platform or None)
                c.refresh_catalog()
                typer.echo(f"crawl --local: {n} agent files from {local}")
                return
            url = api_url or settings.github_api_url or DEFAULT_GITHUB_API
            if not url.startswith(("http://", "https://")):
                err.print(f"--api-url {url!r}: expected an http:// or https:// URL", style="red")
                raise typer.Exit(2)
            workers = fetch_workers or settings.fetch_workers
            try:
                if prefect:
                    from aac.flows.crawl import crawl as crawl_flow
                    from aac.flows.interrupt import exit_at_once_on_interrupt

                    with exit_at_once_on_interrupt("the crawl"):
                        rows = crawl_flow(api_url=url, corpus=str(c.root), platforms=list(platform or []),
                                          fetch_workers=workers, graphql_batch=graphql_batch)
                    total = sum(r["search_requests"] for r in rows)
                    typer.echo(f"crawl (prefect): {sum(r['files'] for r in rows)} files over {len(rows)} platforms; "
                               f"{total} search requests")
                    return
                summary = _run_with_progress(c, url, settings.github_tokens, platform or None, err, workers,
                                             graphql_batch)
            except Exception as exc:  # noqa: BLE001 - every failure ends as one scrubbed line, never a token
                from aac.collectors.github import GitHubError

                msg = scrub(str(exc), settings)
                err.print(f"crawl failed: {msg}" if isinstance(exc, GitHubError) else
                          f"crawl failed ({type(exc).__name__}): {msg}", style="red")
                raise typer.Exit(1)
            c.refresh_catalog()
            typer.echo("per platform: " + ", ".join(f"{k} {v}" for k, v in summary.platforms.items()))
            typer.echo(summary.line())


def _run_with_progress(corpus, url, tokens, platforms, console, fetch_workers, graphql_batch=None):
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from aac.collectors.collect import platform_queries, run_github_crawl

    n_queries = len(platform_queries(platforms))
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

        return run_github_crawl(corpus, url, tokens, platforms, on_progress=on_progress, on_query=on_query,
                                on_wait=on_wait, fetch_workers=fetch_workers, graphql_batch=graphql_batch)
