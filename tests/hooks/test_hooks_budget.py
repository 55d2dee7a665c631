"""The answer stays within the agents' 10,000-character inline cap even when JSON escapes lengthen the block."""

from __future__ import annotations

import json

from aac.hooks.block import render, size
from aac.hooks.run import run
from test_hooks_block import rule


def test_block_budget_counts_json_escapes():
    rules = [rule("CLAUDE.md", n, f'Never write "{n}" to\n"prod\\db" tables.') for n in range(1, 400)]
    for budget in (500, 3000, 9900):
        block = render(rules, [], budget)
        assert size(block.text) <= budget and block.left_out


def test_answer_within_cap_at_the_largest_budget(tmp_path, monkeypatch):
    monkeypatch.setenv("AAC_HOOKS_CACHE", str(tmp_path / "cache"))
    root = tmp_path / "p"
    root.mkdir()
    body = "\n".join(f'- Never run "rm -rf /data/{n}" on the \\\\prod\\\\ host.' for n in range(400))
    (root / "CLAUDE.md").write_text("# Ops\n\n## Forbidden\n" + body + "\n")
    for agent, event in (("claude-code", "SessionStart"), ("cursor", "sessionStart")):
        out = run(agent, json.dumps({"session_id": "s", "cwd": str(root), "hook_event_name": event,
                                     "source": "compact"}), max_chars=10_000)
        assert out and len(out) <= 10_000, len(out)
        text = json.loads(out)
        text = text.get("additional_context") or text["hookSpecificOutput"]["additionalContext"]
        assert "left out to stay within" in text
