"""The data the operators work on: typed items and a knowledge base with a topic tree and a scope function.

Kept free of the pipeline (no pyarrow, Prefect or GitHub) so agent runtimes can import the operators alone.
The constants below mirror ``aac.core.schema.TYPES`` and ``aac.classifiers.AUTHORITY_WEIGHTS``; a test pins them equal.
"""

from __future__ import annotations

import re
from functools import lru_cache
from dataclasses import dataclass, field, replace
from typing import Iterable, Mapping, Sequence

from aac.core.labels import parse_type
from aac.core.scope import ROOT_TOPIC  # the topic of the items above every heading
from aac.core.tokens import count_tokens
from aac.operators.context import context_of

TYPES: tuple[str, ...] = ("C", "P", "B", "F", "E")
AUTHORITY_WEIGHTS: dict[str, float] = {"sys": 1.5, "dev": 1.25, "user": 1.0, "tool": 0.75, "retrieved": 0.6}
GLOBAL = "*"


@dataclass(frozen=True, slots=True)
class Item:
    """One typed unit of agent knowledge (a bullet, a paragraph, a code block, a table row)."""

    id: str
    text: str
    type: str = "B"
    proba: tuple[float, ...] = ()  # order: TYPES; empty = one-hot on ``type``
    tokens: int = -1  # always counted on construction with the project tokenizer (a caller's figure is not trusted:
    # budgets and outputs must be measured by one tokenizer, or a result could pass its budget while saying it fits)
    topic: str = ""
    scope: tuple[str, ...] = (GLOBAL,)  # "*" global, "glob:<pattern>", or topic ids
    authority: str = "user"
    order: int = 0  # source order
    abstained: bool = False
    kind: str = "paragraph"
    section: tuple[str, ...] = ()  # heading texts above the item, outermost first
    lead_in: str = ""  # the line introducing the item's list ("**Don't:**", "Never:"), when there is one

    def __post_init__(self) -> None:
        if not isinstance(self.text, str):
            raise TypeError(f"item {self.id!r}: text must be a string, not {type(self.text).__name__}")
        if self.type not in TYPES:
            raise ValueError(f"item {self.id!r}: type {self.type!r} is not one of {TYPES}")
        if not self.proba:
            object.__setattr__(self, "proba", tuple(1.0 if t == self.type else 0.0 for t in TYPES))
        elif len(self.proba) != len(TYPES):
            raise ValueError(f"item {self.id!r}: proba needs {len(TYPES)} values (order {TYPES})")
        elif not _is_distribution(self.proba):
            raise ValueError(f"item {self.id!r}: proba must be probabilities in [0, 1] summing to 1 "
                             f"(order {TYPES}), got {tuple(self.proba)!r}")
        object.__setattr__(self, "tokens", count_tokens(self.text))
        if isinstance(self.scope, str):
            object.__setattr__(self, "scope", (self.scope,))

    def p(self, t: str) -> float:
        return self.proba[TYPES.index(t)]

    @property
    def authority_weight(self) -> float:
        return AUTHORITY_WEIGHTS.get(self.authority, 1.0)

    @property
    def risk(self) -> float:
        """Constraint risk: how costly it would be to lose this item (p(C) scaled by source authority)."""
        return self.p("C") * self.authority_weight

    @property
    def governing_context(self) -> tuple[str, ...]:
        """The lines that give this item its prohibitive force and must be printed with it: the innermost
        prohibitive heading (as "Title:") and/or the lead-in; () when none does. See ``aac.operators.context``."""
        return context_of(self)

    def with_text(self, text: str) -> "Item":
        return replace(self, text=text, tokens=count_tokens(text))


def _is_distribution(values) -> bool:
    """Numbers of any numeric type (numpy's too) in [0, 1] summing to 1 (up to rounding); NaN is none."""
    try:
        vals = [float(v) for v in values]
    except (TypeError, ValueError):
        return False
    return all(0.0 <= v <= 1.0 for v in vals) and abs(sum(vals) - 1.0) <= 0.01


