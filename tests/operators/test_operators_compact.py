import pytest
from hypothesis import given, settings, strategies as st

from aac.operators.compact import hard_lane_of, is_procedure, resolve_budget, type_compact
from aac.operators.model import Item, KnowledgeBase
from aac.operators.verify import norm_ws
from aac.core.tokens import count_tokens

from tests.operators.kb_strategies import kbs


def _kb():
    return KnowledgeBase([
        Item("c1", "Never commit secrets or .env files to the repository.", "C", order=0),
        Item("b1", "The API is written in Go. It talks to Postgres through sqlc; migrations live in db/.", "B", order=1),
        Item("f1", "Prefer small pull requests; keep functions short and names descriptive.", "F", order=2),
        Item("e1", "Yesterday we migrated the cache from Redis to Valkey.", "E", order=3),
        Item("p1", "Run `make test` before every push.", "P", order=4),
        Item("c2", "Never commit secrets or .env files to the repository.", "C", order=5),
    ])


@settings(max_examples=150, deadline=None)
@given(kb=kbs(), extra=st.integers(0, 200))
def test_any_budget_at_or_above_b_min_keeps_every_hard_item_verbatim_within_budget(kb, extra):
    b_min = type_compact(kb, 10**9).b_min
    res = type_compact(kb, b_min + extra)
    assert not res.unsafe
    assert count_tokens(res.text) <= res.budget == b_min + extra
    out = norm_ws(res.text)
    for h in res.hard_lane:
        assert norm_ws(h.item.text) in out and h.survived
    assert res.restored == []  # the hard lane is kept by construction, not by the verifier's safety net


@settings(max_examples=100, deadline=None)
@given(kb=kbs(min_size=1), short=st.integers(1, 50))
def test_budget_below_b_min_is_unsafe_and_still_within_budget(kb, short):
    b_min = type_compact(kb, 10**9).b_min
    if b_min == 0:
        return
    res = type_compact(kb, max(0, b_min - short))
    assert res.unsafe and res.reason
    assert count_tokens(res.text) <= res.budget
    assert all(i in res.dropped for i in {h.item.id for h in res.hard_lane if not h.survived} if h_dup_free(res, i))


def h_dup_free(res, item_id):
    return next(h for h in res.hard_lane if h.item.id == item_id).duplicate_of is None


def test_ratio_budget_is_share_of_source_tokens():
    assert resolve_budget(0.5, 301) == 150
    assert resolve_budget(120, 301) == 120


def test_duplicate_constraints_are_kept_once_and_both_reported_as_survived():
    res = type_compact(_kb(), 1.0)
    assert res.text.count("Never commit secrets") == 1
    assert [h.survived for h in res.hard_lane if h.lane == "C"] == [True, True]
    assert res.hard_lane[1].duplicate_of is None and [h for h in res.hard_lane if h.item.id == "c2"][0].duplicate_of == "c1"


def test_soft_lane_is_compressed_before_it_is_dropped_and_episodic_becomes_a_placeholder():
    kb = _kb()
    res = type_compact(kb, 0.75)
    assert "b1" in res.compressed or "f1" in res.compressed
    assert res.dropped.get("e1") in {"episodic-placeholder", "budget"}
    assert "Valkey" not in res.text


def test_compaction_is_deterministic():
    assert type_compact(_kb(), 0.6).text == type_compact(_kb(), 0.6).text


def test_low_risk_abstention_stays_soft_but_risky_abstention_joins_hard_lane():
    fallback = Item("x", "Some note", "B", proba=(0.16, 0.16, 0.36, 0.16, 0.16), abstained=True)
    risky = Item("y", "Some rule", "B", proba=(0.3, 0.1, 0.4, 0.1, 0.1), abstained=True)
    # the rule at a C threshold of 0.5 (the shipped model's hard lane sits far lower: see the next test)
    assert hard_lane_of(fallback, theta_c=0.5) is None and hard_lane_of(risky, theta_c=0.5) == "C"


