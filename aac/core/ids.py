"""Stable identifiers: the same input always yields the same id, so re-runs replace rather than duplicate."""

from __future__ import annotations

import hashlib


def stable_id(*parts: str, length: int = 16) -> str:
    """Hex id over the parts joined by NUL (NUL cannot occur in repo names or paths)."""
    h = hashlib.sha1("\0".join(parts).encode("utf-8"), usedforsecurity=False)
    return h.hexdigest()[:length]


def artifact_id(repo: str, path: str) -> str:
    """An artifact is one path in one repository, whatever its content over time."""
    return stable_id(repo, path)


def item_id(artifact: str, ordinal: int) -> str:
    return stable_id(artifact, str(ordinal))


def annotated_item_id(text: str) -> str:
    """The id of a segmented item in a labels-only file (aac/classifiers/data/annotated_*.jsonl): a hash of its
    text, so labels of third-party files are stored and shipped without the text and joined back by segmenting."""
    return "s" + hashlib.sha1(text.encode("utf-8")).hexdigest()[:12]
