"""TypeDecompose (paper Algorithm 2): split a knowledge base into partitions that each fit a token budget
without ever separating an item from a constraint that governs it.

Items are grouped by topic and chunked to the budget; every constraint is replicated into every partition
holding an item in its scope (global constraints into all). The replication is the price of locality and is
reported as token overhead. Recursive mode splits a very large topic (more than ``split_threshold`` items)
into semantically coherent sub-groups with KMeans over embeddings before chunking, as in the paper's
3,000-item test; locality does not depend on it because pinning is decided per topic.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np

from aac.operators.compact import hard_lane_of
from aac.operators.context import render_items, rendered_tokens
from aac.operators.model import GLOBAL, ROOT_TOPIC, Item, KnowledgeBase
from aac.core.tokens import count_tokens

SEPARATOR = "\n"


@dataclass
class Partition:
    topic: str
    items: list[Item]  # the partition's own content, in source order
    pinned: list[Item]  # constraints replicated here because an item is in their scope

    @property
    def tokens(self) -> int:
        return count_tokens(self.text)

    @property
    def text(self) -> str:
        """Items in source order, each under the heading or lead-in that governs it (aac.operators.context)."""
        return render_items(sorted(self.pinned + self.items, key=lambda i: i.order), SEPARATOR)

    def ids(self) -> set[str]:
        return {i.id for i in self.items} | {i.id for i in self.pinned}


@dataclass
class DecomposeResult:
    partitions: list[Partition]
    budget: int
    tokens_in: int
    infeasible: dict[str, str] = field(default_factory=dict)  # topic -> why it could not fit

    @property
    def tokens_out(self) -> int:
        return sum(p.tokens for p in self.partitions)

    @property
    def overhead(self) -> float:
        """Extra tokens paid for replication, as a share of the input."""
        return self.tokens_out / self.tokens_in - 1.0 if self.tokens_in else 0.0

    def as_dict(self) -> dict:
        return {"budget": self.budget, "tokens_in": self.tokens_in, "tokens_out": self.tokens_out,
                "overhead": round(self.overhead, 4), "infeasible": self.infeasible,
                "partitions": [{"topic": p.topic, "tokens": p.tokens, "items": [i.id for i in p.items],
                                "pinned": [i.id for i in p.pinned]} for p in self.partitions]}


def constraints_of(kb: KnowledgeBase, **lane_kw) -> list[Item]:
    return [i for i in kb.items if hard_lane_of(i, **lane_kw) == "C"]


def required_for(kb: KnowledgeBase, constraints: Sequence[Item], topic: str) -> list[Item]:
    return [c for c in constraints if kb.in_scope(c, topic)]


class _Required:
    """``required_for`` for many topics without testing every constraint against every topic (quadratic on a
    store of many files). A constraint covers a topic through "*" or a glob (always, with no path to test), a
    scope that is one of the topic's ancestors, or a preamble scope (tested); each topic's answer is kept."""

    def __init__(self, kb: KnowledgeBase, constraints: Sequence[Item]):
        self.kb = kb
        self.rank = {c.id: n for n, c in enumerate(constraints)}
        self.everywhere: list[Item] = []
        self.preamble: list[Item] = []
        self.by_scope: dict[str, list[Item]] = {}
        for c in constraints:
            if any(s == GLOBAL or s.startswith("glob:") for s in c.scope):
                self.everywhere.append(c)
                continue
            if any(s == ROOT_TOPIC or s.endswith("/" + ROOT_TOPIC) for s in c.scope):
                self.preamble.append(c)
            for s in c.scope:
                self.by_scope.setdefault(s, []).append(c)
        self._memo: dict[str, list[Item]] = {}

    def __call__(self, topic: str) -> list[Item]:
        if topic not in self._memo:
            found = {c.id: c for c in self.everywhere}
            for a in (self.kb.tree.ancestors(topic) if topic else []):
                found.update((c.id, c) for c in self.by_scope.get(a, ()))
            found.update((c.id, c) for c in self.preamble if c.id not in found and self.kb.in_scope(c, topic))
            self._memo[topic] = sorted(found.values(), key=lambda c: self.rank[c.id])
        return self._memo[topic]


def type_decompose(kb: KnowledgeBase, partition_budget: int, *, recursive: bool = False, split_threshold: int = 500,
                   embed: Callable[[Sequence[str]], np.ndarray] | None = None, seed: int = 0) -> DecomposeResult:
    """Partition ``kb`` so each partition fits ``partition_budget`` tokens and carries every constraint in scope.

    Topics are taken in source order and their items packed greedily; an item costs its own tokens plus the
    constraints in its topic's scope not yet pinned in the open partition, so small topics that share their
    (typically global) constraints share a partition instead of each paying for a copy.
    """
    if isinstance(partition_budget, bool) or not isinstance(partition_budget, (int, np.integer)) \
            or partition_budget < 1:
        raise ValueError(f"partition_budget: a positive whole number of tokens, not {partition_budget!r}")
    cons = constraints_of(kb)
    required_of = _Required(kb, cons)
    costs: dict[str, int] = {}

    def cost(it: Item) -> int:
        """An item's tokens printed alone with its governing context: never less than it adds to a partition."""
        if it.id not in costs:
            costs[it.id] = rendered_tokens(it)
        return costs[it.id]

    by_topic: dict[str, list[Item]] = {}
    for it in sorted(kb.items, key=lambda i: i.order):
        by_topic.setdefault(it.topic, []).append(it)
    sep = count_tokens(SEPARATOR)
    parts: list[Partition] = []
    infeasible: dict[str, str] = {}
    items: list[Item] = []
    pinned: dict[str, Item] = {}
    used = 0

    def flush() -> None:
        nonlocal items, pinned, used
        if items:
            parts.append(Partition(items[0].topic, items, sorted(pinned.values(), key=lambda c: c.order)))
        items, pinned, used = [], {}, 0

    for topic, members in by_topic.items():
        required = required_of(topic)
        req_ids = {c.id for c in required}
        content = [i for i in members if i.id not in req_ids]
        # the constraints as printed together (a context block shared by several of them is counted once)
        base = count_tokens(render_items(sorted(required, key=lambda c: c.order), SEPARATOR)) if required else 0
        if content and base + sep + min(cost(i) for i in content) > partition_budget:
            infeasible[topic] = f"constraints in scope need {base} tokens, no room left in {partition_budget}"
            continue
        groups = [content]
        if recursive and len(content) > split_threshold:
            groups = _split(content, split_threshold, embed, seed)
        pending = [c for c in required if c.id not in pinned]  # required, not yet in the open partition
        for group in groups:
            for it in group:
                if base + sep + cost(it) > partition_budget:
                    infeasible[it.id] = f"item needs {cost(it)} tokens next to {base} of constraints > {partition_budget}"
                    continue
                new = pending
                need = cost(it) + sum(cost(c) for c in new) + sep * (len(new) + (1 if (items or pinned) else 0))
                if used + need > partition_budget:
                    flush()
                    new = required
                    need = cost(it) + base + sep * (1 if required else 0)
                items.append(it)
                pinned.update((c.id, c) for c in new)
                used += need
                pending = []  # the open partition now holds every constraint the topic needs
            if recursive and len(groups) > 1:
                flush()  # keep each semantic sub-group in its own partitions
                pending = list(required)
    flush()
    # A constraint that is in nobody's partition (its scope covers no topic with content) still gets a home.
    placed = {i.id for p in parts for i in p.pinned} | {i.id for p in parts for i in p.items}
    for c in cons:
        if c.id in placed or c.id in infeasible or c.topic in infeasible:
            continue
        part = Partition(c.topic, [c], [x for x in required_of(c.topic) if x.id != c.id])
        if part.tokens <= partition_budget:
            parts.append(part)
            placed |= part.ids()  # the constraints pinned beside it have their home too: one partition, not one each
        else:
            infeasible[c.id] = f"constraint and those in its topic's scope need {part.tokens} tokens > {partition_budget}"
    tokens_in = count_tokens(SEPARATOR.join(i.text for i in sorted(kb.items, key=lambda i: i.order)))
    return DecomposeResult(parts, partition_budget, tokens_in, infeasible)


