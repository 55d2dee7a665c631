"""The same ``artifacts``/``repos`` rows from a folder of local checkouts (enterprise and offline use).

``DIR`` is either one checkout or a folder whose sub-folders are checkouts (or plain folders). Every file whose
repository-relative path a platform recognises becomes an artifact. For a git checkout the repo name comes from
``remote.origin.url`` and the commit from ``git rev-parse HEAD``; otherwise the folder name under ``local/``.
The license is a guess from the LICENSE file's text (``license_source = "license_file"``) by
:mod:`aac.core.licenses`, ``NOASSERTION`` when it cannot be told. Rows are written per checkout under a stable
part name, so a rerun replaces, never duplicates.

Nothing outside the checkout is ever read: an agent file that is a symbolic link (to ``/etc/passwd`` or to
another file of the same tree alike) is kept as a row dropped with reason ``symlink`` and its target is never
opened (a file is opened with ``O_NOFOLLOW``, so a link swapped in after the walk is refused too); linked
folders are not entered; a LICENSE that is a link is read only when its target lies inside the checkout.
Only regular files are read (a FIFO or device named like an agent file is dropped as ``content_unavailable``).
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import stat
import subprocess
from collections.abc import Iterable, Iterator
from datetime import datetime, timezone
from pathlib import Path

import pyarrow as pa

from aac.core import licenses
from aac.core import platforms as registry
from aac.collectors.collect.rows import artifact_row, repo_row
from aac.collectors.crawl import Hit
from aac.core.drop_reasons import DropReason
from aac.core.ids import stable_id
from aac.core.schema import ARTIFACTS, REPOS
from aac.core.store import Corpus

log = logging.getLogger(__name__)

SKIP_DIRS = {".git", "node_modules", ".venv", "venv", "__pycache__", ".tox", "dist", "build", ".mypy_cache"}


def guess_license(text: str) -> str:
    """The licence of a checkout's LICENSE file, by the one detector processing uses; ``NOASSERTION`` when unknown."""
    return licenses.license_of_file(text)


def _git(root: Path, *args: str) -> str | None:
    try:
        out = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() if out.returncode == 0 and out.stdout.strip() else None


def repo_name(root: Path) -> str:
    """``owner/name`` from the origin remote (https or ssh), else ``local/<folder>``."""
    url = _git(root, "config", "--get", "remote.origin.url") if (root / ".git").exists() else None
    if url:
        m = re.search(r"[:/]([^/:]+)/([^/]+?)(?:\.git)?/?$", url)
        if m:
            return f"{m.group(1)}/{m.group(2)}"
    return f"local/{root.resolve().name}"


def checkouts(folder: Path) -> list[Path]:
    """The checkout roots under ``folder``: itself if it is one (or holds agent files directly), else its sub-folders."""
    if (folder / ".git").exists():
        return [folder]
    linked = sorted(p.name for p in folder.iterdir() if p.is_symlink() and p.is_dir())
    if linked:  # a link may lead anywhere: only folders that are really under ``folder`` are read
        log.warning("not collecting linked folder(s) %s under %s", ", ".join(linked), folder)
    subs = sorted(p for p in folder.iterdir() if p.is_dir() and not p.is_symlink() and p.name not in SKIP_DIRS)
    direct = [p for p in folder.iterdir() if p.is_file() and registry.platform_of(p.name)]
    if direct or not subs:
        return [folder]
    return subs


def agent_files(root: Path, names: Iterable[str] | None = None) -> Iterator[tuple[str, Path]]:
    """(repository-relative path, path) of every agent file under ``root``, symbolic links included (the caller
    drops them); linked folders are not entered (``os.walk`` does not follow them)."""
    wanted = set(names) if names else None
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        links = [d for d in dirnames if (Path(dirpath) / d).is_symlink()]
        if links:
            log.info("not entering linked folder(s) %s under %s", ", ".join(links), dirpath)
            dirnames[:] = [d for d in dirnames if d not in links]
        for fn in sorted(filenames):
            full = Path(dirpath) / fn
            rel = full.relative_to(root).as_posix()
            platform = registry.platform_of(rel)
            if platform and (wanted is None or platform in wanted):
                yield rel, full


def read_inside(full: Path) -> bytes:
    """The bytes of a regular file, never through a symbolic link (``O_NOFOLLOW``: a link raises ``OSError``
    ELOOP, also one swapped in since the walk); anything but a regular file raises ``OSError`` too."""
    fd = os.open(full, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"{full.name} is not a regular file")
        with os.fdopen(fd, "rb", closefd=False) as f:
            return f.read()
    finally:
        os.close(fd)


def _license_file(root: Path) -> Path | None:
    """The checkout's LICENSE file: a link only when its target is inside the checkout (never read outside)."""
    inside = root.resolve()
    for p in sorted(root.glob("LICEN[CS]E*")):
        if p.is_symlink():
            target = p.resolve()
            if not target.is_relative_to(inside) or not target.is_file():
                log.warning("%s is a link out of the checkout (or to nothing): not read", p)
                continue
        if p.is_file():
            return p
    return None


def collect_local(corpus: Corpus, folder: Path, platforms: Iterable[str] | None = None) -> int:
    """Write one artifacts part (and one repos row) per checkout; returns the number of agent files (symbolic
    links included, as dropped rows). Holds the corpus lock (:mod:`aac.core.corpus_lock`)."""
    from aac.core.corpus_lock import corpus_lock

    with corpus_lock(corpus.root, "aac crawl --local"):
        return _collect_local(corpus, folder, platforms)


def _collect_local(corpus: Corpus, folder: Path, platforms: Iterable[str] | None) -> int:
    when = datetime.now(timezone.utc)
    total = 0
    for root in checkouts(Path(folder)):
        name = repo_name(root)
        commit = _git(root, "rev-parse", "HEAD") if (root / ".git").exists() else None
        lic_file = _license_file(root)
        try:
            spdx = guess_license(lic_file.read_text(encoding="utf-8", errors="replace")) if lic_file else None
        except OSError:
            spdx = None
        meta = {"full_name": name, "license_spdx": spdx,
                "license_source": "license_file" if lic_file else "none",
                "default_branch": _git(root, "rev-parse", "--abbrev-ref", "HEAD") if commit else None}
        rows = []
        for rel, full in agent_files(root, platforms):
            if full.is_symlink():  # never followed, whether it points out of the checkout or inside it
                row = artifact_row(Hit(repo=name, path=rel, ref=commit), None, meta, registry.platform_of(rel), when)
                row["drop_reason"] = DropReason.SYMLINK  # its target is never read
                rows.append(row)
                continue
            try:
                raw = read_inside(full)
            except OSError as exc:  # unreadable (permissions, a device, a dangling link): kept with its reason
                log.warning("cannot read %s/%s: %s", name, rel, exc.strerror or exc)
                rows.append(artifact_row(Hit(repo=name, path=rel, ref=commit), None, meta, registry.platform_of(rel),
                                         when))
                continue
            blob = hashlib.sha1(b"blob %d\0" % len(raw) + raw, usedforsecurity=False).hexdigest()  # git's blob id
            hit = Hit(repo=name, path=rel, ref=commit, blob_sha=blob)
            rows.append(artifact_row(hit, raw, meta, registry.platform_of(rel), when))
        part = "local-" + stable_id("local", str(root.resolve()))
        if rows:
            corpus.write_part("artifacts", part, pa.Table.from_pylist(rows, schema=ARTIFACTS))
            corpus.write_part("repos", part, pa.Table.from_pylist([repo_row(meta, when)], schema=REPOS))
        total += len(rows)
    return total
