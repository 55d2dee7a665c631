"""One writer per corpus: the lock every command that writes a corpus folder holds while it runs.

Two runs writing one corpus at once corrupt each other (both replace ``artifacts``; one deletes the other's
staging folder; a table is seen half-written). So ``crawl``, ``process``, ``refresh``, ``classify --corpus``,
``publish``, ``pull`` and ``demo`` (and the Prefect flows doing the same) hold ``<corpus>/.aac.lock`` for their
whole run:

- the lock is the kernel's (``flock`` on that file), so a holder that dies (kill -9 included) releases it at
  once: a lock left by a dead pid is simply taken over, never a reason to refuse;
- the file says who holds it (pid, command, start time, host), so a second writer that waited ``wait_s``
  seconds (default ``AAC_LOCK_WAIT``, else 10) refuses with a message naming that pid;
- it is re-entrant within a process: a refresh holds it and the processing it runs takes it again (also from
  a Prefect task thread of the same flow run);
- on taking it, the temp folders and files killed runs left in the corpus are removed
  (:meth:`aac.store.Corpus.remove_stale_temps`): no other writer can be running then.

Readers (``aac sql``, DuckDB on the catalog) take no lock: every table is replaced atomically. Without
``fcntl`` (Windows) corpora are not guarded.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import logging
import os
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

log = logging.getLogger(__name__)

LOCK_NAME = ".aac.lock"
DEFAULT_WAIT_S = 10.0
_POLL_S = 0.2


class CorpusLocked(OSError):
    """Another process holds the corpus's lock (an OSError: the CLI prints it as one ``error:`` line)."""


_held: dict[str, list] = {}  # lock path -> [open file, depth]: this process's locks
_guard = threading.Lock()


def lock_path(root: str | os.PathLike) -> Path:
    return Path(root) / LOCK_NAME


def holder(root: str | os.PathLike) -> dict | None:
    """What the lock file says of its holder ({pid, command, since, host}), or None (never locked, unreadable)."""
    try:
        value = json.loads(lock_path(root).read_text(encoding="utf-8") or "null")
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def pid_alive(pid: int) -> bool:
    """Whether a process with this pid exists on this machine (one of another user's counts)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return False
    return True


def default_wait() -> float:
    try:
        return max(0.0, float(os.environ.get("AAC_LOCK_WAIT", DEFAULT_WAIT_S)))
    except ValueError:
        return DEFAULT_WAIT_S


def _describe(info: dict | None) -> str:
    if not info:
        return "another process"
    parts = [f"pid {info.get('pid')}"]
    if info.get("command"):
        parts.append(f"`{info['command']}`")
    if info.get("since"):
        parts.append(f"started {info['since']}")
    if info.get("host") and info.get("host") != socket.gethostname():
        parts.append(f"on host {info['host']}")
    return ", ".join(parts)


@contextlib.contextmanager
def corpus_lock(root: str | os.PathLike, command: str, wait_s: float | None = None,
                create: bool = True) -> Iterator[None]:
    """Hold the corpus's writer lock for the block (see the module docstring); raises :class:`CorpusLocked`
    when another process still holds it after ``wait_s`` seconds. ``create=False``: a corpus folder that does
    not exist is not made just to be locked (a reader-like writer such as ``publish`` then has nothing to guard)."""
    try:
        import fcntl
    except ImportError:  # no flock (Windows): not guarded
        yield
        return
    root = Path(root)
    if not root.is_dir():
        if not create:
            yield
            return
        root.mkdir(parents=True, exist_ok=True)
    path = lock_path(root)
    key = str(path.resolve())
    with _guard:
        mine = _held.get(key)
        if mine is not None:
            mine[1] += 1
    if mine is not None:
        try:
            yield
        finally:
            with _guard:
                mine[1] -= 1
        return
    f = _acquire(path, command, default_wait() if wait_s is None else wait_s, fcntl)
    with _guard:
        _held[key] = [f, 1]
    try:
        from aac.core.store import Corpus

        removed = Corpus(root).remove_stale_temps()
        if removed:
            log.info("removed %d temp folder(s)/file(s) killed runs left in %s", removed, root)
        yield
    finally:
        with _guard:
            _held.pop(key, None)
        try:
            f.seek(0)
            f.truncate()
        except OSError:
            pass
        fcntl.flock(f, fcntl.LOCK_UN)
        f.close()


def _acquire(path: Path, command: str, wait_s: float, fcntl):
    f = open(path, "a+", encoding="utf-8")
    deadline = time.monotonic() + wait_s
    waited = False
    while True:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except BlockingIOError:
            if time.monotonic() >= deadline:
                info = holder(path.parent)
                f.close()
                raise CorpusLocked(
                    f"corpus {path.parent} is in use by {_describe(info)}"
                    + (f" (waited {wait_s:g} s)" if wait_s else "")
                    + "; run again when it ends (AAC_LOCK_WAIT=SECONDS waits longer)") from None
            if not waited:
                log.warning("corpus %s is in use by %s; waiting up to %g s", path.parent,
                            _describe(holder(path.parent)), wait_s)
                waited = True
            time.sleep(_POLL_S)
    before = holder(path.parent)
    if before and isinstance(before.get("pid"), int) and before["pid"] != os.getpid():
        # the kernel released the lock of a process that died (or ended without clearing the file)
        log.info("took over the lock of %s, which no longer runs", _describe(before))
    f.seek(0)
    f.truncate()
    f.write(json.dumps({"pid": os.getpid(), "command": command, "host": socket.gethostname(),
                        "since": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")}))
    f.flush()
    return f


def held_here(root: str | os.PathLike) -> bool:
    """Whether this process holds the lock of ``root`` (a writer may assert it)."""
    with _guard:
        return str(lock_path(root).resolve()) in _held
