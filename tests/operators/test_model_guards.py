"""The knowledge base refuses what would let an operator lose a constraint unnoticed (an operators audit)."""

from __future__ import annotations

import pytest

from aac.operators import Item, KnowledgeBase, type_compact, type_decompose


def test_duplicate_item_ids_are_refused():
    with pytest.raises(ValueError, match="duplicate item id '0'"):
        KnowledgeBase([Item("0", "Never push directly to main.", "C"), Item("0", "Never log tokens.", "C", order=1)])


def test_unknown_type_labels_are_refused_and_full_names_read():
    rows = [{"text": "Never delete the production database.", "type": "constraints"}]
    with pytest.raises(ValueError, match="'constraints' is not one of"):
        KnowledgeBase.from_rows(rows)
    kb = KnowledgeBase.from_rows([{"text": "Never delete the production database.", "type": "Constraint"},
                                  {"text": "We use Postgres.", "type": None}])
    assert [i.type for i in kb.items] == ["C", "B"]


def test_a_string_scope_is_one_scope_not_its_letters():
    kb = KnowledgeBase.from_rows([{"text": "Never skip the tests.", "type": "C", "topic": "testing", "scope": "testing"}])
    assert kb.items[0].scope == ("testing",)


def test_text_must_be_a_string():
    with pytest.raises(TypeError, match="text must be a string"):
        Item("x", None, "C")
    with pytest.raises(ValueError, match="string 'text'"):
        KnowledgeBase.from_rows([{"text": None, "type": "C"}])


def test_constraint_only_topic_gets_one_home_partition_not_one_each():
    kb = KnowledgeBase([Item(str(i), f"Never do thing number {i}.", "C", order=i) for i in range(5)])
    result = type_decompose(kb, 200)
    assert len(result.partitions) == 1 and result.partitions[0].ids() == {str(i) for i in range(5)}


@pytest.mark.parametrize("budget", [0, -1, 0.5, True])
def test_decompose_budget_must_be_positive_tokens(budget):
    kb = KnowledgeBase([Item("0", "Never push.", "C")])
    with pytest.raises(ValueError, match="partition_budget"):
        type_decompose(kb, budget)


def test_compaction_counts_with_the_tokenizer_in_force():
    from aac.core.tokens import ApproxBPETokenizer, count_tokens, default_tokenizer, set_default_tokenizer

    texts = ["Never push directly to main.", "The service uses a message queue for background jobs and retries.",
             "We prefer descriptive variable names over abbreviations in every module of the codebase."]

    def kb():
        return KnowledgeBase([Item(str(i), t, "C" if i == 0 else "B", order=i) for i, t in enumerate(texts)])

    type_compact(kb(), 0.9)  # fills the per-text cache under the default tokenizer
    before = default_tokenizer()
    set_default_tokenizer(ApproxBPETokenizer(2))
    try:
        result = type_compact(kb(), 0.9)
        assert result.unsafe or count_tokens(result.text) <= result.budget
        assert result.tokens_out == count_tokens(result.text)
    finally:
        set_default_tokenizer(before)


def test_budget_shares_of_any_number_type_and_bad_arguments():
    import decimal

    import numpy as np

    from aac.operators.compact import resolve_budget

    assert resolve_budget(np.float32(0.5), 100) == resolve_budget(decimal.Decimal("0.5"), 100) == 50
    assert resolve_budget(1.0, 100) == 100 and resolve_budget(1, 100) == 1 and resolve_budget(300.0, 100) == 300
    with pytest.raises(TypeError, match="KnowledgeBase"):
        type_compact([Item("0", "Never push.", "C")], 0.5)
    with pytest.raises(TypeError, match="budget must be a number"):
        resolve_budget("50%", 100)
    for odd in (1.5, 2.7):  # neither a share nor whole tokens: refused, not rounded down
        with pytest.raises(ValueError, match="neither a share"):
            resolve_budget(odd, 100)
    for odd in (float("nan"), float("inf"), -1):
        with pytest.raises(ValueError, match="finite number >= 0"):
            resolve_budget(odd, 100)


def test_retrieve_checks_k_and_reads_a_string_topic_as_one():
    from aac.operators import TypeRetriever

    items = [Item("0", "Never skip the integration tests.", "C", topic="testing", scope=("testing",)),
             Item("1", "Run pytest -q for unit tests.", "P", topic="testing", order=1)]
    r = TypeRetriever(items)
    with pytest.raises(ValueError, match="k: how many"):
        r.retrieve("tests", k=-1)
    assert r.retrieve("how to run unit tests", 2, topics="testing").pinned == ["0"]
