"""`aac publish`, `aac pull`, `aac refresh`: the corpus to and from the Hub, and kept fresh between releases."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import typer

from aac.cli import CorpusOpt, console, one_line
from aac.cli.options import job_options
from aac.core.errors import InputError
from aac.jobs.publish import PublishOptions
from aac.jobs.refresh import RefreshOptions


@job_options(PublishOptions)
def publish(
    options: PublishOptions,
    dry_run: bool = typer.Option(False, "--dry-run", help="Build and validate the folder, upload nothing."),
) -> None:
    """Write the Hub layout of the publishable rows, validate it offline with `datasets`, then upload it.

    --out must be new, empty or a folder an earlier publish wrote. Only the published configs are written:
    the corpus's raw_artifacts table (crawled files, unredacted) never is."""
    from aac.hub.upload import UploadError
    from aac.hub.publish import NotAPublishFolder
    from aac.hub.validate import HubFolderInvalid
    from aac.jobs.publish import MissingHubToken, PublishStages, build_stage
    from aac.jobs.publish import publish as publish_job

    corpus, out, repo_id = options.corpus, options.out, options.repo_id
    if not corpus.is_dir():  # a mistyped --corpus must not publish "nothing" from a new empty folder
        console.print(f"error: no corpus folder at {str(corpus)}", style="red")
        raise typer.Exit(2)
    options = replace(options, upload=bool(repo_id) and not dry_run)

    def build_and_say(*args) -> dict:  # the folder's line comes before the upload, which may take long
        figures = build_stage(*args)
        rows = ", ".join(f"{k}={v}" for k, v in figures["rows"].items())
        held = ", ".join(f"{k}={v}" for k, v in figures["held_back"].items()) or "none"
        changed = figures["labels_of_changed_text"]
        typer.echo(f"wrote {out} ({rows}); validated offline with datasets; held back: {held}"
                   + (f"; {changed} labels held back (their item's text changed since it was labelled)" if changed else "")
                   + (f"; opt-out list {figures['optout_path']} ({figures['optout_entries']} entries)"
                      if figures["optout_path"] else ""))
        if figures.get("raw_kept"):
            typer.echo(f"note: {corpus}/corpus/raw_artifacts holds the crawled files as they were, unredacted "
                       f"(secrets included); it is never published (not in {out}), but do not share the corpus "
                       "folder as it is (see docs/publishing.md)")
        if not options.upload:
            typer.echo("dry run: nothing uploaded" if dry_run else "no --repo-id: nothing uploaded")
        return figures

    try:
        report = publish_job(options, PublishStages(build=build_and_say))
    except NotAPublishFolder as exc:
        console.print(f"error: {str(exc)}", style="red")
        raise typer.Exit(exc.exit_code)
    except HubFolderInvalid as exc:
        console.print(f"publish failed: {one_line(exc)}", style="red")
        raise typer.Exit(exc.exit_code)
    except (MissingHubToken, UploadError) as exc:
        console.print(f"{' '.join(str(exc).split())}", style="red")
        raise typer.Exit(exc.exit_code)
    except (ValueError, OSError) as exc:  # a malformed or missing opt-out list, a busy corpus: bad input
        console.print(f"publish failed: {one_line(exc)}", style="red")
        raise typer.Exit(InputError.exit_code)
    if report.uploaded_files is not None:
        typer.echo(f"uploaded {report.uploaded_files} files to {repo_id}"
                   + (f": {report.commit}" if report.commit and report.commit != repo_id else ""))