def test_authority_weight_raises_constraint_risk_into_the_hard_lane():
    p = (0.45, 0.05, 0.4, 0.05, 0.05)
    assert hard_lane_of(Item("a", "t", "B", proba=p, authority="sys"), theta_c=0.5) == "C"
    assert hard_lane_of(Item("b", "t", "B", proba=p, authority="retrieved"), theta_c=0.5) is None


def test_the_hard_lane_threshold_is_the_default_classifiers_operating_point():
    from aac.classifiers.operating_point import hard_lane_risk
    from aac.operators.compact import THETA_C

    assert THETA_C == hard_lane_risk() and 0 < THETA_C <= 0.5
    low = Item("l", "t", "B", proba=(THETA_C * 0.9, 0.1, 1 - THETA_C * 0.9 - 0.1, 0, 0))
    high = Item("h", "t", "B", proba=(THETA_C * 1.1, 0.1, 1 - THETA_C * 1.1 - 0.1, 0, 0))
    assert hard_lane_of(low) is None and hard_lane_of(high) == "C"


def test_an_item_typed_c_with_moderate_risk_is_hard_and_kept_verbatim_at_a_tight_budget():
    rule = Item("c", "Only touch files under src/ when asked.", "C", proba=(0.4, .15, .15, .15, .15),
                authority="user", order=0)
    assert rule.risk < 0.5 and not rule.abstained and hard_lane_of(rule) == "C"
    kb = KnowledgeBase([rule, Item("b", "The service is written in Rust and uses tokio for async work.", "B",
                                   order=1)])
    res = type_compact(kb, rule.tokens)
    assert res.b_min == rule.tokens and not res.unsafe
    assert res.text == rule.text and res.kept == ["c"] and res.dropped == {"b": "budget"}
    assert [(h.item.id, h.lane, h.survived) for h in res.hard_lane] == [("c", "C", True)]


def _lose_hard_piece(monkeypatch, item_id: str) -> None:
    """Make the prepared hard pieces lose ``item_id`` (its reserved budget goes to the soft lane), so only the
    verifier can bring it back."""
    from dataclasses import replace

    from aac.operators import compact

    real = compact._prepare

    def losing(*args):
        prep = real(*args)
        lost = next(p for p in prep.hard_pieces if p.item_id == item_id)
        return replace(prep, hard_pieces=[p for p in prep.hard_pieces if p is not lost],
                       b_min=prep.b_min - lost.tokens)

    monkeypatch.setattr(compact, "_prepare", losing)


def test_a_hard_item_missing_before_the_verifier_is_restored_and_reported(monkeypatch):
    """The verifier's safety net: a hard-lane item left out of the soft-lane assembly is put back, evicting soft
    pieces."""
    kb = _kb()
    b_min = type_compact(kb, 10**9).b_min
    _lose_hard_piece(monkeypatch, "p1")
    res = type_compact(kb, b_min + 8)
    assert res.restored == ["p1"] and res.as_dict()["restored"] == ["p1"]
    assert not res.unsafe and res.tokens_out <= res.budget == b_min + 8
    assert "Run `make test` before every push." in res.text
    assert all(h.survived for h in res.hard_lane)
    assert "evicted-for-restore" in res.dropped.values()  # soft pieces made room for it


def test_a_restored_constraint_with_a_deduplicated_twin_is_put_back_once(monkeypatch):
    kb = _kb()
    twins = {h.item.id: h.duplicate_of for h in type_compact(kb, 10**9).hard_lane}
    assert twins.get("c2") == "c1"  # the fixture's second constraint repeats the first
    b_min = type_compact(kb, 10**9).b_min
    _lose_hard_piece(monkeypatch, "c1")
    res = type_compact(kb, b_min + 8)
    text = next(it.text for it in kb.items if it.id == "c1").strip()
    assert res.restored == ["c1"] and res.text.count(text) == 1
    assert not res.unsafe and all(h.survived for h in res.hard_lane)


