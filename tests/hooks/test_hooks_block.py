"""The injected block: verbatim, grouped by file, global rules first, whole rules within the budget."""

from __future__ import annotations

from aac.hooks.block import render, select
from aac.hooks.project import Rule, glob_regexes


def rule(file, line, text, context="Rules", base="", globs=()):
    g = tuple((p, tuple((rx, full) for rx, full in glob_regexes(p))) for p in globs)
    return Rule(file, line, text, context, ("*",), base, line, g)


RULES = [rule("CLAUDE.md", 3, "Never push to main."), rule("CLAUDE.md", 4, "Never log secrets.\nNot even in tests."),
         rule(".cursor/rules/ts.mdc", 6, "Use strict null checks in TypeScript.", "", globs=["src/**/*.ts"]),
         rule("web/AGENTS.md", 2, "Never call the payments API from the browser.", "Web > Rules", base="web"),
         rule("AGENTS.md", 9, "Never push to main.")]


def test_select_orders_global_first_and_keeps_only_touched_scopes():
    ordered, idle, dup = select(RULES, ["src/a/b.ts"])
    assert [r.text for r in ordered] == ["Never push to main.", "Never log secrets.\nNot even in tests.",
                                         "Use strict null checks in TypeScript."]
    assert (idle, dup) == (1, 1)
    ordered, idle, _ = select(RULES, ["web/pay.js"])
    assert ordered[-1].file == "web/AGENTS.md" and idle == 1


def test_render_verbatim_with_file_line_and_context():
    block = render(RULES, ["src/a/b.ts", "web/x.js"])
    t = block.text
    assert "- CLAUDE.md:4: Never log secrets.\nNot even in tests." in t  # multi-line rule kept as is
    assert "[Rules]\n- CLAUDE.md:3: Never push to main." in t
    assert "## .cursor/rules/ts.mdc (applies to src/**/*.ts; touched: src/a/b.ts)" in t
    assert "## web/AGENTS.md (applies to web/; touched: web/x.js)" in t and "[Web > Rules]" in t
    assert t.count("Never push to main.") == 1 and not block.left_out


def test_render_budget_never_cuts_a_rule():
    long_rules = [rule("CLAUDE.md", n, f"Rule number {n} must never be broken: " + "x" * 80) for n in range(1, 60)]
    for budget in (300, 500, 1000, 2500, 9000):
        block = render(long_rules, [], budget)
        assert len(block.text) <= budget
        assert len(block.shown) + len(block.left_out) == 59
        for r in block.shown:
            assert f"- CLAUDE.md:{r.line}: {r.text}" in block.text
        if block.left_out:
            assert f"[{len(block.left_out)} more rules left out to stay within {budget:,} characters" in block.text \
                or "hold none" in block.text
            assert all(r.text not in block.text for r in block.left_out)


def test_render_nothing_for_no_rules():
    assert render([], []).text == ""