def pull(
    repo_id: str = typer.Option(None, "--repo-id", envvar="AAC_HF_REPO_ID",
                                help="Dataset repo ORG/NAME to download (required unless --from-folder)."),
    corpus: Path = CorpusOpt,
    revision: str = typer.Option(None, "--revision", help="Branch, tag or commit (default: main)."),
    from_folder: Path = typer.Option(None, "--from-folder", help="Install an already downloaded release folder instead."),
    force: bool = typer.Option(False, "--force", help="Install even over a working corpus (crawl state, tombstones "
                               "and labels not in the release are lost)."),
) -> None:
    """Download a published AAC and register DuckDB views over it: `aac sql` works right after."""
    from aac.core.config import Settings
    from aac.hub.pull import install_snapshot, pull as do_pull
    from aac.core.store import Corpus

    settings = Settings.from_env()
    if from_folder is None and not repo_id:  # no silent default repository
        console.print("error: give --repo-id ORG/NAME (or set AAC_HF_REPO_ID), or --from-folder DIR  "
                      "(see `aac pull --help`)", style="red")
        raise typer.Exit(2)
    target = Corpus(corpus)
    try:
        if from_folder is not None:
            result = install_snapshot(from_folder, target, force=force)
        else:
            result = do_pull(repo_id, target, revision=revision, token=settings.hf_token,
                             endpoint=settings.hf_endpoint, force=force)
    except Exception as exc:  # one clear line (no token) instead of a traceback, as every command's errors
        from aac.core.config import scrub

        console.print(f"error: {scrub(one_line(exc), settings)}", style="red")
        raise typer.Exit(2)
    rows = ", ".join(f"{k}={v}" for k, v in result.rows.items())
    typer.echo(f"installed {result.snapshot} into {corpus} ({rows}); catalog "
               f"{result.catalog or 'not written (see the warning)'}")
    typer.echo(f"try: aac sql --corpus {corpus} \"SELECT platform, count(*) FROM artifacts GROUP BY 1 ORDER BY 2 DESC\"")


@job_options(RefreshOptions)
def refresh(options: RefreshOptions) -> None:
    """Refresh the corpus as a new version: crawl, merge (changelog, tombstones), process what changed."""
    from aac.core.config import Settings, scrub
    from aac.core.corpus_lock import CorpusLocked
    from aac.jobs.refresh import RefreshCrawlFailed
    from aac.jobs.refresh import refresh as refresh_job

    settings = Settings.from_env()
    try:
        report = refresh_job(options, settings, say=typer.echo)
    except RefreshCrawlFailed as exc:  # one scrubbed line, never a token
        console.print(f"crawl failed: {scrub(one_line(exc.cause), settings)} (its progress is kept in "
                      f"{exc.folder}: the next `aac refresh` within a day resumes it)", style="red")
        raise typer.Exit(exc.exit_code)
    except CorpusLocked as exc:  # another refresh, or any other writer, holds the corpus
        console.print(f"error: {str(exc)}", style="red")
        raise typer.Exit(exc.exit_code)
    except OSError as exc:  # not writable, no crawl in --incoming
        console.print(f"{str(exc)}", style="red")
        raise typer.Exit(1)
    _print_refresh(report, options.process)


def _print_refresh(report, process: bool) -> None:
    if report.recorded:
        typer.echo(f"version {report.version}: added={report.added} changed={report.changed} "
                   f"removed={report.removed} unchanged={report.unchanged}")
    else:
        typer.echo(f"no change: the corpus stays at version {report.version} (unchanged={report.unchanged})")
    for name, counts in sorted(report.per_platform.items()):
        typer.echo(f"  {name}: " + " ".join(f"{k}={v}" for k, v in counts.items()))
    if report.unjudged:
        typer.echo(f"  not judged for removal (the crawl did not sweep them whole): {', '.join(report.unjudged)}")
    if report.process is not None:
        p = report.process
        typer.echo(f"processed: {p['processed']} artifacts through pass 1 ({p['reused']} reused), "
                   f"{p['items_itemised']} itemised, {p['items_reused']} reused, {p['items_retyped']} re-typed because "
                   f"the classifier changed ({p['item_rows_retyped']} items); {p['items']} items")
    elif report.any_change and not process:
        typer.echo("new and changed artifacts wait as status 'collected' for `aac process`")


def register(app: typer.Typer, eval_app: typer.Typer) -> None:
    app.command()(publish)
    app.command()(pull)
    app.command()(refresh)
