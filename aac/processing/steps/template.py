"""Corpus step ``template``: a human-written file whose near-duplicate cluster spans many repositories is a
copied template (``authorship = template_copy``); it reads the clusters the ``dedupe`` step recorded."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from aac.core.drop_reasons import DropReason
from aac.processing import tagging
from aac.processing.steps.base import CorpusStep


class TemplateAuthorship(CorpusStep):
    name = "template"

    def __init__(self, min_repos: int = tagging.TEMPLATE_MIN_REPOS) -> None:
        self.min_repos = min_repos

    @classmethod
    def from_config(cls, cfg) -> "TemplateAuthorship":
        return cls(cfg.template_min_repos)

    def parameters(self) -> dict:
        return {"min_repos": self.min_repos}

    def apply(self, t: pa.Table) -> pa.Table:
        exact = pc.fill_null(pc.equal(t.column("drop_reason"), DropReason.EXACT_DUPLICATE.value), False)
        copied = pc.fill_null(pc.and_(pc.equal(t.column("authorship"), "human"),
                                      pc.greater_equal(t.column("dup_cluster_repos"), self.min_repos)), False)
        authorship = pc.if_else(pc.and_(pc.invert(exact), copied), pa.scalar("template_copy"), t.column("authorship"))
        return t.set_column(t.schema.get_field_index("authorship"), "authorship", authorship)
