"""The paper's measures for context operators, computed from output text so any strategy can be scored.

- Key-token preservation: an item survives when its guard's key tokens (negation/modal marker + object words)
  all occur together in the output; a constraint whose "never" was cut is *not* preserved.
- Per-type preservation: that rate per type. Macro-F1 over types: per type, recall = preserved share and
  precision = preserved / present, where *present* items show their opening words in the output; a fragment
  (opening kept, guard lost) is a false positive — a corrupted rule is worse than none.
- Locality: (partition, constraint) pairs where a partition holds an item in a constraint's scope without the
  constraint; rate and share of configurations with any violation.
- In-scope recall@k and token overhead.
"""

from __future__ import annotations

from typing import Sequence

from aac.operators.compact import hard_lane_of
from aac.operators.model import TYPES, Item, KnowledgeBase
from aac.operators.verify import OutputIndex, extract_guard, words

PRESENT_WORDS = 4


def preserved(item: Item, idx: OutputIndex) -> bool:
    return idx.has_guard(extract_guard(item.text))


def present(item: Item, idx: OutputIndex) -> bool:
    head = words(item.text)[:PRESENT_WORDS]
    if not head:
        return False
    n = len(head)
    out = idx.words
    for start in idx.pos.get(head[0], ()):
        if out[start:start + n] == head:
            return True
    return False


def constraints(kb: KnowledgeBase) -> list[Item]:
    """The items a compaction must not lose: the constraint lane of the knowledge base."""
    return [i for i in kb.items if hard_lane_of(i) == "C"]


def constraint_recall(kb: KnowledgeBase, output: str, idx: OutputIndex | None = None) -> float:
    cs = constraints(kb)
    if not cs:
        return 1.0
    idx = idx or OutputIndex(output)
    return sum(preserved(c, idx) for c in cs) / len(cs)


def lane_type(item: Item) -> str:
    """The type an item is scored under: its hard lane if it has one, else its label."""
    return hard_lane_of(item) or item.type


def per_type(kb: KnowledgeBase, output: str) -> dict[str, dict[str, float]]:
    """Per type: n, preserved share, precision (preserved / present) and F1."""
    idx = OutputIndex(output)
    out: dict[str, dict[str, float]] = {}
    for t in TYPES:
        its = [i for i in kb.items if lane_type(i) == t]
        if not its:
            continue
        kept = [preserved(i, idx) for i in its]
        shown = [k or present(i, idx) for i, k in zip(its, kept)]
        rec = sum(kept) / len(its)
        prec = sum(kept) / sum(shown) if any(shown) else 1.0
        f1 = 2 * prec * rec / (prec + rec) if prec + rec else 0.0
        out[t] = {"n": len(its), "preserved": rec, "precision": prec, "f1": f1}
    return out


def macro_f1(stats: dict[str, dict[str, float]]) -> float:
    return sum(s["f1"] for s in stats.values()) / len(stats) if stats else 0.0


def locality(kb: KnowledgeBase, partitions: Sequence) -> tuple[int, int]:
    """(violated, required) pairs over partitions with ``items`` (and optional ``pinned``) lists."""
    cons = constraints(kb)
    violated = required = 0
    for p in partitions:
        ids = {i.id for i in p.items} | {i.id for i in getattr(p, "pinned", [])}
        for topic in {i.topic for i in p.items}:
            for c in cons:
                if kb.in_scope(c, topic):
                    required += 1
                    violated += c.id not in ids
    return violated, required


def recall_at_k(retrieved_ids: Sequence[str], relevant_ids: Sequence[str]) -> float:
    rel = set(relevant_ids)
    return len(rel & set(retrieved_ids)) / len(rel) if rel else 1.0

