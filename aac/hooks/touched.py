"""The files a session touched: from the transcript's tool calls, else from git, else none.

Transcripts differ per agent (Claude Code and Codex write JSON lines, Gemini CLI one JSON document), so they are
read generically: every string under a key that names a file (``file_path``, ``path``, ``absolute_path``,
``filePath``, ``notebook_path``) and every ``*** Update File: ...`` line of a patch. Only the transcript's tail is
read (the most recent activity, bounded time). A missing or unreadable transcript is no error: git's view of the
working tree stands in for it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

TAIL_BYTES = 4 << 20
FILE_KEYS = frozenset({"file_path", "path", "absolute_path", "filePath", "notebook_path", "target_file"})
_PATCH_FILE = re.compile(r"^\*\*\* (?:Update|Add|Delete) File: (.+)$", re.MULTILINE)


def touched_files(root: Path, transcript: str | None) -> tuple[list[str], str]:
    """(project-relative paths, where they came from: "transcript" | "git" | "none")."""
    if transcript:
        found = from_transcript(root, Path(transcript))
        if found:
            return found, "transcript"
    found = from_git(root)
    return (found, "git") if found else ([], "none")


def from_transcript(root: Path, path: Path) -> list[str]:
    try:
        size = path.stat().st_size
        with path.open("rb") as fh:
            if size > TAIL_BYTES:
                fh.seek(size - TAIL_BYTES)
                fh.readline()  # a partial first line
            data = fh.read().decode("utf-8", errors="replace")
    except OSError:
        return []
    values: list[str] = []
    docs = []
    try:
        docs = [json.loads(data)]
    except ValueError:
        for line in data.splitlines():
            line = line.strip()
            if line.startswith(("{", "[")):
                try:
                    docs.append(json.loads(line))
                except ValueError:
                    continue
    for doc in docs:
        _collect(doc, values, 0)
    return _relative(root, values)


def _collect(node, out: list[str], depth: int) -> None:
    if depth > 40:
        return
    if isinstance(node, dict):
        for k, v in node.items():
            if k in FILE_KEYS and isinstance(v, str):
                out.append(v)
            elif isinstance(v, str) and v.lstrip().startswith("{") and k in ("arguments", "input"):
                try:  # Codex keeps a tool call's arguments as a JSON string
                    _collect(json.loads(v), out, depth + 1)
                except ValueError:
                    pass
            elif isinstance(v, str):
                if "*** " in v:
                    out.extend(m.strip() for m in _PATCH_FILE.findall(v))
            else:
                _collect(v, out, depth + 1)
    elif isinstance(node, list):
        for v in node:
            _collect(v, out, depth + 1)


def _relative(root: Path, values: list[str]) -> list[str]:
    """Paths inside the project, relative, "/"-separated, first occurrence order, no duplicates."""
    root_s = os.path.realpath(root)
    out: dict[str, None] = {}
    for v in values:
        v = v.strip()
        if not v or "\n" in v or len(v) > 1000:
            continue
        full = v if os.path.isabs(v) else os.path.join(root_s, v)
        rel = os.path.relpath(os.path.realpath(full), root_s)
        if rel == "." or rel.startswith(".."):
            continue
        out.setdefault(rel.replace(os.sep, "/"), None)
    return list(out)


def from_git(root: Path) -> list[str]:
    """Changed and untracked files of the working tree (``git status``) and the last commit's files."""
    names: list[str] = []
    for args in (["status", "--porcelain", "-z", "--untracked-files=all"], ["diff", "--name-only", "HEAD~1", "HEAD"]):
        try:
            res = subprocess.run(["git", "-C", str(root), *args], capture_output=True, timeout=3, check=False)
        except (OSError, subprocess.SubprocessError):
            return names
        if res.returncode != 0:
            continue
        text = res.stdout.decode("utf-8", errors="replace")
        if args[0] == "status":
            entries = iter(text.split("\0"))
            for entry in entries:
                if len(entry) > 3:
                    names.append(entry[3:])
                    if entry[0] in "RC":  # a rename or copy: the next entry is the old path
                        next(entries, None)
        else:
            names.extend(text.splitlines())
    top = _git_top(root)
    if top is None:
        return []
    return _relative(root, [os.path.join(top, n) for n in names if n])


def _git_top(root: Path) -> str | None:
    try:
        res = subprocess.run(["git", "-C", str(root), "rev-parse", "--show-toplevel"], capture_output=True,
                             timeout=3, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return res.stdout.decode().strip() or None if res.returncode == 0 else None
