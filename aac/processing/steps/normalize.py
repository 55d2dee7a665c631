"""Step ``normalize``: decode and normalise the content, or drop bad input (:mod:`aac.processing.normalize`)."""

from __future__ import annotations

from aac.processing import normalize
from aac.processing.steps.base import Drop, RowStep


class Normalize(RowStep):
    name = "normalize"
    libraries = ("pyyaml",)  # the front-matter check

    def __init__(self, max_bytes: int = normalize.MAX_BYTES) -> None:
        self.max_bytes = max_bytes

    @classmethod
    def from_config(cls, cfg) -> "Normalize":
        return cls(cfg.max_bytes)

    def parameters(self) -> dict:
        return {"max_bytes": self.max_bytes}

    def apply(self, row: dict) -> dict | Drop:
        norm = normalize.normalize(row.get("content"), self.max_bytes)
        row["input_fixes"] = ",".join(norm.fixes) or None  # recorded for dropped files too
        if not norm.kept:
            return Drop(norm.drop_reason)
        row["content"] = norm.text
        return row
