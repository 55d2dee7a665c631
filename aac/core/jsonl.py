"""JSON Lines input read one way everywhere: blank lines skipped, a bad line named by file and line number."""

from __future__ import annotations

import json
from pathlib import Path


def numbered_objects(path: str | Path) -> list[tuple[int, dict]]:
    """(line number, JSON object) for each non-blank line; ValueError naming ``path:line`` for anything else."""
    out = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{n}: not JSON ({exc.msg})") from None
            if not isinstance(row, dict):
                raise ValueError(f"{path}:{n}: expected a JSON object")
            out.append((n, row))
    return out


def read_objects(path: str | Path) -> list[dict]:
    """The JSON objects of a JSON Lines file (see :func:`numbered_objects`)."""
    return [row for _, row in numbered_objects(path)]
