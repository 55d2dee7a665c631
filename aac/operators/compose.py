"""Composition (paper §3.3): compact first; when the hard lane does not fit (Unsafe), fall through to
decompose + retrieve, so the agent gets one partition that fits the budget and carries every constraint in
scope of its items, chosen by the query."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from aac.operators.compact import CompactResult, resolve_budget, type_compact
from aac.operators.decompose import DecomposeResult, Partition, type_decompose
from aac.operators.model import KnowledgeBase
from aac.operators.retrieve import TypeRetriever


@dataclass
class Context:
    mode: str  # "compact" or "decompose+retrieve"
    text: str
    compact: CompactResult
    decomposition: DecomposeResult | None = None
    partition: Partition | None = None


def fit_context(kb: KnowledgeBase, budget: float | int, query: str = "", topics: Sequence[str] | None = None,
                scorer: str = "bm25") -> Context:
    """The context for ``query`` within ``budget``: the compacted KB when safe, else the best partition."""
    res = type_compact(kb, budget)
    if not res.unsafe:
        return Context("compact", res.text, res)
    limit = resolve_budget(budget, kb.total_tokens)
    dec = type_decompose(kb, limit)
    if not dec.partitions:
        return Context("decompose+retrieve", "", res, dec, None)
    hits = TypeRetriever(kb.items, scorer, tree=kb.tree).retrieve(query, k=10, topics=topics, pin=False)
    rank = {it.id: n for n, it in enumerate(hits.items)}

    def score(p: Partition) -> tuple:
        ids = [i.id for i in p.items]
        return (min((rank[i] for i in ids if i in rank), default=len(rank)), -len(ids))

    best = min(dec.partitions, key=score)
    return Context("decompose+retrieve", best.text, res, dec, best)
