import numpy as np
from hypothesis import given, settings, strategies as st

from aac.operators.compact import hard_lane_of
from aac.operators.model import Item, scope_intersects
from aac.operators.retrieve import TypeRetriever

from tests.operators.kb_strategies import TOPICS, kbs


@settings(max_examples=80, deadline=None)
@given(kb=kbs(min_size=1), topic=st.sampled_from(TOPICS), slack=st.integers(0, 5))
def test_retrieval_returns_every_in_scope_constraint_when_k_covers_them(kb, topic, slack):
    r = TypeRetriever(kb.items, "bm25", tree=kb.tree)
    want = {c.id for c in kb.items if hard_lane_of(c) == "C" and scope_intersects(c.scope, topic, kb.tree)}
    got = r.retrieve("run the tests", k=len(want) + slack, topics=[topic])
    assert want <= {i.id for i in got.items}


def test_path_scoped_rules_are_pinned_only_for_queries_naming_matching_paths():
    its = [Item("g", "Never use default exports.", "C", topic="ts", scope=("glob:src/**/*.ts",), order=0),
           Item("b", "Components live in src/components.", "B", topic="ts", order=1)]
    r = TypeRetriever(its, "bm25")
    assert r.retrieve("components", k=1, topics=["other"]).pinned == []
    assert r.retrieve("components", k=1, topics=["other"], paths=["src/app/x.ts"]).pinned == ["g"]


def _items():
    return [Item("c1", "Never refund to a card the customer did not pay with.", "C", topic="returns", scope=("returns",), order=0),
            Item("c2", "Always authenticate the user first.", "C", topic="general", scope=("*",), order=1),
            Item("c3", "Never ship to a PO box.", "C", topic="shipping", scope=("shipping",), order=2),
            Item("b1", "Customers get their money back within five days.", "B", topic="returns", order=3),
            Item("b2", "Money back requests are common in December.", "B", topic="returns", order=4)]


def test_pinning_puts_in_scope_constraints_first_even_without_word_overlap():
    r = TypeRetriever(_items(), "bm25")
    got = r.retrieve("customer wants money back", k=3, topics=["returns"])
    assert [i.id for i in got.items][:2] == sorted(["c1", "c2"], key=[i.id for i in got.items].index)
    assert set(got.pinned) == {"c1", "c2"} and "c3" not in {i.id for i in got.items}
    baseline = TypeRetriever(_items(), "bm25").retrieve("customer wants money back", k=2, pin=False)
    assert "c1" not in {i.id for i in baseline.items}


def test_authority_weighted_pinning_prefers_higher_authority_when_k_is_short():
    its = [Item("u", "Never do X.", "C", topic="t", scope=("*",), authority="user", order=0),
           Item("s", "Never do Y.", "C", topic="t", scope=("*",), authority="sys", order=1)]
    got = TypeRetriever(its, "bm25").retrieve("anything", k=1, topics=["t"], authority_weighted=True)
    assert [i.id for i in got.items] == ["s"]


def test_dense_scorer_ranks_by_cosine_with_an_injected_embedding():
    vocab = ["money", "ship", "auth"]
    embed = lambda texts: np.array([[float(w in t.lower()) + 1e-3 for w in vocab] for t in texts])
    got = TypeRetriever(_items(), "dense", embed=embed).retrieve("money", k=1, pin=False)
    assert "money" in got.items[0].text.lower()


def test_ivf_dense_index_finds_the_nearest_vectors_and_keeps_pinning_exact():
    rng = np.random.default_rng(0)
    vecs = rng.normal(size=(3000, 8)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    items = [Item(str(i), f"item {i}", "B", topic="t", order=i) for i in range(3000)]
    items[2999] = Item("2999", "Never touch prod.", "C", topic="t", scope=("t",), order=2999)
    q = vecs[123] + 0.01
    from aac.operators.retrieve import DenseScorer

    scorer = DenseScorer([], embed=lambda texts: np.array([q]), vectors=vecs, ivf_from=1000, nlist=40, nprobe=8)
    assert scorer.lists is not None and np.argmax(scorer.scores("x")) == 123
    got = TypeRetriever(items, scorer).retrieve("x", k=3, topics=["t"])
    assert [i.id for i in got.items][:2] == ["2999", "123"]
