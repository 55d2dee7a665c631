"""Registry of agent platforms: for each, the code-search queries that find its files and the path patterns
that recognise them.

Adding a platform is one ``Platform(...)`` entry. Queries use GitHub's legacy code-search qualifiers
(``filename:``, ``path:``, ``extension:``); the collector adds ``size:`` ranges itself. Path patterns are
matched against the repository-relative path; the first platform whose pattern matches wins, so more
specific entries come first.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Platform:
    name: str
    title: str
    queries: tuple[str, ...]
    patterns: tuple[str, ...]  # regexes over the full repository-relative path
    function: str = "rules"  # default function tag: rules | memory | slash_command | sub_agent | tool_config
    in_paper: bool = False
    _compiled: tuple[re.Pattern, ...] = field(default=(), repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_compiled", tuple(re.compile(p, re.IGNORECASE) for p in self.patterns))

    def matches(self, path: str) -> bool:
        return any(p.search(path) for p in self._compiled)


_ROOT_OR_DIR = r"(?:^|/)"

PLATFORMS: tuple[Platform, ...] = (
    Platform("claude_commands", "Claude Code slash commands", ("path:.claude/commands extension:md",),
             (_ROOT_OR_DIR + r"\.claude/commands/.+\.md$",), function="slash_command"),
    Platform("claude_agents", "Claude Code sub-agents", ("path:.claude/agents extension:md",),
             (_ROOT_OR_DIR + r"\.claude/agents/.+\.md$",), function="sub_agent"),
    Platform("claude", "Claude Code", ("filename:CLAUDE.md", "filename:CLAUDE.local.md"),
             (_ROOT_OR_DIR + r"CLAUDE(?:\.local)?\.md$",), function="memory", in_paper=True),
    Platform("cursor", "Cursor", ("filename:.cursorrules", "path:.cursor/rules extension:mdc", "path:.cursor/rules extension:md"),
             (_ROOT_OR_DIR + r"\.cursorrules$", _ROOT_OR_DIR + r"\.cursor/rules/.+\.mdc?$"), in_paper=True),
    Platform("copilot", "GitHub Copilot",
             ("filename:copilot-instructions.md path:.github", "path:.github/instructions extension:md"),
             (r"(?:^|/)\.github/copilot-instructions\.md$", r"(?:^|/)\.github/instructions/.+\.instructions\.md$"), in_paper=True),
    Platform("windsurf", "Windsurf", ("filename:.windsurfrules", "path:.windsurf/rules extension:md"),
             (_ROOT_OR_DIR + r"\.windsurfrules$", _ROOT_OR_DIR + r"\.windsurf/rules/.+\.md$"), in_paper=True),
    Platform("continue", "Continue", ("filename:.continuerules", "path:.continue/rules extension:md"),
             (_ROOT_OR_DIR + r"\.continuerules$", _ROOT_OR_DIR + r"\.continue/rules/.+\.md$"), in_paper=True),
    Platform("aider", "Aider", ("filename:.aider.conf.yml", "filename:CONVENTIONS.md"),
             (_ROOT_OR_DIR + r"\.aider\.conf\.ya?ml$", _ROOT_OR_DIR + r"CONVENTIONS\.md$"), in_paper=True),
    Platform("codeium", "Codeium", ("path:.codeium extension:md",),
             (_ROOT_OR_DIR + r"\.codeium/.+\.md$",), in_paper=True),
    Platform("universal", "AGENTS.md (universal)", ("filename:AGENTS.md",),
             (_ROOT_OR_DIR + r"AGENTS\.md$",), in_paper=True),
    Platform("gemini", "Gemini CLI / Code Assist", ("filename:GEMINI.md", "path:.gemini extension:md"),
             (_ROOT_OR_DIR + r"GEMINI\.md$", _ROOT_OR_DIR + r"\.gemini/.+\.md$")),
    Platform("cline", "Cline", ("filename:.clinerules", "path:.clinerules extension:md"),
             (_ROOT_OR_DIR + r"\.clinerules$", _ROOT_OR_DIR + r"\.clinerules/.+\.md$")),
    Platform("roo", "Roo Code", ("filename:.roorules", "path:.roo extension:md"),
             (_ROOT_OR_DIR + r"\.roorules$", _ROOT_OR_DIR + r"\.roo/rules(?:-[\w-]+)?/.+\.md$")),
    Platform("kiro", "Kiro", ("path:.kiro/steering extension:md",),
             (_ROOT_OR_DIR + r"\.kiro/steering/.+\.md$",)),
    Platform("junie", "JetBrains Junie", ("filename:guidelines.md path:.junie",),
             (_ROOT_OR_DIR + r"\.junie/guidelines\.md$",)),
    Platform("amazonq", "Amazon Q Developer", ("path:.amazonq/rules extension:md",),
             (_ROOT_OR_DIR + r"\.amazonq/rules/.+\.md$",)),
    Platform("trae", "Trae", ("path:.trae/rules extension:md",),
             (_ROOT_OR_DIR + r"\.trae/rules/.+\.md$",)),
    Platform("zed", "Zed", ("filename:.rules",),
             (r"^\.rules$",)),
)

BY_NAME: dict[str, Platform] = {p.name: p for p in PLATFORMS}


def platform_of(path: str) -> str | None:
    """The platform a repository-relative path belongs to, or None if it is no known agent file."""
    for p in PLATFORMS:
        if p.matches(path):
            return p.name
    return None


def get(name: str) -> Platform:
    try:
        return BY_NAME[name]
    except KeyError:
        raise KeyError(f"unknown platform {name!r}; known: {', '.join(BY_NAME)}") from None