class TopicTree:
    """Parent links between topic ids; a scope on a topic covers the topic and all its descendants.

    Topic ids written as paths ("testing/unit") get their parents implicitly.
    """

    def __init__(self, parents: Mapping[str, str | None] | None = None):
        self.parents: dict[str, str | None] = dict(parents or {})

    def add(self, topic: str) -> None:
        while topic and topic not in self.parents:
            parent = topic.rsplit("/", 1)[0] if "/" in topic else None
            self.parents[topic] = parent
            topic = parent or ""

    def ancestors(self, topic: str) -> list[str]:
        """The topic itself, then each ancestor up to the root."""
        out, seen = [], set()
        while topic and topic not in seen:
            out.append(topic)
            seen.add(topic)
            topic = self.parents.get(topic) or (topic.rsplit("/", 1)[0] if "/" in topic else "")
        return out

    def leaves(self) -> list[str]:
        inner = {p for p in self.parents.values() if p}
        return sorted(t for t in self.parents if t not in inner)


def scope_intersects(scope: Sequence[str], topic: str, tree: TopicTree | None = None, paths: Sequence[str] = ()) -> bool:
    """For queries: the constraint covers the query topic, or is scoped to a part of it (a query on "orders"
    may touch the rules of "orders/returns"). A glob scope applies only when the query names matching paths."""
    if scope_covers(scope, topic, tree, paths, unknown_glob=False):
        return True
    prefix = topic + "/"
    return bool(topic) and any(s.startswith(prefix) for s in scope)


def scope_covers(scope: Sequence[str], topic: str, tree: TopicTree | None = None, paths: Sequence[str] = (),
                 unknown_glob: bool = True) -> bool:
    """Whether a constraint with ``scope`` applies to an item (or query) on ``topic`` touching ``paths``.

    "*" covers everything. A topic id covers that topic and its descendants; the root topic (items above every
    heading: a file's preamble) covers its whole document. A "glob:" scope covers matching paths (see
    ``glob_matches``); with no path to test it counts as covering when ``unknown_glob`` (a glob rule may apply
    anywhere: the safe side for locality); retrieval passes False so path rules are pinned only for matching
    paths.
    """
    anc = tree.ancestors(topic) if (tree and topic) else ([topic] if topic else [])
    for s in scope:
        if s == GLOBAL:
            return True
        if s.startswith("glob:"):
            if (not paths and unknown_glob) or any(glob_matches(p, s[5:]) for p in paths):
                return True
        elif s in anc or _preamble_covers(s, topic):
            return True
    return False




def _preamble_covers(scope: str, topic: str) -> bool:
    """A rule of a document's preamble ("(root)", or "<ns>/(root)" in a shared store) applies to all of it."""
    if scope == ROOT_TOPIC:
        return True
    if not scope.endswith("/" + ROOT_TOPIC):
        return False
    doc = scope[: -len(ROOT_TOPIC) - 1]
    return topic == doc or topic.startswith(doc + "/")


def glob_matches(path: str, pattern: str) -> bool:
    """Cursor/Copilot glob semantics: ``**/`` spans any number of folders (none too: ``src/**/*.ts`` covers
    ``src/x.ts``), ``*`` and ``?`` stay within one name, and a pattern without "/" matches the file's name at any
    depth (``*.py`` covers ``pkg/setup.py``); braces are alternatives, each a glob of its own (``{*.md,docs/**}``).
    Paths are compared with "/" separators and without a leading "./"."""
    path = path.replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    pattern = pattern.strip().replace("\\", "/").lstrip("/")
    while pattern.startswith("./"):
        pattern = pattern[2:]
    name = path.rsplit("/", 1)[-1]
    return any(_glob_regex(alt).fullmatch(path if "/" in alt else name) is not None for alt in _braces(pattern))


def _braces(pattern: str, limit: int = 256) -> list[str]:
    """The patterns a glob's braces stand for, innermost first: "a{b,{c,d}}" is ab, ac, ad (at most ``limit``)."""
    out, todo = [], [pattern]
    while todo and len(out) + len(todo) <= limit:
        p = todo.pop(0)
        close = p.find("}")
        open_ = p.rfind("{", 0, close) if close > 0 else -1
        if open_ < 0:
            out.append(p)
            continue
        todo.extend(p[:open_] + alt + p[close + 1:] for alt in p[open_ + 1:close].split(","))
    return list(dict.fromkeys(out + todo))


