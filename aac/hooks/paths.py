"""Where the hooks keep their state: the user's cache folder ($XDG_CACHE_HOME/aac/hooks, else ~/.cache/aac/hooks).

Nothing is written into the project: the typed-item cache, per-session state and the log live here, so a hook run
never dirties a working tree. ``AAC_HOOKS_CACHE`` overrides the folder (tests, sandboxes).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

LOG_MAX_BYTES = 1 << 20  # the log is rotated (one old copy kept) past 1 MB


def cache_dir() -> Path:
    explicit = os.environ.get("AAC_HOOKS_CACHE")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "aac" / "hooks"


def log_path() -> Path:
    return cache_dir() / "hook.log"


def log(message: str) -> None:
    """One line in the hook log (never stdout: the agent reads stdout). Best effort: a log that cannot be written
    must not turn into an error the agent sees."""
    try:
        path = log_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists() and path.stat().st_size > LOG_MAX_BYTES:
            path.replace(path.with_suffix(".log.1"))
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S%z")
        with path.open("a", encoding="utf-8") as fh:
            fh.write(f"{stamp} {' '.join(message.split())}\n")
    except OSError:
        pass


def write_atomic(path: Path, text: str) -> None:
    """Write through a temporary file and a rename, so a concurrent reader never sees half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
