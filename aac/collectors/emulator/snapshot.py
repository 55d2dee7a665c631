"""Snapshot files: JSON Lines of agent-config files, one per line (the format of the shared real sample).

Validation happens at load time, line by line, so a broken snapshot fails loudly with the file and line
number instead of serving a silently smaller corpus.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from aac.core.errors import InputError

REQUIRED = ("repo", "path", "content")
OPTIONAL_TYPES: dict[str, tuple[type, ...]] = {
    "license_spdx": (str, type(None)),
    "stars": (int, type(None)),
    "language": (str, type(None)),
    "commit": (str, type(None)),
    "pushed_at": (str, type(None)),
    "license_file": (str, type(None)),
    "size_bytes": (int, type(None)),
    "platform": (str, type(None)),
}
_REPO = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")


class SnapshotError(InputError, ValueError):
    """A snapshot record is unusable; the message names where (file:line) and what is wrong."""


def check_record(rec: Any, where: str) -> dict:
    """Return ``rec`` if it is a valid snapshot record, else raise :class:`SnapshotError` naming ``where``."""
    if not isinstance(rec, dict):
        raise SnapshotError(f"{where}: expected a JSON object, got {type(rec).__name__}")
    for key in REQUIRED:
        if key not in rec:
            raise SnapshotError(f"{where}: missing required field {key!r}")
        if not isinstance(rec[key], str):
            raise SnapshotError(f"{where}: field {key!r} must be a string, got {type(rec[key]).__name__}")
    if not _REPO.match(rec["repo"]):
        raise SnapshotError(f"{where}: repo {rec['repo']!r} is not of the form 'owner/name'")
    path = rec["path"]
    if not path or path.startswith("/") or path.endswith("/") or "//" in path:
        raise SnapshotError(f"{where}: path {path!r} is not a relative file path")
    for key, types in OPTIONAL_TYPES.items():
        if key in rec and (not isinstance(rec[key], types) or isinstance(rec[key], bool)):
            want = " or ".join("null" if t is type(None) else t.__name__ for t in types)
            raise SnapshotError(f"{where}: field {key!r} must be {want}, got {type(rec[key]).__name__}")
    return rec


def _json_reason(exc: json.JSONDecodeError) -> str:
    """json's message and the column: some messages already end in "at" ("Unterminated string starting at")."""
    msg = exc.msg.rstrip()
    return f"{msg} column {exc.colno}" if msg.endswith(" at") else f"{msg} at column {exc.colno}"


def _located(path: Path) -> Iterator[tuple[str, dict]]:
    try:
        fh = open(path, encoding="utf-8")
    except OSError as exc:
        raise SnapshotError(f"{path}: cannot open snapshot: {exc.strerror or exc}") from None
    with fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            where = f"{path}:{lineno}"
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as exc:
                raise SnapshotError(f"{where}: invalid JSON ({_json_reason(exc)})") from None
            yield where, check_record(rec, where)


def _unique(records: Iterable[tuple[str, dict]]) -> list[dict]:
    seen: set[tuple[str, str]] = set()
    out = []
    for where, rec in records:
        key = (rec["repo"], rec["path"])
        if key in seen:
            raise SnapshotError(f"{where}: duplicate file {rec['repo']}/{rec['path']} (each repo/path once)")
        seen.add(key)
        out.append(rec)
    return out


def load_snapshot(source: str | Path | Iterable[dict]) -> list[dict]:
    """All records of a snapshot file (or validate an iterable of records); raises :class:`SnapshotError`.

    A (repo, path) pair may appear once: a second copy would make search results ambiguous.
    """
    if isinstance(source, (str, Path)):
        return _unique(_located(Path(source)))
    return _unique((f"record {i}", check_record(rec, f"record {i}")) for i, rec in enumerate(source, 1))
