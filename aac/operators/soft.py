"""Extractive, deterministic compression for the soft lane (beliefs, preferences) — no LLM.

Each item gets a ladder of shorter renderings: full text, first sentence, first clause, first clause cut to a
few words. A sentence with prohibitive force (the classifier's cue lexicon fires on it) is never cut: every
shorter rendering keeps it whole ("Use the DI container. Never inject ApplicationDbContext." keeps both). Near-duplicates are merged into their first occurrence. Episodic items collapse to one placeholder
line per run.
"""

from __future__ import annotations

import math
from collections import Counter
from functools import lru_cache
from typing import Callable, Iterable

import regex as re

from aac.classifiers.cues import prohibits
from aac.operators.verify import words
from aac.core.tokens import count_tokens, default_tokenizer

_SENT = re.compile(r"(?<=[.!?])\s+(?=[\p{Lu}\p{N}`\"'(\[*])|\n+")
_CLAUSE = re.compile(r"\s*(?:;|:\s|\s[—–-]\s|,\s(?:but|and|which|so|because|although|while|since|as)\s|\s\()")
CLIP_WORDS = 10


def code_ladder(text: str, head_lines: int = 4) -> list[str]:
    """Code examples: whole block, then its first lines inside the same fence, then a one-line placeholder."""
    lines = text.strip().splitlines()
    out = [text.strip()]
    fenced = len(lines) >= 2 and lines[0].lstrip().startswith(("```", "~~~"))
    body = lines[1:-1] if fenced and lines[-1].strip().startswith(("```", "~~~")) else lines[1:] if fenced else lines
    if len(body) > head_lines:
        head = body[:head_lines] + ["…"]
        out.append("\n".join([lines[0], *head, lines[-1]]) if fenced else "\n".join(head))
    out.append(f"[code example: {len(body)} lines elided]")
    return out


def ladder(text: str, kind: str = "paragraph") -> list[str]:
    """Renderings from longest to shortest, each strictly shorter than the previous one, duplicates removed."""
    if kind == "code":
        return code_ladder(text)
    text = text.strip()
    out = [text]
    sentences = [x.strip() for x in _SENT.split(text) if x and x.strip()]
    if not sentences:
        return out
    first, kept = sentences[0], [x for x in sentences[1:] if prohibits(x)]  # prohibitions are kept whole

    def step(head: str) -> None:
        joint = " " if head.endswith((".", "!", "?", "…", ":", ";", "。", "！", "？")) else " … "
        candidate = joint.join([head, " ".join(kept)]) if kept else head
        if head and len(candidate) < len(out[-1]):
            out.append(candidate)

    step(first)
    if prohibits(first):  # a prohibition is not cut into its first clause or words
        return out
    clause = _CLAUSE.split(first, maxsplit=1)[0].strip().rstrip(",")
    if len(words(clause)) >= 2:
        step(clause)
    toks = (clause if len(words(clause)) >= 2 else first).split()
    if len(toks) > CLIP_WORDS:
        step(" ".join(toks[:CLIP_WORDS]) + " …")
    return out


def near_duplicate(a: set[str], b: set[str], threshold: float = 0.8) -> bool:
    if not a or not b:
        return a == b
    return len(a & b) / len(a | b) >= threshold


def analyse(text: str, kind: str) -> tuple[frozenset[str], tuple[str, ...], tuple[int, ...]]:
    """Per-text work done once and reused across compactions (items are immutable; runtimes re-compact often):
    word set, ladder renderings and their token counts - by the tokenizer in force, which is part of the cache
    key, so swapping it (``set_default_tokenizer``) never reuses counts of another."""
    return _analyse(text, kind, default_tokenizer())


@lru_cache(maxsize=200_000)
def _analyse(text: str, kind: str, tokenizer) -> tuple[frozenset[str], tuple[str, ...], tuple[int, ...]]:
    steps = tuple(ladder(text, kind))
    return frozenset(words(text)), steps, tuple(count_tokens(x) for x in steps)


analyse.cache_clear = _analyse.cache_clear  # benchmarks time compaction from scratch


def rarest_first(word_sets: Iterable[frozenset[str]]) -> Callable[[frozenset[str]], tuple[str, ...]]:
    """The prefix filter's global word order for these sets: rarest first (then longest, then alphabetical).

    Any fixed order finds the same near-duplicates; this one keeps the candidates few. Ordered longest-first, a
    word common to many items ("- configuration x", "| configuration | y |" lines) headed every prefix, so each
    lookup compared against every earlier item: quadratic, minutes for a 1 MB file.
    """
    df = Counter(w for ws in word_sets for w in ws)
    return lambda ws: tuple(sorted(ws, key=lambda w: (df[w], -len(w), w)))


class NearDuplicateIndex:
    """Jaccard >= threshold lookups with prefix filtering: two sets that similar must share a word among the
    first |s| - ceil(t*|s|) + 1 of each in one fixed global order (``rarest_first``), so only those candidates
    are compared."""

    def __init__(self, threshold: float = 0.8):
        self.t = threshold
        self.sets: list[frozenset[str]] = []
        self.index: dict[str, list[int]] = {}

    def _prefix(self, ordered: tuple[str, ...]) -> tuple[str, ...]:
        return ordered[: len(ordered) - math.ceil(self.t * len(ordered)) + 1]

    def find(self, ws: frozenset[str], ordered: tuple[str, ...]) -> int | None:
        if not ws:
            return None
        seen: set[int] = set()
        lo, hi = self.t * len(ws), len(ws) / self.t
        for w in self._prefix(ordered):
            for j in self.index.get(w, ()):
                if j not in seen:
                    seen.add(j)
                    other = self.sets[j]
                    if lo <= len(other) <= hi and near_duplicate(ws, other, self.t):
                        return j
        return None

    def add(self, ws: frozenset[str], ordered: tuple[str, ...]) -> None:
        if not ws:
            return
        self.sets.append(ws)
        for w in self._prefix(ordered):
            self.index.setdefault(w, []).append(len(self.sets) - 1)


def episodic_placeholder(n: int) -> str:
    return f"[{n} episodic note{'s' if n != 1 else ''} elided]"
