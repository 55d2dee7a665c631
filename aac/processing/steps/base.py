"""The two kinds of processing step, and what makes their stored output reusable.

A :class:`RowStep` judges or enriches one artifact at a time (pass 1: normalise, licence, redact, tag, MinHash);
a :class:`CorpusStep` needs every artifact at once (dedupe clusters, template authorship). Both are small
classes with a ``name``, a ``version``, their ``parameters()`` and a ``fingerprint()``: everything their output
depends on, including a digest of their code (:mod:`aac.core.codehash`) and of the libraries named in
``libraries``, so a stored row is reused only while its step list's fingerprints are unchanged. Adding a step,
editing one or changing a setting it reads re-runs the stored rows on the next ``aac process`` without ``--full``
(the scheme of the classifiers' fingerprints, :func:`aac.classifiers.base.make_fingerprint`).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

import pyarrow as pa

from aac.core.codehash import code_digest

if TYPE_CHECKING:
    from aac.processing.config import ProcessConfig


@dataclass(frozen=True)
class Drop:
    """A row step's verdict that the file leaves the corpus: status ``dropped`` with ``reason``, content gone.

    ``reason``: a :class:`aac.core.drop_reasons.DropReason`, or one the step declares in ``RowStep.reasons``."""

    reason: str


class Step:
    """What every step has: a name, a version, its parameters and a fingerprint of all three plus its code."""

    name: ClassVar[str]
    version: ClassVar[int] = 1  # bump when the output changes for a reason the code digest cannot see
    libraries: ClassVar[tuple[str, ...]] = ()  # distributions whose behaviour shapes the output (their versions count)

    def parameters(self) -> dict:
        """The settings the output depends on (JSON-able)."""
        return {}

    def code(self) -> str:
        """Digest of the step's module and the ``aac`` modules it imports, plus the ``libraries``' versions."""
        return code_digest([type(self).__module__], self.libraries)

    def fingerprint(self) -> str:
        """``name/v<version>/<hash of parameters and code>``: equal fingerprints mean equal output."""
        parts = json.dumps([self.parameters(), self.code()], sort_keys=True, default=str)
        return f"{self.name}/v{self.version}/{hashlib.sha256(parts.encode()).hexdigest()[:16]}"


class RowStep(Step):
    """One per-artifact step of pass 1: ``apply(row)`` returns the row (changed in place or a new dict) or a
    :class:`Drop`. Pure per row: no state that outlives the batch, no network, never needs another row.

    The row is a dict of ``artifacts`` columns plus the stage's own (``_publishable``, ``_signature``, and
    ``_repo_license``: the repository's SPDX id). Rows judged upstream (``removed``, crawler drops) never reach
    the steps. A step that raises drops that one row as ``processing_error`` (the executor isolates it).
    """

    reasons: ClassVar[tuple[str, ...]] = ()  # drop reasons of its own, beyond aac.core.drop_reasons.DropReason

    @classmethod
    def from_config(cls, cfg: "ProcessConfig") -> "RowStep":
        """The step with the settings it reads from the run's configuration (default: none)."""
        return cls()

    def apply(self, row: dict) -> dict | Drop:
        raise NotImplementedError


class CorpusStep(Step):
    """A step over the whole corpus, in two streaming passes over pass 1's output: ``observe`` sees every staged
    batch (collect what the decision needs: keep it small), ``decide`` makes the corpus-wide decision once and
    returns the rows it considered, ``apply`` then rewrites each staged batch (Arrow compute, column-wise).
    Its state lives in the instance, made afresh per run.

    ``observes``: the staged columns ``observe`` reads (the staged parts are read back from disk for it: naming
    them keeps that read small); ``None``: every column; empty: the step observes nothing."""

    observes: ClassVar[tuple[str, ...] | None] = ()

    @classmethod
    def from_config(cls, cfg: "ProcessConfig") -> "CorpusStep":
        return cls()

    def observe(self, table: pa.Table) -> None:
        """One staged batch of pass 1's output (default: nothing to collect)."""

    def decide(self) -> int:
        """The corpus-wide decision once every batch was observed; returns the rows it considered."""
        return 0

    def apply(self, table: pa.Table) -> pa.Table:
        raise NotImplementedError
