"""Hypothesis strategies for random knowledge bases (shared by the operator property tests)."""

from __future__ import annotations

from hypothesis import strategies as st

from aac.operators.model import TYPES, Item, KnowledgeBase

WORDS = ["never", "always", "must", "not", "commit", "secrets", "run", "tests", "prefer", "tabs", "deploy", "main",
         "the", "api", "uses", "postgres", "yesterday", "we", "migrated", "cache", "keys", "logs", "do", "push", "."]
TOPICS = ["general", "testing", "deploy", "db", "db/migrations"]

texts = st.lists(st.sampled_from(WORDS), min_size=1, max_size=25).map(" ".join)


@st.composite
def items(draw, n: int) -> Item:
    t = draw(st.sampled_from(TYPES))
    conf = draw(st.floats(0.2, 1.0))
    rest = (1 - conf) / 4
    topic = draw(st.sampled_from(TOPICS))
    scope = draw(st.sampled_from([("*",), (topic,), ("testing",), ("db",), ("glob:src/**",), ("(root)",)]))
    return Item(id=f"i{n}", text=draw(texts), type=t, proba=tuple(conf if x == t else rest for x in TYPES),
                topic=topic, scope=scope, authority=draw(st.sampled_from(["sys", "user", "tool", "retrieved"])),
                order=n, abstained=draw(st.booleans()), kind=draw(st.sampled_from(["bullet", "paragraph"])))


@st.composite
def kbs(draw, min_size: int = 0, max_size: int = 30) -> KnowledgeBase:
    n = draw(st.integers(min_size, max_size))
    return KnowledgeBase([draw(items(i)) for i in range(n)])