def test_shell_code_block_is_a_procedure_but_a_component_example_is_not():
    shell = Item("s", "```bash\nnpm install\nnpm test\n```", "P", kind="code")
    example = Item("e", "```tsx\nexport function A() {\n  return <div/>;\n}\n```", "P", kind="code")
    assert is_procedure(shell) and not is_procedure(example)
    assert hard_lane_of(shell) == "P" and hard_lane_of(example) is None


def test_report_lists_every_hard_lane_item_with_type_and_survival():
    d = type_compact(_kb(), 0.5).as_dict()
    assert {h["id"] for h in d["hard_lane"]} == {"c1", "c2", "p1"}
    assert all(set(h) >= {"text", "type", "survived"} for h in d["hard_lane"])
    assert isinstance(d["unsafe"], bool) and all(isinstance(d[k], int) for k in ("b_min", "budget", "tokens_out"))


@settings(max_examples=200, deadline=None)
@given(a=st.text(max_size=60), b=st.text(max_size=60))
def test_default_tokenizer_is_additive_across_the_line_separator(a, b):
    """TypeCompact sums piece counts instead of re-tokenising the output; this is what makes that exact."""
    assert count_tokens(a + "\n" + b) == count_tokens(a) + count_tokens(b)


def test_prepared_state_is_rebuilt_when_the_items_change():
    kb = _kb()
    first = type_compact(kb, 1.0)
    kb.items.append(Item("c3", "Never deploy on Fridays.", "C", order=9))
    second = type_compact(kb, 1.0)
    assert "Never deploy on Fridays." in second.text and "Never deploy" not in first.text


@settings(max_examples=60, deadline=None)
@given(kb=kbs(min_size=1), ratio=st.sampled_from([0.1, 0.25, 0.5, 0.9]))
def test_every_baseline_output_fits_the_budget(kb, ratio):
    from aac.operators.baselines import COMPACTION_BASELINES

    limit = resolve_budget(ratio, kb.total_tokens)
    for name, fn in COMPACTION_BASELINES.items():
        assert count_tokens(fn(kb, ratio)) <= limit, name


def test_truncation_keeps_the_head_and_temporal_window_the_tail():
    from aac.operators.baselines import temporal_window, truncation

    kb = _kb()
    assert truncation(kb, 0.3).startswith("Never commit secrets")
    assert temporal_window(kb, 0.3).endswith(".env files to the repository.")


def test_an_item_typed_c_is_hard_whatever_its_probabilities_say():
    """The label is the decision: probabilities from another classifier, another class order or a low-authority
    source must not let a constraint be compressed away while the result says it is safe."""
    for proba, authority in [((0.3, 0.4, 0.1, 0.1, 0.1), "tool"), ((0.0, 1.0, 0.0, 0.0, 0.0), "user")]:
        c = Item("c", "Never run DROP TABLE against the production database.", "C", proba=proba, authority=authority)
        assert hard_lane_of(c) == "C"
        kb = KnowledgeBase([c, Item("b", "The app is a Django monolith with a React front end.", "B")])
        res = type_compact(kb, count_tokens(c.text))
        assert not res.unsafe and c.text in res.text


@pytest.mark.parametrize("proba", [(float("nan"), 0.25, 0.25, 0.25, 0.25), (0.5, 0.5, 0.5, 0.0, 0.0),
                                   (-0.1, 0.5, 0.6, 0.0, 0.0), ("high", 0, 0, 0, 0)])
def test_probabilities_that_are_not_a_distribution_are_refused(proba):
    with pytest.raises(ValueError, match="proba must be probabilities"):
        Item("x", "text", "C", proba=proba)


def test_a_budget_the_whole_input_fits_loses_nothing_and_episodic_notes_return_last():
    kb = _kb()
    whole = type_compact(kb, 1.0)
    assert not whole.dropped and not whole.compressed and "Valkey" in whole.text  # episodic kept in full
    tighter = type_compact(kb, 0.8)  # everything else whole, the episodic note still a placeholder
    assert not tighter.compressed and tighter.dropped == {"e1": "episodic-placeholder"}
