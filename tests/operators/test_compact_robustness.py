"""TypeCompact on held-out-like inputs: scale, odd characters, pathological shapes (synthetic strings only)."""

from aac.operators import soft
from aac.operators.compact import type_compact
from aac.operators.model import Item, KnowledgeBase


def _shared_word_kb(n: int) -> KnowledgeBase:
    """n distinct beliefs that all share one long word - the shape of a big table or a list of settings."""
    return KnowledgeBase([Item(f"b{i}", f"configuration value{i:05d}", "B", order=i) for i in range(n)])


def test_near_duplicate_search_does_not_compare_every_pair_when_items_share_a_common_word(monkeypatch):
    calls = []
    real = soft.near_duplicate
    monkeypatch.setattr(soft, "near_duplicate", lambda a, b, t=0.8: calls.append(1) or real(a, b, t))
    res = type_compact(_shared_word_kb(1500), 10**9)
    assert len(res.kept) == 1500 and not res.dropped
    assert len(calls) < 1500  # all pairs would be over a million comparisons (minutes on a 1 MB file)


def test_near_duplicates_found_are_those_of_an_all_pairs_search():
    texts = ["Use pnpm for every package install in this repo", "Use pnpm for every package install in the repo",
             "configuration alpha beta", "configuration alpha gamma", "configuration alpha beta",
             "Tabs for indentation in Go files", "tabs for indentation in go files!", "a b c d e f g h i j",
             "a b c d e f g h i k", "a b c d e f g h i j k"]
    kb = KnowledgeBase([Item(str(i), t, "B", order=i) for i, t in enumerate(texts)])
    kept, expected = [], set()
    for i, t in enumerate(texts):  # every earlier kept item against every later one
        ws = frozenset(soft.words(t))
        if any(soft.near_duplicate(ws, other) for other in kept):
            expected.add(str(i))
        else:
            kept.append(ws)
    res = type_compact(kb, 10**9)
    assert expected  # the fixture does hold near-duplicates
    assert {i for i, why in res.dropped.items() if why == "near-duplicate"} == expected

