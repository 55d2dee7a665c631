"""Registry of agent platforms: for each, the code-search queries that find its files and the path patterns
that recognise them.

Adding a platform is one ``Platform(...)`` entry (its example paths feed the emulator's generator). Queries use GitHub's legacy code-search qualifiers
(``filename:``, ``path:``, ``extension:``); the collector adds ``size:`` ranges itself. Path patterns are
matched against the repository-relative path; the first platform whose pattern matches wins, so more
specific entries come first.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Example:
    """A path where the platform's files live, as the emulator's generator writes one: taken when its draw in [0, 1)
    is below ``below``; ``{slug}`` and the names in the platform's ``choices`` are filled in, in order."""

    below: float
    template: str
    form: str = "md"  # the content the file holds: md | mdc | copilot_scoped | slash_command | sub_agent | aider_yaml


ALWAYS = math.inf


@dataclass(frozen=True)
class Platform:
    name: str
    title: str
    queries: tuple[str, ...]
    patterns: tuple[str, ...]  # regexes over the full repository-relative path
    function: str = "rules"  # default function tag: rules | memory | slash_command | sub_agent | tool_config
    in_paper: bool = False
    examples: tuple[Example, ...] = ()  # example paths (recognised by ``patterns``; tests check it)
    choices: tuple[tuple[str, tuple[str, ...]], ...] = ()  # placeholder -> the values a template draws from
    _compiled: tuple[re.Pattern, ...] = field(default=(), repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_compiled", tuple(re.compile(p, re.IGNORECASE) for p in self.patterns))

    def matches(self, path: str) -> bool:
        return any(p.search(path) for p in self._compiled)


_ROOT_OR_DIR = r"(?:^|/)"

PLATFORMS: tuple[Platform, ...] = (
    Platform("claude_commands", "Claude Code slash commands", ("path:.claude/commands extension:md",),
             (_ROOT_OR_DIR + r"\.claude/commands/.+\.md$",), function="slash_command",
             examples=(Example(ALWAYS, ".claude/commands/{sub}{verb}.md", "slash_command"),),
             choices=(("sub", ("", "", "", "git/", "dev/", "review/")),
                      ("verb", ("review", "commit", "fix-issue", "plan", "test", "refactor", "release", "explain", "pr",
                                "changelog", "deploy", "debug", "docs", "migrate", "audit")))),
    Platform("claude_agents", "Claude Code sub-agents", ("path:.claude/agents extension:md",),
             (_ROOT_OR_DIR + r"\.claude/agents/.+\.md$",), function="sub_agent",
             examples=(Example(ALWAYS, ".claude/agents/{who}.md", "sub_agent"),),
             choices=(("who", ("code-reviewer", "test-runner", "debugger", "architect", "security-auditor",
                               "docs-writer", "planner", "refactorer", "db-expert", "frontend-dev")),)),
    Platform("claude", "Claude Code", ("filename:CLAUDE.md", "filename:CLAUDE.local.md"),
             (_ROOT_OR_DIR + r"CLAUDE(?:\.local)?\.md$",), function="memory", in_paper=True,
             examples=(Example(0.04, "CLAUDE.local.md"), Example(ALWAYS, "CLAUDE.md"))),
    Platform("cursor", "Cursor", ("filename:.cursorrules", "path:.cursor/rules extension:mdc", "path:.cursor/rules extension:md"),
             (_ROOT_OR_DIR + r"\.cursorrules$", _ROOT_OR_DIR + r"\.cursor/rules/.+\.mdc?$"), in_paper=True,
             examples=(Example(0.4, ".cursorrules"), Example(ALWAYS, ".cursor/rules/{slug}.mdc", "mdc"))),
    Platform("copilot", "GitHub Copilot",
             ("filename:copilot-instructions.md path:.github", "path:.github/instructions extension:md"),
             (r"(?:^|/)\.github/copilot-instructions\.md$", r"(?:^|/)\.github/instructions/.+\.instructions\.md$"), in_paper=True,
             examples=(Example(0.75, ".github/copilot-instructions.md"),
                       Example(ALWAYS, ".github/instructions/{slug}.instructions.md", "copilot_scoped"))),
    Platform("windsurf", "Windsurf", ("filename:.windsurfrules", "path:.windsurf/rules extension:md"),
             (_ROOT_OR_DIR + r"\.windsurfrules$", _ROOT_OR_DIR + r"\.windsurf/rules/.+\.md$"), in_paper=True,
             examples=(Example(0.5, ".windsurfrules"), Example(ALWAYS, ".windsurf/rules/{slug}.md"))),
    Platform("continue", "Continue", ("filename:.continuerules", "path:.continue/rules extension:md"),
             (_ROOT_OR_DIR + r"\.continuerules$", _ROOT_OR_DIR + r"\.continue/rules/.+\.md$"), in_paper=True,
             examples=(Example(0.4, ".continuerules"), Example(ALWAYS, ".continue/rules/{slug}.md"))),
    Platform("aider", "Aider", ("filename:.aider.conf.yml", "filename:CONVENTIONS.md"),
             (_ROOT_OR_DIR + r"\.aider\.conf\.ya?ml$", _ROOT_OR_DIR + r"CONVENTIONS\.md$"), in_paper=True,
             examples=(Example(0.6, ".aider.conf.yml", "aider_yaml"), Example(ALWAYS, "CONVENTIONS.md"))),
    Platform("codeium", "Codeium", ("path:.codeium extension:md",),
             (_ROOT_OR_DIR + r"\.codeium/.+\.md$",), in_paper=True, examples=(Example(ALWAYS, ".codeium/{slug}.md"),)),
    Platform("universal", "AGENTS.md (universal)", ("filename:AGENTS.md",),
             (_ROOT_OR_DIR + r"AGENTS\.md$",), in_paper=True, examples=(Example(ALWAYS, "AGENTS.md"),)),
    Platform("gemini", "Gemini CLI / Code Assist", ("filename:GEMINI.md", "path:.gemini extension:md"),
             (_ROOT_OR_DIR + r"GEMINI\.md$", _ROOT_OR_DIR + r"\.gemini/.+\.md$"),
             examples=(Example(0.8, "GEMINI.md"), Example(ALWAYS, ".gemini/styleguide.md"))),
    Platform("cline", "Cline", ("filename:.clinerules", "path:.clinerules extension:md"),
             (_ROOT_OR_DIR + r"\.clinerules$", _ROOT_OR_DIR + r"\.clinerules/.+\.md$"),
             examples=(Example(0.5, ".clinerules"), Example(ALWAYS, ".clinerules/{slug}.md"))),
    Platform("roo", "Roo Code", ("filename:.roorules", "path:.roo extension:md"),
             (_ROOT_OR_DIR + r"\.roorules$", _ROOT_OR_DIR + r"\.roo/rules(?:-[\w-]+)?/.+\.md$"),
             examples=(Example(0.3, ".roorules"), Example(ALWAYS, ".roo/rules{mode}/{slug}.md")),
             choices=(("mode", ("", "", "-code", "-architect", "-debug")),)),
    Platform("kiro", "Kiro", ("path:.kiro/steering extension:md",),
             (_ROOT_OR_DIR + r"\.kiro/steering/.+\.md$",), examples=(Example(ALWAYS, ".kiro/steering/{page}.md"),),
             choices=(("page", ("product", "tech", "structure", "{slug}")),)),
    Platform("junie", "JetBrains Junie", ("filename:guidelines.md path:.junie",),
             (_ROOT_OR_DIR + r"\.junie/guidelines\.md$",), examples=(Example(ALWAYS, ".junie/guidelines.md"),)),
    Platform("amazonq", "Amazon Q Developer", ("path:.amazonq/rules extension:md",),
             (_ROOT_OR_DIR + r"\.amazonq/rules/.+\.md$",), examples=(Example(ALWAYS, ".amazonq/rules/{slug}.md"),)),
    Platform("trae", "Trae", ("path:.trae/rules extension:md",),
             (_ROOT_OR_DIR + r"\.trae/rules/.+\.md$",), examples=(Example(ALWAYS, ".trae/rules/{slug}.md"),)),
    Platform("zed", "Zed", ("filename:.rules",),
             (r"^\.rules$",), examples=(Example(ALWAYS, ".rules"),)),
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
