"""The processing step list: what ``aac process`` does to every artifact, in order.

Row steps (pass 1, per artifact, in worker processes; :class:`~aac.processing.steps.base.RowStep`) run on the
raw rows whose input or step list changed since the stored run; the corpus steps
(:class:`~aac.processing.steps.base.CorpusStep`) then run over every artifact; the items step derives ``items``.

**Adding a filter**: write one module here with a ``RowStep`` subclass (``name``, ``apply(row) -> row | Drop``,
its ``parameters()`` and ``reasons`` if it drops for a reason of its own) and add one line to :data:`ROW_STEPS`
(or call :func:`register_row_step` from your own code). Its fingerprint enters the reuse key of every stored
row, so the next ``aac process`` re-runs the stored rows through it without ``--full``.
"""

from __future__ import annotations

from aac.processing.steps.agent_file import AgentFilesOnly
from aac.processing.steps.base import CorpusStep, Drop, RowStep
from aac.processing.steps.content_hash import ContentHash
from aac.processing.steps.dedupe import Dedupe
from aac.processing.steps.license import LicenseVerdict
from aac.processing.steps.minhash import MinHashSignature
from aac.processing.steps.normalize import Normalize
from aac.processing.steps.platform import ResolvePlatform
from aac.processing.steps.redact import Redact
from aac.processing.steps.tags import Tag
from aac.processing.steps.template import TemplateAuthorship

ROW_STEPS: list[type[RowStep]] = [
    ResolvePlatform,  # platform of the path
    Normalize,  # decode, normalise, or drop bad input
    AgentFilesOnly,  # no platform: not_an_agent_file
    LicenseVerdict,  # kept or private
    Tag,  # function, authorship, specificity (unredacted text)
    ContentHash,  # exact-duplicate key, size
    Redact,  # secrets out
    MinHashSignature,  # near-duplicate signature of the redacted text
]

CORPUS_STEPS: list[type[CorpusStep]] = [
    Dedupe,  # exact copies dropped, near-duplicate clusters
    TemplateAuthorship,  # a cluster over many repositories: template_copy
]


def register_row_step(step: type[RowStep], *, before: str | None = None) -> type[RowStep]:
    """Add ``step`` to :data:`ROW_STEPS`, before the step named ``before`` (default: at the end). Usable as a
    class decorator; the step list is read at the start of each run."""
    if any(s.name == step.name for s in ROW_STEPS):
        raise ValueError(f"a row step named {step.name!r} is registered already")
    names = [s.name for s in ROW_STEPS]
    if before is not None and before not in names:
        raise ValueError(f"no row step named {before!r}; the steps are {names}")
    ROW_STEPS.insert(names.index(before) if before is not None else len(ROW_STEPS), step)
    return step


__all__ = ["CORPUS_STEPS", "ROW_STEPS", "CorpusStep", "Drop", "RowStep", "register_row_step"]
