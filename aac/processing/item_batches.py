"""Typed item rows as Arrow record batches of the ``items`` table, for the pipeline (a batch classified at once).

Kept apart from :mod:`aac.processing.items` so that the itemiser itself imports without pyarrow (the operators use it).
"""

from __future__ import annotations

from typing import Iterable, Iterator

import pyarrow as pa

from aac.classifiers.base import Classifier
from aac.core.schema import ITEMS
from aac.processing.items import _pending, _rows, resolve_classifier

_COLUMNS = ITEMS.names


def itemize_many(
    records: Iterable[tuple[str, str, str]], classifier: Classifier | None = None, batch_size: int = 4096,
    authority: str = "user", warnings: dict[str, tuple[str, ...]] | None = None,
) -> Iterator[pa.RecordBatch]:
    """Record batches of ``items`` rows for (artifact_id, path, content) records, typed a batch at a time.

    A record may carry a fourth element, its own authority. A file's items may straddle two batches; every
    batch holds at least ``batch_size`` rows except the last. Pass a dict as ``warnings`` to collect
    artifact_id -> segmentation warnings (e.g. ``malformed_front_matter``) without parsing twice.
    """
    clf = resolve_classifier(classifier)
    pending: list[tuple] = []
    for record in records:
        artifact, path, content = record[0], record[1], record[2]
        pending.extend(_pending(artifact, path, content, record[3] if len(record) > 3 else authority, warnings))
        if len(pending) >= batch_size:
            yield _batch(_rows(pending, clf))
            pending = []
    if pending:
        yield _batch(_rows(pending, clf))


def _batch(rows: list[dict]) -> pa.RecordBatch:
    columns = {name: [r[name] for r in rows] for name in _COLUMNS}
    return pa.RecordBatch.from_pydict(columns, schema=ITEMS)
