from aac.operators.compose import fit_context
from aac.operators.model import Item, KnowledgeBase
from aac.core.tokens import count_tokens


def _kb():
    items = [Item(f"c{t}", f"Never break the {t} contract without a migration note.", "C", topic=t, scope=(t,), order=n)
             for n, t in enumerate(["billing", "search", "auth"])]
    items += [Item(f"b{t}{k}", f"The {t} module detail {k} explains caching and retries.", "B", topic=t, order=10 + k + 10 * n)
              for n, t in enumerate(["billing", "search", "auth"]) for k in range(4)]
    return KnowledgeBase(items)


def test_safe_budget_compacts_and_unsafe_budget_falls_through_to_a_partition_with_its_constraints():
    kb = _kb()
    assert fit_context(kb, 1.0).mode == "compact"
    budget = count_tokens("Never break the search contract without a migration note.") * 2 + 5
    ctx = fit_context(kb, budget, query="search module caching", topics=["search"])
    assert ctx.mode == "decompose+retrieve" and ctx.compact.unsafe
    assert "Never break the search contract" in ctx.text and count_tokens(ctx.text) <= budget
    assert all(i.topic == "search" for i in ctx.partition.items)
