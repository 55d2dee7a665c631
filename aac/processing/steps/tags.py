"""Step ``tags``: function, authorship and specificity of the (unredacted) text (:mod:`aac.processing.tagging`).

Template authorship needs the dedupe clusters: the corpus step ``template`` completes it."""

from __future__ import annotations

from aac.processing import tagging
from aac.processing.steps.base import RowStep


class Tag(RowStep):
    name = "tags"

    def apply(self, row: dict) -> dict:
        tags = tagging.tag(row["repo"], row["path"], row["content"])
        row.update(function=tags.function, authorship=tags.authorship, specificity=tags.specificity)
        return row
