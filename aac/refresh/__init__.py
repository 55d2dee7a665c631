"""Incremental refresh: merge a fresh crawl into the corpus as a new version (changelog, tombstones)."""


def new_run_folder(corpus_root) -> "Path":
    """A fresh folder for one refresh crawl: never an earlier run's (whose finished frontier would be resumed)."""
    import datetime as dt
    from pathlib import Path

    base = Path(corpus_root) / "refresh-runs"
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    folder, n = base / stamp, 1
    while folder.exists():
        n += 1
        folder = base / f"{stamp}-{n}"
    folder.mkdir(parents=True)
    (folder / STARTED_MARKER).write_text("started\n", encoding="utf-8")
    return folder


MERGED_MARKER = ".merged"  # written into a run folder once its crawl has been merged into the corpus
STARTED_MARKER = ".started"  # written by new_run_folder: only such runs are ever resumed (not older layouts')
RESUME_WITHIN_S = 24 * 3600


def run_folder(corpus_root, resume_within_s: float = RESUME_WITHIN_S) -> tuple["Path", bool]:
    """The folder for this refresh's crawl, and whether it resumes one: the newest earlier run that was never merged
    (killed or failed) when it started within ``resume_within_s`` - its finished ranges are recent enough to keep,
    so a retry does not spend the search requests again - else a new folder."""
    import time
    from pathlib import Path

    base = Path(corpus_root) / "refresh-runs"
    runs = sorted((d for d in base.glob("*") if d.is_dir()), key=lambda d: d.name) if base.is_dir() else []
    last = runs[-1] if runs else None
    if (last is not None and (last / STARTED_MARKER).exists() and not (last / MERGED_MARKER).exists()
            and time.time() - (last / STARTED_MARKER).stat().st_mtime < resume_within_s):
        prune_runs(runs[:-1])
        return last, True
    folder = new_run_folder(corpus_root)  # before pruning, so its name is never a pruned run's
    prune_runs(runs)
    return folder, False


def prune_runs(runs: list["Path"], keep_merged: int = 1) -> list["Path"]:
    """Delete the crawl copies earlier refreshes left (``runs`` oldest first; returns what was deleted): every
    merged run but the newest ``keep_merged`` (the corpus holds what they crawled, and its frontier), and every
    run that was never merged (too old to resume, or superseded by a newer one). Each copy holds every crawled
    file, so a weekly schedule kept them all would grow by a crawl a week. Only folders a refresh made (with its
    start marker) are touched."""
    import shutil

    ours = [d for d in runs if (d / STARTED_MARKER).exists()]
    merged = [d for d in ours if (d / MERGED_MARKER).exists()]
    doomed = [d for d in ours if d not in merged] + merged[: max(0, len(merged) - keep_merged)]
    for d in doomed:
        shutil.rmtree(d, ignore_errors=True)
    return doomed


def mark_merged(folder) -> None:
    """Best effort: a folder the user passed with --incoming may be read-only, and a run is not resumed anyway
    unless new_run_folder made it."""
    from pathlib import Path

    try:
        (Path(folder) / MERGED_MARKER).write_text("merged\n", encoding="utf-8")
    except OSError:
        pass
