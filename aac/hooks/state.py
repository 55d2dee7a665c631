"""Per-session state under the user's cache folder: the compaction marker and the rules already shown at edits.

One small JSON file per session id (hashed: a session id is not trusted as a file name). Sessions untouched for a
week are removed when a new one is written.
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

from aac.hooks.paths import cache_dir, write_atomic

MAX_AGE_S = 7 * 24 * 3600


def _path(session_id: str) -> Path:
    digest = hashlib.sha256((session_id or "no-session").encode("utf-8", errors="replace")).hexdigest()[:24]
    return cache_dir() / "sessions" / f"{digest}.json"


def load(session_id: str) -> dict:
    try:
        data = json.loads(_path(session_id).read_text(encoding="utf-8"))
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def save(session_id: str, data: dict) -> None:
    path = _path(session_id)
    new = not path.exists()
    data["updated"] = time.time()
    write_atomic(path, json.dumps(data, ensure_ascii=False))
    if new:
        _prune(path.parent)


def _prune(folder: Path) -> None:
    cutoff = time.time() - MAX_AGE_S
    try:
        for p in folder.glob("*.json"):
            if p.stat().st_mtime < cutoff:
                p.unlink(missing_ok=True)
    except OSError:
        pass


def rule_key(file: str, text: str) -> str:
    return hashlib.sha256(f"{file}\0{' '.join(text.split())}".encode()).hexdigest()[:16]


def now() -> float:
    return time.time()

