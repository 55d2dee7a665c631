"""Step ``agent_file``: a path no agent platform claims is not an instruction file."""

from __future__ import annotations

from aac.core.drop_reasons import DropReason
from aac.processing.steps.base import Drop, RowStep


class AgentFilesOnly(RowStep):
    name = "agent_file"

    def apply(self, row: dict) -> dict | Drop:
        return Drop(DropReason.NOT_AN_AGENT_FILE) if row.get("platform") is None else row
