"""A toy filter written the way aac/processing/steps/__init__.py says a new processing step is: this one module, plus one
registration line (``register_row_step``) where it joins the step list."""

from __future__ import annotations

import re

from aac.processing.steps import Drop, RowStep

_PLACEHOLDER = re.compile(r"\A\s*(?:#[^\n]*\n\s*)*(?:TODO|TBD|coming soon)[.!]?\s*\Z", re.I)


class DropPlaceholders(RowStep):
    """A file that only says "TODO" (under an optional heading) is no instruction: dropped as ``placeholder``."""

    name = "placeholder"
    reasons = ("placeholder",)

    def apply(self, row: dict) -> dict | Drop:
        return Drop("placeholder") if _PLACEHOLDER.match(row["content"]) else row
