"""Compose segmentation, scope and typing into rows of the ``items`` table.

Classification is the slow part for model-backed classifiers, so ``itemize_many`` (:mod:`aac.processing.item_batches`) collects items across many
artifacts and calls ``classifier.predict`` once per batch; ``itemize`` is the one-file convenience.
"""

from __future__ import annotations

import logging
from functools import lru_cache
from pathlib import Path

from aac.classifiers import get_classifier
from aac.classifiers.base import Classifier, ItemInput, in_hard_lane
from aac.classifiers.context import with_lead_ins
from aac.core.ids import artifact_id as make_artifact_id
from aac.core.ids import item_id
from aac.core.scope import scope_of, topic_of
from aac.core.segment import Segment, segment_document

log = logging.getLogger(__name__)


@lru_cache(maxsize=1)
def _default_classifier() -> Classifier:
    return get_classifier("default")


def resolve_classifier(classifier: Classifier | None) -> Classifier:
    """The given classifier, or the default one (loaded once per process)."""
    return classifier if classifier is not None else _default_classifier()


def _pending(artifact: str, path: str, content: str, authority: str, warnings: dict | None = None) -> list[tuple]:
    """(artifact_id, segment, scope, authority) for every item of one file, before typing."""
    try:
        doc = segment_document(content, path)
        pending = [(artifact, s, scope_of(s.section_path, path, doc.front_matter), authority) for s in doc.segments]
    except Exception as exc:  # noqa: BLE001 - a segmenter bug on one file must not stop a run: logged, no items
        log.warning("segmenting %s (%s) failed (%s); the file has no items", artifact, path, type(exc).__name__)
        if warnings is not None:
            warnings[artifact] = ("segmentation_failed",)
        return []
    if warnings is not None and (doc.warnings or not pending):
        # e.g. only headings or comments: said, not silent
        warnings[artifact] = doc.warnings + (() if pending else ("no_items",))
    return pending


def _rows(pending: list[tuple], classifier: Classifier) -> list[dict]:
    if not pending:
        return []
    preds = classifier.predict(with_lead_ins([ItemInput(s.text, s.section_path, s.kind, auth) for _, s, _, auth in pending],
                                             [artifact for artifact, _, _, _ in pending]))
    if len(preds) != len(pending):
        raise RuntimeError(f"classifier {classifier.name!r} returned {len(preds)} predictions for {len(pending)} items")
    rows = []
    for (artifact, s, scope, authority), p in zip(pending, preds):
        rows.append(_row(artifact, s, scope, authority, p, classifier))
    return rows


def _row(artifact: str, s: Segment, scope: tuple[str, ...], authority: str, p, classifier: Classifier) -> dict:
    return {
        "item_id": item_id(artifact, s.ordinal),
        "artifact_id": artifact,
        "ordinal": s.ordinal,
        "text": s.text,
        "kind": s.kind,
        "section_path": list(s.section_path),
        "topic": topic_of(s.section_path),
        "type": p.label,
        "type_proba": [float(x) for x in p.proba],
        "classifier": p.source or classifier.name,
        "confidence": float(p.confidence),
        "abstained": bool(p.abstained),
        "hard_lane": in_hard_lane(p),
        "scope": list(scope),
        "authority": authority,
        "n_tokens": s.n_tokens,
        "lead_in": s.lead_in or None,  # the line introducing the item's list: part of what it says
    }


def itemize(
    artifact_id: str, path: str, content: str, classifier: Classifier | None = None, authority: str = "user",
    warnings: dict[str, tuple[str, ...]] | None = None,
) -> list[dict]:
    """The typed, scoped item rows of one file (dicts with exactly the ``items`` columns); pass a dict as
    ``warnings`` to learn of segmentation warnings (``segmentation_failed`` among them)."""
    return _rows(_pending(artifact_id, path, content, authority, warnings), resolve_classifier(classifier))


def local_artifact_id(path: str | Path) -> str:
    """Id of a file outside any crawled repository (``aac compact FILE``): keyed by its path."""
    return make_artifact_id("local", Path(path).as_posix())


def items_from_file(path: str | Path, classifier: Classifier | None = None,
                    warnings: dict[str, tuple[str, ...]] | None = None) -> list[dict]:
    """Items of a local file; undecodable bytes become U+FFFD rather than an error."""
    p = Path(path)
    content = p.read_bytes().decode("utf-8", errors="replace")
    return itemize(local_artifact_id(p), p.as_posix(), content, classifier, warnings=warnings)
