"""``aac pull``: from nothing to SQL in one command — download a published AAC and register DuckDB views on it.

The Hub layout (``data/<config>/*.parquet``) is mapped onto the corpus layout (``corpus/<table>/*.parquet``)
with hard links (or copies across devices), so every ``aac`` command and ``aac sql`` work on it unchanged.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from aac.core.config import Secret
from aac.hub.layout import CONFIGS
from aac.core.store import Corpus


@dataclass(frozen=True)
class PullResult:
    snapshot: Path
    catalog: Path | None  # None: the catalog file could not be written (the tables are installed all the same)
    rows: dict[str, int]


PULL_MARKER = ".pulled"  # in the corpus root: this corpus holds an installed release (JSON: where from, what parts)


class WorkingCorpusError(RuntimeError):
    """The target folder holds a corpus a release cannot stand in for."""


def check_replaceable(corpus: Corpus) -> None:
    """Refuse to install a release over work it would destroy.

    A release replaces ``artifacts``, ``items``, ``repos`` and ``annotations`` whole; a crawled corpus also holds
    what a release never carries (tombstones, dropped files, crawl state, unpublished labels), and labels added
    to a pulled corpus since its pull exist nowhere else. A corpus made by an earlier pull and left alone may be
    replaced."""
    own = [t for t in corpus.tables() if t not in CONFIGS and corpus.exists(t)]
    if own:
        raise WorkingCorpusError(f"{corpus.root} holds a working corpus (tables {', '.join(own)}), which a release "
                                 "would overwrite; pull into another --corpus folder, or pass --force")
    held = [t for t in CONFIGS if corpus.exists(t)]
    marker = corpus.root / PULL_MARKER
    if held and not marker.is_file():
        raise WorkingCorpusError(f"{corpus.root} holds tables no pull installed ({', '.join(held)}), which a "
                                 "release would overwrite; pull into another --corpus folder, or pass --force")
    recorded = _recorded(marker)
    if recorded is None:  # a marker of the plain-text layout: labels written after it are the ones added since
        added = any(p.stat().st_mtime > marker.stat().st_mtime for p in corpus.part_files("annotations"))
    else:
        added = _fingerprint(corpus, "annotations") != recorded.get("annotations")
    if held and added:
        raise WorkingCorpusError(f"{corpus.root} holds annotations added since its pull, which a release would "
                                 "overwrite; export them first (aac annotate export), or pass --force")


def _link_or_copy(src: Path, dest: Path) -> None:
    try:
        os.link(src.resolve(), dest)
    except OSError:
        shutil.copy2(src, dest)


def _fingerprint(corpus: Corpus, table: str) -> list:
    """The table's parts as they stand (name, size, mtime): any label written since changes it."""
    return [[p.name, p.stat().st_size, p.stat().st_mtime_ns] for p in corpus.part_files(table)]


def _recorded(marker: Path) -> dict | None:
    """What the pull recorded, or None for a marker of the earlier plain-text layout (the snapshot's path)."""
    try:
        value = json.loads(marker.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def install_snapshot(snapshot: Path, corpus: Corpus, force: bool = False) -> PullResult:
    """Expose a downloaded (or local) Hub folder as the corpus tables and write the DuckDB catalog
    (``force``: even over a working corpus, see ``check_replaceable``)."""
    snapshot = Path(snapshot)
    if not any((snapshot / "data" / "artifacts").glob("*.parquet")):
        raise FileNotFoundError(f"{snapshot} is not an AAC release: no data/artifacts/*.parquet")
    from aac.core.corpus_lock import corpus_lock

    with corpus_lock(corpus.root, "aac pull"):  # no other command writes the corpus while its tables are swapped
        return _install(snapshot, corpus, force)


def _install(snapshot: Path, corpus: Corpus, force: bool) -> PullResult:
    if not force:
        check_replaceable(corpus)
    from aac.processing.item_record import distrust

    distrust(corpus)  # items from the release: a local `aac process` record no longer describes them
    rows = {}
    for config in CONFIGS:  # a config absent from the release (no rows) becomes an empty table
        staging = corpus.tables_dir / f"{config}.pull-tmp"
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir(parents=True)
        for shard in sorted((snapshot / "data" / config).glob("*.parquet")):
            _link_or_copy(shard, staging / shard.name)
        final = corpus.table_dir(config)
        shutil.rmtree(final, ignore_errors=True)
        os.replace(staging, final)
        rows[config] = corpus.count(config)
    (corpus.root / PULL_MARKER).write_text(json.dumps({"snapshot": str(snapshot),
                                                       "annotations": _fingerprint(corpus, "annotations")}),
                                           encoding="utf-8")
    return PullResult(snapshot, corpus.refresh_catalog(), rows)


def pull(repo_id: str, corpus: Corpus, revision: str | None = None, token: Secret | None = None,
         endpoint: str | None = None, force: bool = False) -> PullResult:
    """``snapshot_download`` the dataset repo into ``<corpus>/hub-cache/`` and install it as the corpus tables.

    The Hub cache keeps one folder per commit holding exactly that revision's files, so shards of an older
    release never leak into the tables (a plain ``local_dir`` would keep them)."""
    from huggingface_hub import snapshot_download

    from aac.core.corpus_lock import corpus_lock

    with corpus_lock(corpus.root, "aac pull"):  # from the check to the install: nobody writes what was checked
        if not force:  # before downloading gigabytes
            check_replaceable(corpus)
        path = snapshot_download(repo_id=repo_id, repo_type="dataset", revision=revision,
                                 cache_dir=str(corpus.root / "hub-cache"),
                                 allow_patterns=["README.md", "data/**"], endpoint=endpoint,
                                 token=token.reveal() if token else None)
        return install_snapshot(Path(path), corpus, force=True)
