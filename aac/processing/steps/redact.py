"""Step ``redact``: secrets replaced by placeholders, their count and kinds recorded (:mod:`aac.processing.secrets`)."""

from __future__ import annotations

from aac.processing import secrets
from aac.processing.steps.base import RowStep


class Redact(RowStep):
    name = "redact"
    libraries = ("detect-secrets",)

    def apply(self, row: dict) -> dict:
        scrubbed = secrets.scrub(row["content"])
        row.update(content=scrubbed.text, secrets_found=scrubbed.found, secret_kinds=list(scrubbed.kinds))
        return row
