from hypothesis import given, settings, strategies as st

from aac.operators.baselines import chunk_by_tokens
from aac.operators.decompose import type_decompose
from aac.operators.metrics import locality
from aac.operators.model import Item, KnowledgeBase
from aac.core.tokens import count_tokens

from tests.conftest import needs_extra
from tests.operators.kb_strategies import kbs


@settings(max_examples=120, deadline=None)
@given(kb=kbs(), budget=st.integers(5, 300))
def test_decomposition_never_violates_locality_and_every_partition_fits(kb, budget):
    res = type_decompose(kb, budget)
    assert locality(kb, res.partitions)[0] == 0
    assert all(p.tokens <= budget for p in res.partitions)
    placed = {i for p in res.partitions for i in p.ids()}
    for it in kb.items:  # nothing lost silently: each item is placed or its topic/item is reported infeasible
        assert it.id in placed or it.id in res.infeasible or it.topic in res.infeasible


def _kb():
    items = [Item("g", "Never force push to main.", "C", topic="general", scope=("*",), order=0),
             Item("t", "Never skip the integration tests.", "C", topic="testing", scope=("testing",), order=1)]
    items += [Item(f"b{n}", f"Testing note number {n} about fixtures and mocks.", "B", topic="testing", order=2 + n)
              for n in range(12)]
    items += [Item(f"d{n}", f"Deploy note {n} about the staging cluster.", "B", topic="deploy", order=20 + n)
              for n in range(6)]
    return KnowledgeBase(items)


def test_global_constraint_is_replicated_into_every_partition_and_topic_constraint_only_into_its_topic():
    res = type_decompose(_kb(), 60)
    assert len(res.partitions) > 2 and not res.infeasible
    for p in res.partitions:
        assert "g" in p.ids()
        assert ("t" in p.ids()) == any(i.topic == "testing" for i in p.items)
    assert res.overhead > 0


def test_type_blind_chunking_violates_locality_where_type_decompose_does_not():
    kb = _kb()
    assert locality(kb, chunk_by_tokens(kb, 60))[0] > 0
    assert locality(kb, type_decompose(kb, 60).partitions)[0] == 0


def test_constraints_too_large_for_the_partition_budget_are_reported_infeasible():
    res = type_decompose(_kb(), count_tokens("Never force push to main.") - 1)
    assert res.infeasible


def test_recursive_mode_splits_a_huge_topic_into_bounded_groups_without_violations():
    needs_extra("sklearn")  # KMeans: the recursive mode is part of aac[pipeline]
    words = ["alpha", "beta", "gamma", "delta"]
    items = [Item("c", "Never log secrets.", "C", topic="big", scope=("big",), order=0)]
    items += [Item(f"x{n}", f"{words[n % 4]} topic item {n}", "B", topic="big", order=n + 1) for n in range(120)]
    kb = KnowledgeBase(items)
    fake_embed = lambda texts: __import__("numpy").array([[float(t.startswith(w)) for w in words] for t in texts])
    res = type_decompose(kb, 10_000, recursive=True, split_threshold=40, embed=fake_embed)
    assert len(res.partitions) >= 3
    assert all(len(p.items) <= 40 for p in res.partitions)
    assert locality(kb, res.partitions)[0] == 0


@settings(max_examples=80, deadline=None)
@given(kb=kbs())
def test_the_scope_index_finds_exactly_the_constraints_each_topic_needs(kb):
    """The index that keeps decompose linear answers as testing every constraint against the topic would."""
    from aac.operators.decompose import _Required, constraints_of, required_for

    cons = constraints_of(kb)
    index = _Required(kb, cons)
    for topic in kb.topics() + ["(root)", "no/such/topic", ""]:
        assert [c.id for c in index(topic)] == [c.id for c in required_for(kb, cons, topic)]


def test_preamble_and_glob_constraints_reach_every_topic_of_their_document():
    items = [Item("p", "Never commit secrets.", "C", topic="(root)", scope=("(root)",)),
             Item("g", "Never disable strict mode.", "C", topic="ts", scope=("glob:src/**/*.ts",), order=1),
             Item("t", "Tests run with pytest.", "B", topic="guide/testing", scope=("guide/testing",), order=2)]
    res = type_decompose(KnowledgeBase(items), 200)
    [part] = [p for p in res.partitions if any(i.id == "t" for i in p.items)]
    assert {c.id for c in part.pinned} == {"p", "g"}
