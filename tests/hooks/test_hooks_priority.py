"""Under the budget the surest constraints are kept first (C-labelled, then higher risk), whatever their place in
the files; the block still lists what it keeps in file order, and its size is counted exactly."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from aac.hooks.block import render, select, size
from aac.hooks.project import Rule

FILLER = "x" * 60


def rule(file: str, line: int, text: str, labelled: bool, risk: float, context: str = "Rules") -> Rule:
    return Rule(file, line, text, context, ("*",), "", line, (), labelled=labelled, risk=risk)


def overflowing_project() -> list[Rule]:
    """40 hard-lane-only rules of the same length first (CLAUDE.md), 5 rules the classifier typed C last (two at the
    end of CLAUDE.md, three in AGENTS.md): file position alone would keep the first ones."""
    rules = [rule("CLAUDE.md", n, f"Prefer option {n} when it helps: {FILLER}", False, 0.4 + n / 1000)
             for n in range(10, 50)]
    rules += [rule("CLAUDE.md", 60 + n, f"Never skip check {n}: {FILLER}", True, 0.6 + n / 100) for n in (1, 2)]
    rules += [rule("AGENTS.md", n, f"Never deploy region {n} by hand: {FILLER}", True, 0.7) for n in (1, 2, 3)]
    return rules


def test_an_overflowing_project_keeps_every_c_labelled_rule_before_any_hard_lane_only_one():
    rules = overflowing_project()
    block = render(rules, [], 1500)
    assert block.left_out and size(block.text) <= 1500
    assert all(r in block.shown for r in rules if r.labelled)
    kept_other = [r for r in block.shown if not r.labelled]
    assert kept_other, "the room left after the C-labelled rules is filled with the surest of the others"
    lowest_kept = min(r.risk for r in kept_other)
    assert all(r.risk <= lowest_kept for r in block.left_out)  # the others by risk, not by position
    assert [r.line for r in kept_other] != list(range(10, 10 + len(kept_other)))


def test_the_kept_rules_are_listed_in_file_order_with_their_context():
    block = render(overflowing_project(), [], 1500)
    t = block.text
    files = [ln for ln in t.splitlines() if ln.startswith("## ")]
    assert files == ["## CLAUDE.md", "## AGENTS.md"]  # each file once, in file order
    listed = [ln.split(":")[0:2] for ln in t.splitlines() if ln.startswith("- ")]
    assert listed == [[f"- {r.file}", str(r.line)] for r in block.shown]
    by_file = {}
    for r in block.shown:
        by_file.setdefault(r.file, []).append(r.line)
    assert all(lines == sorted(lines) for lines in by_file.values())
    assert t.count("[Rules]") == 2  # once per file group, not once per rule
    assert f"[{len(block.left_out)} more rules left out to stay within 1,500 characters" in t


def test_everywhere_rules_stay_before_path_scoped_ones_whatever_their_label():
    from test_hooks_block import rule as scoped_rule

    everywhere = [rule("CLAUDE.md", n, f"Keep note {n}: {FILLER}", False, 0.3) for n in range(1, 9)]
    scoped = replace(scoped_rule("web/AGENTS.md", 1, f"Never call the payments API: {FILLER}", base="web"),
                     labelled=True, risk=0.99)
    ordered, _, _ = select([scoped, *everywhere], ["web/pay.js"])
    assert ordered[-1] is scoped
    block = render([scoped, *everywhere], ["web/pay.js"], 700)
    assert scoped in block.left_out and block.shown


def test_within_a_label_higher_risk_first_and_ties_in_file_order():
    rules = [rule("CLAUDE.md", 1, "a", False, 0.3), rule("CLAUDE.md", 2, "b", True, 0.55),
             rule("CLAUDE.md", 3, "c", False, 0.9), rule("CLAUDE.md", 4, "d", True, 0.95),
             rule("CLAUDE.md", 5, "e", False, 0.3)]
    ordered, _, _ = select(rules, [])
    assert [r.text for r in ordered] == ["d", "b", "c", "a", "e"]


CONTEXTS = st.sampled_from(["", "Rules", "Rules > Git", "Never:"])
RULES = st.lists(st.tuples(st.sampled_from(["CLAUDE.md", "AGENTS.md", "GEMINI.md"]), st.text(min_size=1, max_size=70),
                           CONTEXTS, st.booleans(), st.floats(0, 1)), min_size=1, max_size=30)


@settings(max_examples=150, deadline=None)
@given(RULES, st.integers(1, 60))
def test_the_size_is_counted_exactly_whatever_order_rules_are_kept_in(spec, cut):
    """A budget equal to the whole block's size keeps everything; one character less leaves something out; any
    budget is met, and what is kept is listed in file order."""
    by_file: dict[str, list[Rule]] = {}
    for n, (file, text, context, labelled, risk) in enumerate(spec):
        by_file.setdefault(file, []).append(rule(file, n + 1, f"{n} {text}", labelled, risk, context))
    rules = [r for f in ("CLAUDE.md", "AGENTS.md", "GEMINI.md") for r in by_file.get(f, [])]
    whole = render(rules, [], 10 ** 9)
    full = size(whole.text)
    exact = render(rules, [], full)
    assert exact.text == whole.text and not exact.left_out
    tight = render(rules, [], full - 1)
    assert tight.left_out and size(tight.text) <= full - 1
    for budget in (full - cut, full // 2, 400):
        block = render(rules, [], budget)
        assert size(block.text) <= budget
        place = {id(r): n for n, r in enumerate(rules)}
        assert [place[id(r)] for r in block.shown] == sorted(place[id(r)] for r in block.shown)
        assert len(block.shown) + len(block.left_out) == len(rules)
