"""The ``process`` job: normalise, dedupe, licence-filter, redact, tag and itemise a corpus' crawled artifacts.

``aac process`` and the Prefect flow ``process`` both call :func:`process` with one :class:`ProcessOptions`. The
flow passes its own stages (each a retried Prefect task, :class:`aac.processing.stages.ProcessStages`), so a retry
redoes one stage; their order and the corpus lock held over all of them live in :func:`aac.processing.pipeline.run`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from aac.jobs.options import corpus_option, option

if TYPE_CHECKING:  # the pipeline is imported when a job runs: a front end builds its options without it
    from aac.processing import pipeline


@dataclass(frozen=True)
class ProcessOptions:
    """What a process run may be told; the CLI options and the flow parameters are these fields."""

    corpus: str | Path = corpus_option()
    keep_private: bool = option(False, "Keep the (redacted) content of non-permissively licensed files for private "
                                       "analysis; they are never in publishable_* views.", "--keep-private")
    near_threshold: float = option(0.85, "MinHash Jaccard threshold for near duplicates.", "--near-threshold",
                                   min=0.05, max=0.97)
    allow: str | None = option(None, "Comma-separated SPDX allowlist (default: the permissive list).", "--allow")
    template_min_repos: int = option(3, "A dedupe cluster over this many repositories is a template copy.",
                                     "--template-min-repos", min=2)
    workers: int = option(1, "Processes for the per-artifact steps.", "--workers", min=1)
    full: bool = option(False, "Recompute every artifact and item (default: only those whose input or processing "
                               "code changed since the last run; items typed by another classifier or model are "
                               "re-typed either way).", "--full")
    # ``default`` leaves it to the items step (workers type items)
    classifier: str = option("default", "Registry name of the classifier that types the items.", "--classifier")

    def config(self) -> pipeline.ProcessConfig:
        """The pipeline's configuration; an unknown classifier name raises KeyError naming those that exist."""
        from aac.core.licenses import parse_allowlist
        from aac.processing import pipeline
        from aac.processing.dedupe import NearDupConfig

        clf = None
        if self.classifier != "default":
            from aac.classifiers import get_classifier  # the registry loads a model: only when one is named

            clf = get_classifier(self.classifier)
        return pipeline.ProcessConfig(keep_private=self.keep_private, allow=parse_allowlist(self.allow),
                                      near=NearDupConfig(threshold=self.near_threshold),
                                      template_min_repos=self.template_min_repos, workers=self.workers,
                                      incremental=not self.full, classifier=clf)


def process(options: ProcessOptions, config: pipeline.ProcessConfig | None = None,
            stages: pipeline.ProcessStages | None = None) -> pipeline.ProcessReport:
    """Run the processing pass over ``options.corpus``; the report's ``to_dict()`` is what flows return.

    ``config``: ``options.config()`` when the caller built it already (the CLI does, to answer a bad classifier
    name before any work without loading the classifier twice). ``stages``: the plain stages when None."""
    from aac.core.store import Corpus
    from aac.processing import pipeline

    return pipeline.run(Corpus(options.corpus), config or options.config(), stages=stages or pipeline.ProcessStages())
