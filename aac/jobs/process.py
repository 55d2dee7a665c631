"""The ``process`` job: normalise, dedupe, licence-filter, redact, tag and itemise a corpus' crawled artifacts.

``aac process`` and the Prefect flow ``process`` both call :func:`process` with one :class:`ProcessOptions`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from aac.core.licenses import parse_allowlist
from aac.core.store import Corpus
from aac.processing import pipeline
from aac.processing.dedupe import NearDupConfig


@dataclass(frozen=True)
class ProcessOptions:
    """What a process run may be told; the CLI options and the flow parameters are these fields."""

    corpus: str | Path = "data"
    keep_private: bool = False  # keep the redacted content of non-permissive files (never publishable)
    near_threshold: float = 0.85  # MinHash Jaccard threshold for near duplicates
    allow: str | None = None  # comma-separated SPDX allowlist (None: the permissive list)
    template_min_repos: int = 3  # a dedupe cluster over this many repositories is a template copy
    workers: int = 1
    full: bool = False  # recompute every artifact and item, not only what changed
    classifier: str = "default"  # registry name; ``default`` leaves it to the items step (workers type items)

    def config(self) -> pipeline.ProcessConfig:
        """The pipeline's configuration; an unknown classifier name raises KeyError naming those that exist."""
        clf = None
        if self.classifier != "default":
            from aac.classifiers import get_classifier  # the registry loads a model: only when one is named

            clf = get_classifier(self.classifier)
        return pipeline.ProcessConfig(keep_private=self.keep_private, allow=parse_allowlist(self.allow),
                                      near=NearDupConfig(threshold=self.near_threshold),
                                      template_min_repos=self.template_min_repos, workers=self.workers,
                                      incremental=not self.full, classifier=clf)


def process(options: ProcessOptions, config: pipeline.ProcessConfig | None = None) -> pipeline.ProcessReport:
    """Run the processing pass over ``options.corpus``; the report's ``to_dict()`` is what flows return.

    ``config``: ``options.config()`` when the caller built it already (the CLI does, to answer a bad classifier
    name before any work without loading the classifier twice)."""
    return pipeline.run(Corpus(options.corpus), config or options.config())