def _split(items: list[Item], threshold: int, embed, seed: int) -> list[list[Item]]:
    """Recursive KMeans bisection over embeddings until every group has at most ``threshold`` items."""
    from sklearn.cluster import KMeans  # lazy: only the recursive mode needs scikit-learn

    if embed is None:
        from aac.operators.embed import embed_texts as embed
    vecs = np.asarray(embed([i.text for i in items]), dtype=np.float32)
    out: list[list[Item]] = []
    stack = [np.arange(len(items))]
    while stack:
        idx = stack.pop()
        if len(idx) <= threshold:
            out.append(sorted((items[i] for i in idx), key=lambda i: i.order))
            continue
        k = int(np.ceil(len(idx) / threshold))
        labels = KMeans(n_clusters=max(2, k), n_init=1, random_state=seed).fit_predict(vecs[idx])
        groups = [idx[labels == g] for g in np.unique(labels)]
        if len(groups) < 2:  # degenerate (identical vectors): split in order
            groups = np.array_split(idx, max(2, k))
        stack.extend(g for g in groups if len(g))
    return sorted(out, key=lambda g: g[0].order)


def locality_violations(kb: KnowledgeBase, partitions: Sequence[Partition]) -> tuple[int, int]:
    """(violated, required) (partition, constraint) pairs; the locality invariant is violated == 0."""
    from aac.operators.metrics import locality

    return locality(kb, partitions)
