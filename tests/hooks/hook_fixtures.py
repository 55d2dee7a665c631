"""A small project with instruction files of several agents, and helpers to run the hook as the agents do."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]

FILES = {
    "CLAUDE.md": "# Acme service\n\n## Forbidden actions\n- Force-push to main.\n- Run migrations against production.\n"
                 "- Log card numbers.\n\n## Testing\nRun `pytest -q` before every commit.\nNever commit with failing "
                 "tests.\n",
    "AGENTS.md": "# Agents\n\n## Rules\n- Never edit files under vendor/.\n- Log card numbers.\n",
    ".cursor/rules/api.mdc": "---\ndescription: API rules\nglobs: src/api/**/*.py\nalwaysApply: false\n---\n"
                             "- Every endpoint must check the caller's permissions before reading data.\n",
    "src/api/CLAUDE.md": "# API folder\n\n## Rules\n- Never change the public response schema without a version "
                         "bump.\n",
    ".github/instructions/docs.instructions.md": "---\napplyTo: \"docs/**/*.md\"\n---\n"
                                                "- Never put customer names in the docs.\n",
    ".claude/commands/deploy.md": "# Deploy\n\n- Never deploy on Fridays.\n",  # a slash command: not a session rule
    "node_modules/pkg/CLAUDE.md": "# Vendored\n\n## Rules\n- Never do the vendored thing.\n",
    "src/api/users.py": "x = 1\n",
}
GLOBAL_RULES = ["Force-push to main.", "Run migrations against production.", "Log card numbers.",
                "Never commit with failing tests.", "Never edit files under vendor/."]
API_RULES = ["Every endpoint must check the caller's permissions before reading data.",
             "Never change the public response schema without a version bump."]
DOCS_RULE = "Never put customer names in the docs."
NOT_RULES = ["Never deploy on Fridays.", "Never do the vendored thing."]


def make_project(root: Path) -> Path:
    for rel, text in FILES.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    return root


def claude_transcript(path: Path, edited: str) -> Path:
    """A Claude Code transcript (JSON lines) whose assistant made one Edit call."""
    lines = [
        {"type": "user", "message": {"role": "user", "content": "fix the users endpoint"}},
        {"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": "t1", "name": "Edit",
             "input": {"file_path": edited, "old_string": "x = 1", "new_string": "x = 2"}}]}},
    ]
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    return path


def run_hook(agent: str, payload, cache: Path, *extra: str, via_cli: bool = False, timeout: int = 120):
    """Pipe ``payload`` (a dict, or raw text) into the hook process as the agent does; (exit code, stdout, stderr)."""
    stdin = payload if isinstance(payload, (str, bytes)) else json.dumps(payload)
    if isinstance(stdin, str):
        stdin = stdin.encode("utf-8")
    cmd = ([sys.executable, "-m", "aac", "hook", "run", "--agent", agent] if via_cli
           else [sys.executable, "-m", "aac.hooks", "run", "--agent", agent]) + list(extra)
    env = dict(os.environ, AAC_HOOKS_CACHE=str(cache), PYTHONPATH=str(REPO_ROOT))
    res = subprocess.run(cmd, input=stdin, capture_output=True, timeout=timeout, env=env, cwd=str(REPO_ROOT))
    return res.returncode, res.stdout.decode("utf-8"), res.stderr.decode("utf-8")
