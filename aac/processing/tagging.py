"""Tags per artifact: platform, function, authorship, specificity — documented rules, measured on the real sample.

Rules (each a small pure function below):

* **platform** — the path registry (``aac.collectors.platforms.platform_of``).
* **function** — ``tool_config`` for ``.aider.conf.yml``; ``pointer`` when the body (headings, comments and
  front matter removed) is short (at most ``POINTER_MAX_WORDS`` words and ``POINTER_MAX_CHARS`` characters besides
  references), refers to another instruction file (``@AGENTS.md``, ".agents/instructions.md", a link to a ``.md``) and
  hands over to it (an ``@file`` import line, or words like see / follow / read / located / canonical);
  otherwise the platform's default (``memory`` for CLAUDE.md, ``slash_command``, ``sub_agent``, else ``rules``).
* **authorship** — ``tool_generated`` when the head of the file carries a generator's boilerplate (Claude Code's
  and Qwen/Gemini's ``/init`` header "This file provides guidance to … when working with code in this repository",
  or "Generated … Do not edit"); ``template_copy`` when its dedupe cluster spans at least ``TEMPLATE_MIN_REPOS``
  repositories; else ``human``.
* **specificity** — ``project_specific`` when the text names the project: its repository name, or at least two
  distinct project identifiers (file paths, file names with a code extension, project script commands such as
  ``npm run build`` / ``make test`` / ``./scripts/x.sh``); else ``generic``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from aac.collectors.platforms import BY_NAME, platform_of

TEMPLATE_MIN_REPOS = 3
POINTER_MAX_WORDS = 60
POINTER_MAX_CHARS = 400
SPECIFICITY_SCAN = 20_000  # characters of a file searched for project identifiers

_INIT_HEADER = re.compile(r"this file provides guidance to [^\n]{2,80}? when working with code in this repository", re.I)
_GENERATED = re.compile(r"(?i)\b(?:auto-?generated|generated (?:by|from|with|using)\b|do not edit (?:by hand|manually|this file))")
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_FRONT = re.compile(r"\A---[ \t]*\n.*?\n---[ \t]*(?:\n|\Z)", re.S)
_DOC_REF = re.compile(
    r"(?:@[\w./-]*[\w-]+\.(?:md|mdc|txt|ya?ml|json)\b"  # @AGENTS.md, @./docs/x.md imports
    r"|\[[^\]]*\]\([^)\s]+\.(?:md|mdc|txt)\)"  # markdown links to other docs
    r"|(?<![\w/])\.?/?[\w.-]*/?[\w.-]+\.(?:md|mdc)\b"  # a bare path to another instruction file
    r"|(?<![\w/])\.?/?\.[\w-]+/(?:[\w.-]+/?)*)",  # a dot-directory such as .agents/ or .maestronexus/RULES.md
    re.I,
)
_WORDS = re.compile(r"\w+")
_IMPORT_LINE = re.compile(r"^\s*@\S+\s*$", re.M)
_HANDOVER = re.compile(r"(?i)\b(?:see|follow|read|refer|located|lives? (?:in|at)|imports?|loads?|canonical|source of truth|"
                       r"defined in|moved to|points? (?:to|at)|adapter|bridge)\b")

_CODE_EXT = r"(?:py|pyi|ts|tsx|js|jsx|mjs|cjs|go|rs|java|kt|kts|rb|php|cs|cpp|cc|c|h|hpp|swift|vue|svelte|sql|toml|sh|gradle|scala|dart|ex|exs|lua|zig)"
_IDENTIFIERS = (
    re.compile(r"(?<![\w/.-])(?:[\w.-]+/)+[\w.-]+\.\w{1,6}\b"),  # paths with a directory: src/app/main.py
    re.compile(r"(?<![\w/.-])[\w-]+\." + _CODE_EXT + r"\b"),  # file names: settings.py, App.tsx
    re.compile(r"\b(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?[\w:.-]+"),  # project scripts
    re.compile(r"\bmake\s+[a-z][\w-]*"),
    re.compile(r"(?<![\w/])\./[\w./-]+"),  # ./scripts/dev.sh
    re.compile(r"\b(?:python3?|uv run|poetry run)\s+(?:-m\s+)?[\w./-]+"),
    re.compile(r"\b(?:cargo|go|dotnet|mvn|gradle|./gradlew|mix|rake|bundle exec)\s+[\w:-]+"),
)


@dataclass(frozen=True)
class Tags:
    platform: str | None
    function: str
    authorship: str
    specificity: str


def _body(text: str) -> str:
    text = _FRONT.sub("", text, count=1)
    text = _COMMENT.sub("", text)
    return "\n".join(line for line in text.split("\n") if line.strip() and not line.lstrip().startswith("#"))


def is_pointer(text: str) -> bool:
    """A file that only hands over to another instruction file (e.g. a CLAUDE.md saying ``@AGENTS.md``)."""
    body = _body(text)
    if len(body) > 4 * POINTER_MAX_CHARS or not _DOC_REF.search(body):
        return False
    if not (_IMPORT_LINE.search(body) or _HANDOVER.search(body)):
        return False
    rest = _DOC_REF.sub(" ", body)
    return len(_WORDS.findall(rest)) <= POINTER_MAX_WORDS and len(rest) <= POINTER_MAX_CHARS


def function_of(path: str, platform: str | None, text: str) -> str:
    if re.search(r"(?:^|/)\.aider\.conf\.ya?ml$", path, re.I):
        return "tool_config"
    if is_pointer(text):
        return "pointer"
    if platform and platform in BY_NAME:
        return BY_NAME[platform].function
    return "rules"


def is_tool_generated(text: str) -> bool:
    head = text[:800]
    return bool(_INIT_HEADER.search(head) or _GENERATED.search(head[:400]))


def authorship_of(text: str, cluster_repos: int | None = None, template_min_repos: int = TEMPLATE_MIN_REPOS) -> str:
    if is_tool_generated(text):
        return "tool_generated"
    if cluster_repos is not None and cluster_repos >= template_min_repos:
        return "template_copy"
    return "human"


def project_identifiers(text: str, enough: int | None = None) -> set[str]:
    """Distinct project identifiers in the text (paths, code file names, project commands); stops at ``enough``."""
    found: set[str] = set()
    for pat in _IDENTIFIERS:
        for m in pat.finditer(text):
            found.add(m.group(0).lower())
            if enough is not None and len(found) >= enough:
                return found
    return found


def _names_repo(text: str, repo: str) -> bool:
    name = repo.rsplit("/", 1)[-1]
    if len(name) < 4 or name.lower() in {"docs", "test", "demo", "app", "web", "site", "blog", "main", "core", "config"}:
        return False
    variants = {name, name.replace("-", " "), name.replace("_", " "), name.replace("-", "_"), name.replace("_", "-")}
    low = text.lower()
    return any(v.lower() in low for v in variants)


def specificity_of(text: str, repo: str | None) -> str:
    if repo and _names_repo(text, repo):
        return "project_specific"
    return "project_specific" if len(project_identifiers(text[:SPECIFICITY_SCAN], enough=2)) >= 2 else "generic"


def tag(repo: str | None, path: str, text: str, cluster_repos: int | None = None,
        template_min_repos: int = TEMPLATE_MIN_REPOS) -> Tags:
    platform = platform_of(path)
    return Tags(platform, function_of(path, platform, text), authorship_of(text, cluster_repos, template_min_repos),
                specificity_of(text, repo))