@lru_cache(maxsize=4096)
def _glob_regex(pattern: str) -> re.Pattern:
    return re.compile(_glob_source(pattern))


def _glob_source(pattern: str) -> str:
    """The regular expression of a glob without braces (see ``glob_matches``, which expands them first)."""
    out, i, n = [], 0, len(pattern)
    while i < n:
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        elif pattern[i] == "[" and "]" in pattern[i + 2:]:
            end = pattern.index("]", i + 2)
            body = pattern[i + 1:end]
            out.append("[" + ("^" + body[1:] if body.startswith("!") else body).replace("\\", "\\\\") + "]")
            i = end + 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return "".join(out)


@dataclass
class KnowledgeBase:
    """Items in source order plus the topic tree their scopes refer to."""

    items: list[Item]
    tree: TopicTree = field(default_factory=TopicTree)
    source_tokens: int | None = None  # tokens of the original document, when there is one

    def __post_init__(self) -> None:
        seen: set[str] = set()
        for it in self.items:
            if not isinstance(it, Item):
                raise TypeError(f"a KnowledgeBase holds Item objects, not {type(it).__name__}")
            if it.id in seen:  # the operators account for constraints by id: a clash would hide one of them
                raise ValueError(f"duplicate item id {it.id!r}: give every item its own id (e.g. prefix the file's)")
            seen.add(it.id)
            if it.topic:
                self.tree.add(it.topic)
            for s in it.scope:
                if s != GLOBAL and not s.startswith("glob:"):
                    self.tree.add(s)

    @property
    def total_tokens(self) -> int:
        return self.source_tokens if self.source_tokens is not None else sum(i.tokens for i in self.items)

    def in_scope(self, constraint: Item, topic: str, paths: Sequence[str] = ()) -> bool:
        return scope_covers(constraint.scope, topic, self.tree, paths)

    def topics(self) -> list[str]:
        seen: dict[str, None] = {}
        for it in self.items:
            seen.setdefault(it.topic, None)
        return list(seen)

    @classmethod
    def from_rows(cls, rows: Iterable[Mapping], source_tokens: int | None = None,
                  tree: TopicTree | None = None) -> "KnowledgeBase":
        """Build from item rows as the pipeline writes them (items table / ``items_from_file``)."""
        return cls([item_from_row(r, n) for n, r in enumerate(rows)], tree or TopicTree(), source_tokens)


def _label(value, item_id: str) -> str:
    """A row's type: its letter or full name; a row without one is a Belief (untyped text), anything else an
    error - read as a Belief, a mistyped constraint would be compacted away while the result says it is safe."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return "B"
    label = parse_type(value)
    if label is None:
        raise ValueError(f"item {item_id!r}: type {value!r} is not one of {TYPES} (or their full names)")
    return label


def item_from_row(row: Mapping, n: int = 0) -> Item:
    scope = row.get("scope")
    if isinstance(scope, str):
        scope = (scope,)
    if scope is None or len(scope) == 0:
        scope = (row.get("topic") or GLOBAL,)
    item_id = str(row.get("item_id", n))
    if not isinstance(row.get("text"), str):
        raise ValueError(f"item {item_id!r}: expected a string 'text', got {type(row.get('text')).__name__}")
    proba = row.get("type_proba")
    section = row.get("section_path")
    section = () if section is None else section  # a NumPy array (from Arrow) has no truth value
    if isinstance(section, str):
        section = tuple(s for s in section.split(" > ") if s)
    return Item(
        id=item_id,
        text=row["text"],
        type=_label(row.get("type"), item_id),
        proba=tuple(float(p) for p in proba) if proba is not None and len(proba) else (),
        tokens=-1,  # always recounted: budgets and outputs must be measured by the same tokenizer
        topic=str(row.get("topic") or ""),
        scope=tuple(str(s) for s in scope),
        authority=str(row.get("authority") or "user"),
        order=int(row["ordinal"]) if row.get("ordinal") is not None else n,
        abstained=bool(row.get("abstained") or False),
        kind=str(row.get("kind") or "paragraph"),
        section=tuple(str(s) for s in section),
        lead_in=str(row.get("lead_in") or ""),  # rows written before the column existed have none
    )
