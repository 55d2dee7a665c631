"""Step ``items``: the ``items`` table, segmented and typed from the finished ``artifacts`` (kept, or private too
with ``keep_private``), reusing what the previous run made.

Items are deterministic per (path, content), so an artifact whose (path, content) key (:meth:`Itemise.item_key`,
which includes this step's fingerprint: the segmentation code) is unchanged keeps its rows when they were
typed under the current classifier's fingerprint (``aac.classifiers.base``), and has the same rows re-typed
otherwise (``retype_batch`` reads exactly what ``itemize`` feeds the classifier); the others are segmented and
typed afresh, in worker processes when the run has them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass, field

import pyarrow as pa
import pyarrow.compute as pc

from aac.classifiers.base import fingerprint_of
from aac.core.codehash import code_digest
from aac.core.store import Corpus
from aac.processing.steps.base import Step
from aac.processing.workers import chunks, ordered_map


@dataclass
class ItemsOutcome:
    items: int = 0  # rows written to ``items``
    reused: int = 0  # artifacts whose items were kept
    retyped: int = 0  # artifacts whose stored items were re-typed: the classifier's fingerprint changed
    rows_retyped: int = 0  # the item rows of those artifacts
    itemised: int = 0  # artifacts segmented and typed this run
    classifier: str | None = None  # fingerprint of the classifier that typed them (None: it has none)
    typed: dict[str, str] = field(default_factory=dict)  # artifact_id -> items key of every artifact with items


def _items_chunk(records: list[tuple[str, str, str]]) -> list[pa.RecordBatch]:
    from aac.processing.item_batches import itemize_many

    return list(itemize_many(records))


def _retype_chunk(table: pa.Table) -> pa.Table:
    from aac.classifiers.batch import retype_batch
    from aac.processing.items import resolve_classifier

    return retype_batch(resolve_classifier(None), table)


class Itemise(Step):
    name = "items"
    libraries = ("markdown-it-py", "pyyaml", "regex")

    def __init__(self, keep_private: bool = False, workers: int = 1, classifier: object | None = None) -> None:
        self.keep_private, self.workers, self.classifier = keep_private, workers, classifier
        self._fingerprint: str | None = None

    @classmethod
    def from_config(cls, cfg) -> "Itemise":
        return cls(cfg.keep_private, cfg.workers, cfg.classifier)

    def code(self) -> str:
        # segment, scope, tokens, ids, schema follow from the imports; the classifier that types the items is
        # tracked by its own fingerprint (re-typing, not re-segmenting)
        return code_digest([__name__, "aac.processing.items", "aac.processing.item_batches"], self.libraries,
                           exclude=("aac.classifiers",))

    def item_key(self, path: str, content: str) -> str:
        if self._fingerprint is None:
            self._fingerprint = self.fingerprint()
        key = f"{self._fingerprint}\0{path}\0{content}"
        return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()

    def _records(self, corpus: Corpus, before: dict[str, tuple[str, str | None]], fingerprint: str | None,
                 sort: dict[str, set], typed: dict[str, str]) -> Iterator[tuple[str, str, str]]:
        """Artifacts to segment and type; those whose (path, content) key is unchanged since ``before`` go to
        ``sort["reuse"]`` (same classifier fingerprint) or ``sort["retype"]`` (another one, or none) instead."""
        statuses = ("kept", "private") if self.keep_private else ("kept",)
        for b in corpus.iter_batches("artifacts", columns=["artifact_id", "path", "status", "content"], batch_size=2048):
            for r in b.to_pylist():
                if r["status"] in statuses and r["content"] is not None:
                    aid, key = r["artifact_id"], self.item_key(r["path"], r["content"])
                    typed[aid] = key
                    old = before.get(aid)
                    if old is not None and old[0] == key:
                        same = fingerprint is not None and old[1] == fingerprint
                        sort["reuse" if same else "retype"].add(aid)
                        continue
                    sort["made"].add(aid)
                    yield aid, r["path"], r["content"]

    def run(self, corpus: Corpus, before: dict[str, tuple[str, str | None]] | None = None) -> ItemsOutcome:
        """Replace ``items``; ``before`` (:func:`aac.processing.item_record.stored`) says which items it holds."""
        from aac.classifiers.batch import retype_batch
        from aac.processing.item_batches import itemize_many
        from aac.processing.items import resolve_classifier

        clf = resolve_classifier(self.classifier)
        outcome = ItemsOutcome(classifier=fingerprint_of(clf))
        sort: dict[str, set] = {"reuse": set(), "retype": set(), "made": set()}
        records = self._records(corpus, before or {}, outcome.classifier, sort, outcome.typed)
        in_workers = self.workers > 1 and self.classifier is None
        if in_workers:
            fresh = (b for bs in ordered_map(_items_chunk, chunks(records, 500), self.workers) for b in bs)
        else:
            fresh = itemize_many(records, classifier=clf)

        def stored(ids: set[str]) -> Iterator[pa.Table]:
            wanted = pa.array(sorted(ids))
            for b in corpus.iter_batches("items", batch_size=8192):
                t = pa.Table.from_batches([b]).filter(pc.is_in(b.column("artifact_id"), wanted))
                if t.num_rows:
                    yield t

        def retyped() -> Iterator[pa.Table]:
            for t in (ordered_map(_retype_chunk, stored(sort["retype"]), self.workers) if in_workers
                      else (retype_batch(clf, t) for t in stored(sort["retype"]))):
                outcome.rows_retyped += t.num_rows
                yield t

        def fresh_then_stored() -> Iterator:
            yield from fresh  # first: it sorts every artifact while the artifacts are read
            if sort["reuse"]:
                yield from stored(sort["reuse"])
            if sort["retype"]:
                yield from retyped()

        outcome.items = corpus.replace("items", fresh_then_stored(), allow_empty=True)  # no kept artifacts: no items
        outcome.reused, outcome.retyped, outcome.itemised = len(sort["reuse"]), len(sort["retype"]), len(sort["made"])
        return outcome
