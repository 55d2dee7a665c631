"""Type-blind baselines the paper compares the operators against.

Compaction: hierarchical truncation (head), temporal windowing (tail), aggressive pruning (drop the items made
of the most frequent words first), MaRS-FL (one submodular facility-location utility over all items, no
pinning). Decomposition: fixed token chunks, topic chunks without replication, paragraph-block packing.
Retrieval baselines are ``TypeRetriever(..., pin=False)`` with the BM25 or dense scorer (see ``retrieve``).
"""

from __future__ import annotations

import zlib
from collections import Counter
from typing import Sequence

import numpy as np

from aac.operators.compact import resolve_budget
from aac.operators.decompose import Partition
from aac.operators.model import Item, KnowledgeBase
from aac.operators.verify import words
from aac.core.tokens import count_tokens

SEPARATOR = "\n"


def _render(items: Sequence[Item]) -> str:
    return SEPARATOR.join(i.text for i in sorted(items, key=lambda i: i.order))


def _cut(text: str, n: int, from_end: bool = False) -> str:
    """The longest prefix (or suffix) of ``text`` with at most ``n`` tokens (binary search on characters)."""
    if n <= 0:
        return ""
    if count_tokens(text) <= n:
        return text
    lo, hi = 0, len(text)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        part = text[len(text) - mid:] if from_end else text[:mid]
        if count_tokens(part) <= n:
            lo = mid
        else:
            hi = mid - 1
    return text[len(text) - lo:] if from_end else text[:lo]


def _window(kb: KnowledgeBase, budget: float | int, from_end: bool) -> str:
    """Whole items from one end while they fit, then the fitting part of the next one (cut mid-item)."""
    limit = resolve_budget(budget, kb.total_tokens)
    items = sorted(kb.items, key=lambda i: i.order, reverse=from_end)
    sep = count_tokens(SEPARATOR)
    kept: list[str] = []
    used = 0
    for it in items:
        cost = it.tokens + (sep if kept else 0)
        if used + cost <= limit:
            kept.append(it.text)
            used += cost
            continue
        part = _cut(it.text, limit - used - (sep if kept else 0), from_end=from_end)
        if part.strip():
            kept.append(part)
        break
    text = SEPARATOR.join(reversed(kept) if from_end else kept)
    return text if count_tokens(text) <= limit else _cut(text, limit, from_end)


def truncation(kb: KnowledgeBase, budget: float | int) -> str:
    """Hierarchical truncation: keep the head of the document up to the budget."""
    return _window(kb, budget, from_end=False)


def temporal_window(kb: KnowledgeBase, budget: float | int) -> str:
    """Temporal windowing: keep the most recent (last) tokens up to the budget."""
    return _window(kb, budget, from_end=True)


def _pack(kb: KnowledgeBase, order: Sequence[Item], limit: int) -> str:
    """Greedily keep items in ``order`` while the rendered text fits; render in source order."""
    kept: list[Item] = []
    used = 0
    sep = count_tokens(SEPARATOR)
    for it in order:
        cost = it.tokens + (sep if kept else 0)
        if used + cost <= limit:
            kept.append(it)
            used += cost
    text = _render(kept)
    while kept and count_tokens(text) > limit:  # tokenizer not additive at the joins: shed from the end
        kept.pop()
        text = _render(kept)
    return text


def aggressive_pruning(kb: KnowledgeBase, budget: float | int) -> str:
    """Drop items whose words are the most frequent in the knowledge base first (frequent = redundant)."""
    freq = Counter(w for it in kb.items for w in words(it.text))
    def score(it: Item) -> float:
        ws = words(it.text)
        return sum(freq[w] for w in ws) / len(ws) if ws else float("inf")
    order = sorted(kb.items, key=lambda it: (score(it), it.order))
    return _pack(kb, order, resolve_budget(budget, kb.total_tokens))


