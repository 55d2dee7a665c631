"""TypeRetrieve (paper Algorithm 3): constraints in scope of the query are pinned first, relevance fills the rest.

A relevance scorer alone (BM25 or dense) ranks a constraint low whenever its wording does not overlap the
query ("never issue a refund to a new card" vs. "customer wants money back"); pinning by scope makes in-scope
recall 1.0 whenever k is at least the number of in-scope constraints. Scope lookups go through an index
(topic -> constraints), so a query costs one relevance pass over the store plus a dictionary walk.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from aac.operators.compact import hard_lane_of
from aac.operators.context import render_items
from aac.operators.model import GLOBAL, ROOT_TOPIC, Item, TopicTree, scope_covers


class BM25Scorer:
    """Lexical relevance with bm25s (sparse, precomputed; one query sums a few posting columns)."""

    name = "bm25"

    def __init__(self, texts: Sequence[str]):
        import bm25s

        self._bm25s = bm25s
        self.n = len(texts)
        tokens = bm25s.tokenize(list(texts), stopwords="en", show_progress=False)
        self.model = None
        self.vocab: dict = {}
        if tokens.vocab:  # bm25s cannot index a corpus made only of stopwords: every score is then 0
            self.model = bm25s.BM25()
            self.model.index(tokens, show_progress=False)
            self.vocab = self.model.vocab_dict

    def scores(self, query: str) -> np.ndarray:
        toks = self._bm25s.tokenize([query], stopwords="en", return_ids=False, show_progress=False)[0]
        toks = [t for t in toks if t in self.vocab]
        if not toks or self.model is None:
            return np.zeros(self.n, dtype=np.float32)
        return self.model.get_scores(toks)


class DenseScorer:
    """Cosine similarity over static embeddings (64-dim, no torch).

    Exact (one pass over all vectors) up to ``ivf_from`` items; above that an inverted-file index — coarse
    centroids from a few k-means rounds over a sample, each vector filed under its nearest — scores only the
    lists of the ``nprobe`` centroids nearest the query (others get -inf). A million 64-dim vectors are 256 MB,
    so the exact pass is memory-bound at ~30 ms; pinning keeps in-scope recall exact either way.
    """

    name = "dense"

    def __init__(self, texts: Sequence[str], embed: Callable[[Sequence[str]], np.ndarray] | None = None,
                 vectors: np.ndarray | None = None, ivf_from: int = 200_000, nlist: int | None = None,
                 nprobe: int = 24, seed: int = 0):
        if embed is None:
            from aac.operators.embed import embed_texts as embed
        self.embed = embed
        self.vectors = np.ascontiguousarray(vectors if vectors is not None else embed(list(texts)), dtype=np.float32)
        self.nprobe = nprobe
        self.lists: list[np.ndarray] | None = None
        if len(self.vectors) >= ivf_from:
            self._build_ivf(nlist or int(4 * np.sqrt(len(self.vectors))), seed)

    def _build_ivf(self, nlist: int, seed: int, rounds: int = 8) -> None:
        rng = np.random.default_rng(seed)
        sample = self.vectors[rng.choice(len(self.vectors), size=min(len(self.vectors), 50 * nlist), replace=False)]
        cent = sample[rng.choice(len(sample), size=nlist, replace=False)].copy()
        for _ in range(rounds):  # spherical k-means on the sample
            assign = np.argmax(sample @ cent.T, axis=1)
            for c in range(nlist):
                members = sample[assign == c]
                if len(members):
                    v = members.sum(axis=0)
                    cent[c] = v / max(np.linalg.norm(v), 1e-9)
        assign = np.concatenate([np.argmax(self.vectors[s:s + 65536] @ cent.T, axis=1)
                                 for s in range(0, len(self.vectors), 65536)])
        order = np.argsort(assign, kind="stable")
        bounds = np.searchsorted(assign[order], np.arange(nlist + 1))
        self.centroids = cent
        self.lists = [order[bounds[c]:bounds[c + 1]] for c in range(nlist)]

    def scores(self, query: str) -> np.ndarray:
        q = np.asarray(self.embed([query]), dtype=np.float32)[0]
        if self.lists is None:
            # einsum, not BLAS gemv: OpenBLAS threads sleeping between queries cost ~10 ms to wake on a busy machine
            return np.einsum("ij,j->i", self.vectors, q)
        probe = np.argpartition(-(self.centroids @ q), min(self.nprobe, len(self.lists)) - 1)[: self.nprobe]
        idx = np.concatenate([self.lists[c] for c in probe])
        out = np.full(len(self.vectors), -np.inf, dtype=np.float32)
        out[idx] = np.einsum("ij,j->i", self.vectors[idx], q)
        return out


def make_scorer(name: str, texts: Sequence[str], **kw):
    if name == "bm25":
        return BM25Scorer(texts)
    if name == "dense":
        return DenseScorer(texts, **kw)
    raise ValueError(f"unknown scorer {name!r}; use bm25 or dense")


@dataclass
class Retrieved:
    items: list[Item]
    pinned: list[str]  # ids of the in-scope constraints placed first
    topics: list[str]  # the query topics used for pinning (given or inferred)
    in_scope: int  # how many constraints were in scope (pinned may be fewer when k is smaller)

    @property
    def text(self) -> str:
        """The hits in rank order as one context text, each under the heading or lead-in that governs it (an
        item's own text may read as the opposite of the rule: see aac.operators.context)."""
        return render_items(self.items)


class TypeRetriever:
    """A store of items with a relevance scorer and a topic -> constraint index."""

    def __init__(self, items: Sequence[Item], scorer: str | object = "bm25", tree: TopicTree | None = None, **kw):
        self.items = list(items)
        self.tree = tree or TopicTree()
        for it in self.items:
            if it.topic:
                self.tree.add(it.topic)
        self.scorer = make_scorer(scorer, [i.text for i in self.items], **kw) if isinstance(scorer, str) else scorer
        self._children: dict[str, list[str]] | None = None
        self.by_scope: dict[str, list[int]] = {}
        self.globs: list[int] = []
        for n, it in enumerate(self.items):
            if hard_lane_of(it) != "C":
                continue
            for s in it.scope:
                if s.startswith("glob:"):
                    self.globs.append(n)
                else:
                    self.by_scope.setdefault(s, []).append(n)

    def _descendants(self, topic: str) -> list[str]:
        if self._children is None:
            self._children = {}
            for t, parent in self.tree.parents.items():
                if parent:
                    self._children.setdefault(parent, []).append(t)
        out, stack = [], list(self._children.get(topic, ()))
        while stack:
            t = stack.pop()
            out.append(t)
            stack.extend(self._children.get(t, ()))
        return out

    def in_scope(self, topics: Sequence[str], paths: Sequence[str] = ()) -> list[int]:
        """Indices of constraints whose scope intersects any query topic ("*" covers all), in source order."""
        found: set[int] = set(self.by_scope.get(GLOBAL, ()))
        if topics:  # a preamble's rules (above every heading) hold for its whole document
            found.update(self.by_scope.get(ROOT_TOPIC, ()))
        for t in topics:
            for a in self.tree.ancestors(t):
                found.update(self.by_scope.get(a, ()))
                found.update(self.by_scope.get(f"{a}/{ROOT_TOPIC}", ()))
            for d in self._descendants(t):  # scopes inside the query's topic intersect it too
                found.update(self.by_scope.get(d, ()))
        if paths:  # path-scoped rules are pinned only for queries that name matching paths
            found.update(n for n in self.globs if scope_covers(self.items[n].scope, "", None, paths, unknown_glob=False))
        return sorted(found)

    def retrieve(self, query: str, k: int = 10, topics: Sequence[str] | None = None, paths: Sequence[str] = (),
                 pin: bool = True, authority_weighted: bool = False, infer_topics: int = 3) -> Retrieved:
        """Top-``k`` items: in-scope constraints first, then by relevance.

        Without ``topics`` the query's topics are inferred from its ``infer_topics`` most relevant items.
        With ``authority_weighted`` pinned constraints are ordered (and, if more than k, cut) by risk x authority
        instead of relevance.
        """
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 0:
            raise ValueError(f"k: how many items to return, a whole number >= 0, not {k!r}")
        if isinstance(topics, str):
            topics = [topics]  # one topic, not its letters
        scores = np.asarray(self.scorer.scores(query), dtype=np.float32)
        n = len(self.items)
        if topics is None:
            top = _top(scores, min(infer_topics, n))
            topics = list(dict.fromkeys(self.items[i].topic for i in top if self.items[i].topic))
        pinned_idx = self.in_scope(topics, paths) if pin else []
        if authority_weighted:
            pinned_idx.sort(key=lambda i: (-self.items[i].risk, -scores[i], i))
        else:
            pinned_idx.sort(key=lambda i: (-scores[i], i))
        chosen = pinned_idx[:k]
        taken = set(chosen)
        need = k - len(chosen)
        if need > 0:
            for i in _top(scores, min(n, need + len(taken))):
                if i not in taken:
                    chosen.append(int(i))
                    taken.add(int(i))
                    if len(chosen) == k:
                        break
        return Retrieved([self.items[i] for i in chosen], [self.items[i].id for i in pinned_idx[:k]],
                         list(topics), len(pinned_idx))


def namespaced(item: Item, ns: str, order: int | None = None, keep_global: bool = False) -> Item:
    """An item from one document placed in a shared store: its topic and scopes go under ``ns``, and its global
    scope becomes "all of ``ns``" (in a store of many repositories' files, a rule global to one config file is
    not global to every other) - unless ``keep_global``: the files are one agent's, whose global rules hold for
    everything it does."""
    from dataclasses import replace

    topic = f"{ns}/{item.topic}" if item.topic else ns
    scope = tuple((GLOBAL if keep_global else ns) if s == GLOBAL else s if s.startswith("glob:") else f"{ns}/{s}"
                  for s in item.scope)
    return replace(item, id=f"{ns}:{item.id}", topic=topic, scope=scope,
                   order=item.order if order is None else order)


def resolve_topics(tags: Sequence[str], topics: Sequence[str]) -> list[str]:
    """Query tags name sections ("return-delivered-order"); store topics are paths ("<ns>/<doc>/return-...").
    A tag matches every topic equal to it or ending in "/tag"; "general" falls back to the shallowest topic
    (a document's root, where its global rules live)."""
    out: list[str] = []
    for tag in tags:
        hits = [t for t in topics if t == tag or t.endswith("/" + tag)]
        if not hits and tag == "general" and topics:
            hits = [min(topics, key=lambda t: (t.count("/"), len(t)))]
        out += hits or [tag]
    return out


def _top(scores: np.ndarray, k: int) -> list[int]:
    """Indices of the k highest scores, best first, ties by index (deterministic)."""
    if k <= 0:
        return []
    if k >= len(scores):
        idx = np.arange(len(scores))
    else:
        idx = np.argpartition(-scores, k - 1)[:k]
    return sorted(idx.tolist(), key=lambda i: (-float(scores[i]), i))
