"""What each agent expects: where its hooks are registered, which events we register, and the shape of an answer.

The contracts are those of each agent's hook documentation, summarised with their sources in docs/hooks.md:

- Claude Code: ``{"hooks": {Event: [{"matcher": ..., "hooks": [{"type": "command", "command": ...}]}]}}`` in
  ``.claude/settings.json`` (project), ``.claude/settings.local.json`` (local) or ``~/.claude/settings.json``;
  context goes back as ``{"hookSpecificOutput": {"hookEventName": Event, "additionalContext": text}}``.
- Codex CLI: the same layout in ``.codex/hooks.json`` / ``~/.codex/hooks.json``; its output schema refuses unknown
  fields, so we answer with exactly the object above.
- Gemini CLI: the same layout in ``.gemini/settings.json`` / ``~/.gemini/settings.json`` (timeouts in ms);
  ``PreCompress`` is advisory, ``BeforeAgent`` appends ``hookSpecificOutput.additionalContext`` to the next turn.
- Cursor: ``{"version": 1, "hooks": {event: [{"command": ...}]}}`` in ``.cursor/hooks.json`` /
  ``~/.cursor/hooks.json``; ``sessionStart`` answers ``{"additional_context": text}``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Entry:
    """One hook we register: the agent's event name, its matcher (None = every occurrence) and whether it is only
    installed on request (``--prompts``)."""

    event: str
    matcher: str | None = None
    opt_in: bool = False


@dataclass(frozen=True)
class Agent:
    name: str
    title: str
    layout: str  # "nested" (event -> [{matcher, hooks: [...]}]) | "flat" (Cursor: event -> [{command}])
    files: dict[str, str]  # scope -> path; "~/" = the user's home, else relative to the project root
    entries: tuple[Entry, ...]
    timeout: int | None  # per-hook timeout in the agent's unit (None: leave the agent's default)

    def settings_path(self, scope: str, project: Path) -> Path:
        if scope not in self.files:
            raise ValueError(f"{self.title} has no {scope!r} scope; use one of: {', '.join(self.files)}")
        rel = self.files[scope]
        if rel.startswith("~/"):
            return Path.home() / rel[2:]
        return project / rel

    def answer(self, event: str, text: str) -> dict:
        """The JSON object that hands ``text`` to the agent as context for ``event`` (its documented schema)."""
        if self.name == "cursor":
            return {"additional_context": text}
        return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}


CLAUDE = Agent(
    "claude-code", "Claude Code", "nested",
    {"project": ".claude/settings.json", "local": ".claude/settings.local.json", "user": "~/.claude/settings.json"},
    (Entry("SessionStart", "compact"), Entry("PreCompact"), Entry("PreToolUse", "Edit|Write|MultiEdit"),
     Entry("UserPromptSubmit", opt_in=True)),
    timeout=30,
)
CODEX = Agent(
    "codex", "Codex CLI", "nested",
    {"project": ".codex/hooks.json", "user": "~/.codex/hooks.json"},
    (Entry("SessionStart", "compact"), Entry("UserPromptSubmit", opt_in=True)),
    timeout=30,
)
GEMINI = Agent(
    "gemini", "Gemini CLI", "nested",
    {"project": ".gemini/settings.json", "user": "~/.gemini/settings.json"},
    (Entry("PreCompress"), Entry("BeforeAgent")),
    timeout=30000,  # milliseconds in Gemini CLI
)
CURSOR = Agent(
    "cursor", "Cursor", "flat",
    {"project": ".cursor/hooks.json", "user": "~/.cursor/hooks.json"},
    (Entry("sessionStart"), Entry("preCompact")),
    timeout=None,
)

AGENTS: dict[str, Agent] = {a.name: a for a in (CLAUDE, CODEX, GEMINI, CURSOR)}
ALIASES = {"claude": "claude-code", "claude_code": "claude-code", "gemini-cli": "gemini", "codex-cli": "codex"}


def get_agent(name: str) -> Agent:
    key = ALIASES.get(name.strip().lower(), name.strip().lower())
    if key not in AGENTS:
        raise ValueError(f"unknown agent {name!r}; use one of: {', '.join(AGENTS)}")
    return AGENTS[key]
