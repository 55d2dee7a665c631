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
    return folder
