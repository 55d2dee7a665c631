"""Agent hooks: a project's rules survive context compaction in Claude Code, Codex CLI, Gemini CLI and Cursor.

``aac hook install AGENT`` merges our entries into the agent's settings file; the agent then starts
``aac hook run --agent AGENT`` (or ``python -m aac.hooks run``, the same code without the rest of the CLI) on its
events, and after a compaction the hook answers with one block of the project's constraints, verbatim, each with
its ``file:line`` and governing heading (see docs/hooks.md for each agent's contract and its sources).

Importing this package loads nothing heavy (no Prefect, DuckDB, pyarrow, datasets, not even numpy): a hook is a
process the agent starts on every event, and the warm path (typed items cached by file content hash) reads JSON.
"""

AGENT_NAMES: tuple[str, ...] = ("claude-code", "codex", "gemini", "cursor")

__all__ = ["AGENT_NAMES"]
