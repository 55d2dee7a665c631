"""The settings of one processing run (``aac process``'s options, as the pipeline reads them)."""

from __future__ import annotations

from dataclasses import dataclass, field

from aac.core import licenses
from aac.processing import normalize, tagging
from aac.processing.dedupe import NearDupConfig


@dataclass(frozen=True)
class ProcessConfig:
    keep_private: bool = False
    allow: frozenset[str] = licenses.PERMISSIVE
    near: NearDupConfig = field(default_factory=NearDupConfig)
    template_min_repos: int = tagging.TEMPLATE_MIN_REPOS
    max_bytes: int = normalize.MAX_BYTES
    batch_size: int = 2000
    workers: int = 1
    items: bool = True
    classifier: object | None = None  # an aac.classifiers Classifier; None = get_classifier("default")
    incremental: bool = True  # reuse pass-1 rows, signatures and items of unchanged inputs (aac.processing.pipeline)
