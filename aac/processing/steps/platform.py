"""Step ``platform``: the agent platform of the file, from the crawler's row or the path registry."""

from __future__ import annotations

from aac.core.platforms import platform_of
from aac.processing.steps.base import RowStep


class ResolvePlatform(RowStep):
    name = "platform"

    def apply(self, row: dict) -> dict:
        row["platform"] = row.get("platform") or platform_of(row["path"])
        return row
