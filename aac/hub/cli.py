"""`aac publish`, `aac pull`, `aac refresh`: the corpus to and from the Hub, and kept fresh between releases."""

from __future__ import annotations

from pathlib import Path

import typer

from aac.cli import CorpusOpt, console, one_line


def publish(
    corpus: Path = CorpusOpt,
    out: Path = typer.Option(Path("hub"), "--out", help="Hub folder to write (README.md + data/<config>/*.parquet)."),
    repo_id: str = typer.Option(None, "--repo-id", envvar="AAC_HF_REPO_ID", help="Dataset repo ORG/NAME to upload to."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Build and validate the folder, upload nothing."),
    optout: Path = typer.Option(None, "--optout", help="Opt-out list (owner/name or owner/* per line). "
                                "Default: <corpus>/optout.txt, then ./optout.txt, if present."),
    private: bool = typer.Option(False, "--private", help="Create the Hub repo as private."),
) -> None:
    """Write the Hub layout of the publishable rows, validate it offline with `datasets`, then upload it."""
    from aac.config import Settings
    from aac.hub.policy import OptOut
    from aac.hub.publish import build_hub_folder
    from aac.hub.validate import HubFolderInvalid
    from aac.store import Corpus

    optout_path = optout or OptOut.default_path(corpus)
    try:
        opt = OptOut.load(optout_path)
        result = build_hub_folder(Corpus(corpus), out, repo_id=repo_id, optout=opt)
    except (HubFolderInvalid, ValueError, FileNotFoundError) as exc:
        console.print(f"publish failed: {one_line(exc)}", style="red")
        raise typer.Exit(1)
    rows = ", ".join(f"{k}={v}" for k, v in result.report.rows.items())
    held = ", ".join(f"{k}={v}" for k, v in result.report.held_back.items()) or "none"
    changed = result.report.labels_of_changed_text
    typer.echo(f"wrote {out} ({rows}); validated offline with datasets; held back: {held}"
               + (f"; {changed} labels held back (their item's text changed since it was labelled)" if changed else "")
               + (f"; opt-out list {optout_path} ({len(opt)} entries)" if optout_path else ""))
    if dry_run or not repo_id:
        typer.echo("dry run: nothing uploaded" if dry_run else "no --repo-id: nothing uploaded")
        return
    from aac.hub.upload import UploadError, upload_hub_folder

    settings = Settings.from_env()
    if not settings.hf_token:
        console.print("HF_TOKEN is not set: export a token with write access to upload", style="red")
        raise typer.Exit(1)
    try:
        up = upload_hub_folder(out, repo_id, settings.hf_token, endpoint=settings.hf_endpoint, private=private)
    except UploadError as exc:
        console.print(f"{' '.join(str(exc).split())}", style="red")
        raise typer.Exit(1)
    typer.echo(f"uploaded {len(up.files)} files to {repo_id}" + (f": {up.commit_url}" if up.commit_url else ""))


def pull(
    repo_id: str = typer.Option(None, "--repo-id", envvar="AAC_HF_REPO_ID", help="Dataset repo ORG/NAME."),
    corpus: Path = CorpusOpt,
    revision: str = typer.Option(None, "--revision", help="Branch, tag or commit (default: main)."),
    from_folder: Path = typer.Option(None, "--from-folder", help="Install an already downloaded release folder instead."),
    force: bool = typer.Option(False, "--force", help="Install even over a working corpus (crawl state, tombstones "
                               "and labels not in the release are lost)."),
) -> None:
    """Download a published AAC and register DuckDB views over it: `aac sql` works right after."""
    from aac.config import Settings
    from aac.hub.pull import install_snapshot, pull as do_pull
    from aac.store import Corpus

    settings = Settings.from_env()
    target = Corpus(corpus)
    try:
        if from_folder is not None:
            result = install_snapshot(from_folder, target, force=force)
        else:
            rid = repo_id or settings.hf_repo_id
            result = do_pull(rid, target, revision=revision, token=settings.hf_token, endpoint=settings.hf_endpoint,
                             force=force)
    except Exception as exc:  # one clear line (no token) instead of a traceback
        from aac.config import scrub

        console.print(f"pull failed: {scrub(one_line(exc), settings)}", style="red")
        raise typer.Exit(1)
    rows = ", ".join(f"{k}={v}" for k, v in result.rows.items())
    typer.echo(f"installed {result.snapshot} into {corpus} ({rows}); catalog "
               f"{result.catalog or 'not written (see the warning)'}")
    typer.echo(f"try: aac sql --corpus {corpus} \"SELECT platform, count(*) FROM artifacts GROUP BY 1 ORDER BY 2 DESC\"")


def refresh(
    corpus: Path = CorpusOpt,
    api_url: str = typer.Option(None, "--api-url", envvar="AAC_GITHUB_API_URL",
                                help="Crawl this REST API (GitHub, Enterprise or an emulator) into a fresh folder."),
    incoming: Path = typer.Option(None, "--incoming", help="Use a crawl already written to this corpus folder "
                                  "(e.g. by `aac crawl --corpus DIR`) instead of crawling."),
    platform: list[str] = typer.Option(None, "--platform", "-p", help="Only these platforms (repeatable); files of "
                                       "other platforms are left as they are, never marked removed."),
    process: bool = typer.Option(True, "--process/--no-process", help="Process what changed right after merging."),
    fetch_workers: int = typer.Option(None, "--fetch-workers", min=1,
                                      help="Parallel raw-content downloads per partition (default 8, or "
                                           "AAC_FETCH_WORKERS); files with an unchanged blob sha are not downloaded."),
    graphql_batch: int = typer.Option(None, "--graphql-batch", min=0,
                                      help="Repositories per GraphQL metadata request (default 100; 0 = REST only, "
                                           "one request per repository)."),
) -> None:
    """Refresh the corpus as a new version: crawl, merge (changelog, tombstones), process what changed."""
    from aac.config import Settings
    from aac.refresh import RefreshRunning, refresh_lock
    from aac.store import Corpus

    settings = Settings.from_env()
    target = Corpus(corpus)
    try:
        target.check_writable()
    except OSError as exc:
        console.print(f"{exc}", style="red")
        raise typer.Exit(1)

    try:
        with refresh_lock(target.root):
            _refresh(target, settings, incoming, api_url, platform, process, fetch_workers, graphql_batch)
    except RefreshRunning as exc:
        console.print(f"{exc}", style="red")
        raise typer.Exit(1)


def _refresh(target, settings, incoming: Path | None, api_url: str | None, platform: list[str] | None,
             process: bool, fetch_workers: int | None, graphql_batch: int | None) -> None:
    """The refresh itself, under the corpus's refresh lock."""
    from aac.config import DEFAULT_GITHUB_API, scrub
    from aac.refresh.versioning import merge_incoming
    from aac.store import Corpus

    source = str(incoming) if incoming is not None else (api_url or DEFAULT_GITHUB_API)
    if incoming is None:
        from aac.collectors.collect import run_github_crawl

        from aac.refresh import run_folder

        incoming, resumed = run_folder(target.root)
        if resumed:
            typer.echo(f"resuming the unfinished refresh crawl in {incoming}")
        try:
            summary = run_github_crawl(Corpus(incoming), source, settings.github_tokens, platform or None,
                                       previous=target, fetch_workers=fetch_workers or settings.fetch_workers,
                                       graphql_batch=graphql_batch)
        except Exception as exc:  # one scrubbed line, never a token
            console.print(f"crawl failed: {scrub(one_line(exc), settings)} (its progress is kept in "
                          f"{incoming}: the next `aac refresh` within a day resumes it)", style="red")
            raise typer.Exit(1)
        typer.echo(f"crawled into {incoming}: {summary.line()}")
    try:
        report = merge_incoming(target, Corpus(incoming), process=None, source=source, platforms=platform or None)
        from aac.refresh import mark_merged

        mark_merged(incoming)
    except FileNotFoundError as exc:
        console.print(f"{exc}", style="red")
        raise typer.Exit(1)
    if report.recorded:
        typer.echo(f"version {report.version}: added={report.added} changed={report.changed} "
                   f"removed={report.removed} unchanged={report.unchanged}")
    else:
        typer.echo(f"no change: the corpus stays at version {report.version} (unchanged={report.unchanged})")
    for name, counts in sorted(report.per_platform.items()):
        typer.echo(f"  {name}: " + " ".join(f"{k}={v}" for k, v in counts.items()))
    if report.unjudged:
        typer.echo(f"  not judged for removal (the crawl did not sweep them whole): {', '.join(report.unjudged)}")
    changed = bool(report.added or report.changed or report.removed)
    if process:
        from aac.processing.pipeline import awaiting_processing, processing_outdated, run

        if not changed and not processing_outdated(target):
            return
        waiting = awaiting_processing(target)
        if waiting and not changed:
            typer.echo(f"{waiting} artifacts an earlier run merged still wait for processing: processing them now")
        rep = run(target)
        typer.echo(f"processed: {rep.processed} artifacts through pass 1 ({rep.reused} reused), "
                   f"{rep.items_itemised} itemised, {rep.items_reused} reused, {rep.items_retyped} re-typed because "
                   f"the classifier changed ({rep.item_rows_retyped} items); {rep.items} items")
    elif changed:
        typer.echo("new and changed artifacts wait as status 'collected' for `aac process`")


def register(app: typer.Typer, eval_app: typer.Typer) -> None:
    app.command()(publish)
    app.command()(pull)
    app.command()(refresh)