def hashed_tfidf(texts: Sequence[str], dim: int = 1024) -> np.ndarray:
    """Row-normalised TF-IDF over hashed word features (deterministic, no fitted vocabulary)."""
    rows = [[zlib.crc32(w.encode()) % dim for w in words(t)] for t in texts]
    tf = np.zeros((len(texts), dim), dtype=np.float32)
    for r, feats in enumerate(rows):
        np.add.at(tf[r], feats, 1.0)
    df = (tf > 0).sum(axis=0)
    x = tf * np.log((1 + len(texts)) / (1 + df))[None, :]
    n = np.linalg.norm(x, axis=1, keepdims=True)
    return x / np.where(n == 0, 1.0, n)


def mars_fl(kb: KnowledgeBase, budget: float | int) -> str:
    """MaRS-FL: cost-scaled greedy maximisation of facility location sum_j max_{i in S} sim(i, j), no pinning."""
    limit = resolve_budget(budget, kb.total_tokens)
    items = sorted(kb.items, key=lambda i: i.order)
    if not items:
        return ""
    x = hashed_tfidf([i.text for i in items])
    sim = np.clip(x @ x.T, 0.0, None)
    cover = np.zeros(len(items), dtype=np.float32)
    cost = np.array([max(1, i.tokens) for i in items], dtype=np.float32)
    chosen = np.zeros(len(items), dtype=bool)
    used = 0
    sep = count_tokens(SEPARATOR)
    while True:
        gains = np.maximum(sim, cover[None, :]).sum(axis=1) - cover.sum()
        ratio = np.where(chosen | (used + cost + sep > limit), -1.0, gains / cost)
        best = int(np.argmax(ratio))
        if ratio[best] <= 0:
            break
        chosen[best] = True
        used += int(cost[best]) + sep
        cover = np.maximum(cover, sim[best])
    return _pack(kb, [it for it, c in zip(items, chosen) if c], limit)


COMPACTION_BASELINES = {"truncation": truncation, "temporal": temporal_window, "pruning": aggressive_pruning,
                        "mars-fl": mars_fl}


def chunk_by_tokens(kb: KnowledgeBase, budget: int) -> list[Partition]:
    """Fixed-size chunks of consecutive items, blind to topics and scopes."""
    return _chunks(sorted(kb.items, key=lambda i: i.order), budget, "")


def chunk_by_topic(kb: KnowledgeBase, budget: int) -> list[Partition]:
    """Group by topic and chunk each group, without replicating constraints."""
    groups: dict[str, list[Item]] = {}
    for it in sorted(kb.items, key=lambda i: i.order):
        groups.setdefault(it.topic, []).append(it)
    return [p for topic, its in groups.items() for p in _chunks(its, budget, topic)]


def chunk_by_paragraph_budget(kb: KnowledgeBase, budget: int) -> list[Partition]:
    """Pack whole blocks (runs of items under the same section) while they fit; split a block only if too big."""
    blocks: list[list[Item]] = []
    for it in sorted(kb.items, key=lambda i: i.order):
        if blocks and blocks[-1][-1].section == it.section:
            blocks[-1].append(it)
        else:
            blocks.append([it])
    parts: list[Partition] = []
    cur: list[Item] = []
    for block in blocks:
        if count_tokens(_render(cur + block)) <= budget:
            cur += block
            continue
        if cur:
            parts.append(Partition(cur[0].topic, cur, []))
        if count_tokens(_render(block)) <= budget:
            cur = list(block)
        else:
            parts += _chunks(block, budget, block[0].topic)
            cur = []
    if cur:
        parts.append(Partition(cur[0].topic, cur, []))
    return parts


def _chunks(items: Sequence[Item], budget: int, topic: str) -> list[Partition]:
    parts: list[Partition] = []
    cur: list[Item] = []
    used = 0
    sep = count_tokens(SEPARATOR)
    for it in items:
        cost = it.tokens + (sep if cur else 0)
        if cur and used + cost > budget:
            parts.append(Partition(topic or cur[0].topic, cur, []))
            cur, used, cost = [], 0, it.tokens
        cur.append(it)
        used += cost
    if cur:
        parts.append(Partition(topic or cur[0].topic, cur, []))
    return parts


DECOMPOSITION_BASELINES = {"chunk_by_tokens": chunk_by_tokens, "chunk_by_topic": chunk_by_topic,
                           "chunk_by_paragraph_budget": chunk_by_paragraph_budget}
