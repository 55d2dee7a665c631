"""Step ``minhash``: the MinHash signature of the redacted text, which the corpus step ``dedupe`` clusters."""

from __future__ import annotations

from aac.processing.dedupe import NearDupConfig
from aac.processing.steps.base import RowStep


class MinHashSignature(RowStep):
    """Copies with the same content hash share the signature of the first one met (one MinHash per content)."""

    name = "minhash"
    libraries = ("datasketch",)

    def __init__(self, near: NearDupConfig = NearDupConfig()) -> None:
        self.near = near
        self._seen: dict[str, list[int]] = {}  # content_sha256 -> signature; the instance lives for one batch

    @classmethod
    def from_config(cls, cfg) -> "MinHashSignature":
        return cls(cfg.near)

    def parameters(self) -> dict:
        return {"num_perm": self.near.num_perm, "shingle": self.near.shingle, "seed": self.near.seed}

    def apply(self, row: dict) -> dict:
        sha = row.get("content_sha256")
        if sha is not None:
            if sha not in self._seen:
                self._seen[sha] = self.near.signature(row["content"]).tolist()
            row["_signature"] = self._seen[sha]
        return row
