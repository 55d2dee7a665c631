"""Step ``content_hash``: the exact-duplicate key and the size of the normalised text (before redaction)."""

from __future__ import annotations

from aac.processing.dedupe import content_sha256
from aac.processing.steps.base import RowStep


class ContentHash(RowStep):
    name = "content_hash"

    def apply(self, row: dict) -> dict:
        text = row["content"]
        row.update(content_sha256=content_sha256(text), size_bytes=len(text.encode("utf-8")))
        return row
