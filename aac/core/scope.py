"""Where an item applies: everywhere ("*"), to files matching a glob, or to its own topic.

Scope decides what a compaction or retrieval may leave out: an item scoped "*" must survive whatever the
task's topic, a glob-scoped item matters when such files are in play, and a topic-scoped item only when its
topic does. Global scope comes from constraint-bearing section titles (Rules, Safety, Do's and Don'ts ...,
in several languages) and from ``alwaysApply: true`` front matter; file scope from Cursor ``globs`` /
Copilot ``applyTo`` / Windsurf ``trigger: glob``, and it outranks section titles (the file only loads for
those files).
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache
from typing import Iterable, Mapping, Sequence

import regex as re

from aac.core.ids import stable_id

GLOBAL = "*"
ROOT_TOPIC = "(root)"

# "Critical files", "Important links": a list of things, not a list of rules.
_NOT_A_LIST_OF_THINGS = (r"(?!\s+(?:files?|paths?|links?|references?|resources?|documents?|docs|concepts?|context|"
                         r"commands?|workflows?|components?|modules?|dependencies|directories|folders|urls))")

# Latin-script keywords, matched as whole words on lower-cased, accent-stripped titles.
_LATIN_GLOBAL = [
    # en
    r"rules?", r"constraints?", r"safety", r"security", r"guard ?rails?", r"conventions?",
    r"critical" + _NOT_A_LIST_OF_THINGS, r"important" + _NOT_A_LIST_OF_THINGS, r"boundar(?:y|ies)", r"mandatory",
    r"non[- ]negotiable", r"restrictions?", r"prohibit(?:ed|ions?)",
    r"forbidden", r"polic(?:y|ies)", r"must(?: not)?", r"never", r"red lines?", r"dos? (?:and|&|/) donts?",
    r"do ?& ?dont", r"do[- ]not", r"hard limits?", r"ground rules", r"invariants?", r"avoid", r"pitfalls?",
    r"anti[- ]?patterns?", r"mistakes", r"red flags?", r"not to do", r"required", r"standards", r"secrets",
    # de
    r"regeln?", r"einschrankungen", r"beschrankungen", r"sicherheit", r"richtlinien", r"konventionen",
    r"projektkonventionen", r"wichtig(?:e|es)?", r"kritisch(?:e|es)?", r"grenzen", r"verbote?n?", r"pflicht\w*",
    r"vorgaben",
    # fr
    r"regles?", r"contraintes?", r"securite", r"conventions? du projet", r"critiques?", r"limites",
    r"interdictions?", r"interdit", r"obligatoires?", r"garde[- ]fous", r"consignes",
    # es / pt / it
    r"reglas?", r"restricciones", r"seguridad", r"convenciones", r"importantes?", r"criticos?", r"criticas?",
    r"limites", r"prohibiciones", r"prohibido", r"obligatorio", r"normas", r"regras?", r"restricoes",
    r"seguranca", r"convencoes", r"proibicoes", r"proibido", r"obrigatorio", r"regole", r"regola", r"vincoli",
    r"sicurezza", r"convenzioni", r"critico", r"limiti", r"divieti", r"vietato", r"obbligatori[oe]", r"norme",
    # ru (Cyrillic is kept as is; accent stripping does not touch it)
    r"правил[оа]?", r"ограничени[яе]", r"безопасност[ьи]", r"важно", r"важное", r"критично", r"критически",
    r"запреты?", r"запрещено", r"соглашения", r"обязательно", r"обязательные", r"границы",
]
_LATIN_RE = re.compile(r"(?<![\p{L}\p{N}])(?:" + "|".join(_LATIN_GLOBAL) + r")(?![\p{L}\p{N}])")

# CJK keywords: no word boundaries in these scripts, so substring match.
_CJK_GLOBAL = (
    # zh
    "规则", "規則", "规范", "約束", "约束", "限制", "安全", "禁止", "重要", "关键", "注意事项", "必须", "红线",
    "约定", "守则", "准则", "不要", "禁忌", "底线",
    # ja
    "ルール", "制約", "セキュリティ", "必須", "注意", "規約", "禁則", "厳守",
    # ko
    "규칙", "제약", "보안", "안전", "금지", "중요", "필수",
)

_ALWAYS_GLOBS = frozenset({"*", "**", "**/*", "**/*.*", "./**/*", "/**/*"})


def _fold(title: str) -> str:
    """Lower-case and strip accents so "Règles", "REGLES" and "regles" compare equal; apostrophes vanish."""
    text = unicodedata.normalize("NFKD", title.lower())
    text = "".join(c for c in text if not unicodedata.combining(c))
    return text.replace("'", "").replace("\u2019", "").replace("`", "")


@lru_cache(maxsize=1 << 16)  # headings recur across items and files; pure in the title
def is_global_section(title: str) -> bool:
    """True for a constraint-bearing section title (Rules, Safety, Do's and Don'ts, Regeln, 规则, ルール ...)."""
    if not title:
        return False
    folded = _fold(title)
    if _LATIN_RE.search(folded):
        return True
    return any(k in title for k in _CJK_GLOBAL)


_SLUG_DROP = re.compile(r"[^\p{L}\p{N}]+")


@lru_cache(maxsize=1 << 16)
def slug(title: str) -> str:
    """A stable path-safe id for one heading; headings with no letters or digits get a hash."""
    s = _SLUG_DROP.sub("-", unicodedata.normalize("NFKC", title).lower()).strip("-")
    return s[:60].rstrip("-") if s else "h-" + stable_id(title, length=6)


def topic_of(section_path: Sequence[str]) -> str:
    """The leaf topic id: slugged headings joined by "/" ("(root)" for items above every heading)."""
    if not section_path:
        return ROOT_TOPIC
    return "/".join(slug(t) for t in section_path)


def _has_global_heading(section_path: Sequence[str]) -> bool:
    # The file's title (first element) names the whole file ("Project Rules", "Cursor rules for X"); it only
    # makes items global when they sit directly under it, otherwise every item of such files would be global.
    if len(section_path) == 1:
        return is_global_section(section_path[0])
    return any(is_global_section(t) for t in section_path[1:])


def _globs(front_matter: Mapping) -> list[str]:
    raw = front_matter.get("globs")
    if raw is None:
        raw = front_matter.get("applyTo")
    if raw is None:
        return []
    values = raw if isinstance(raw, (list, tuple)) else [raw]
    out: list[str] = []
    for v in values:  # a glob is a string: nested lists or mappings (hostile YAML, alias bombs) are not expanded
        if isinstance(v, (str, int, float)) and not isinstance(v, bool):
            out.extend(p.strip().strip("\"'") for p in str(v).split(","))
    return [p for p in out if p]


def _is_true(value) -> bool:
    return value is True or (isinstance(value, str) and value.strip().lower() == "true")


def scope_of(section_path: Sequence[str], path: str, front_matter: Mapping | None) -> tuple[str, ...]:
    """``("*",)`` | ``("glob:<pattern>", ...)`` | ``(topic_of(section_path),)`` — see the module docstring.

    Front matter speaks first: a file Cursor loads only for matching files cannot hold rules that apply
    everywhere, whatever its section titles ("## Naming Conventions" in a ``*.component.ts`` rule file).
    """
    if front_matter:
        trigger = front_matter.get("trigger")
        if _is_true(front_matter.get("alwaysApply")) or (isinstance(trigger, str) and trigger.strip() == "always_on"):
            return (GLOBAL,)
        globs = _globs(front_matter)
        if globs:
            if any(g in _ALWAYS_GLOBS for g in globs):
                return (GLOBAL,)
            return tuple(dict.fromkeys(f"glob:{g}" for g in globs))
    if _has_global_heading(section_path):
        return (GLOBAL,)
    return (topic_of(section_path),)


def topic_tree(section_paths: Iterable[Sequence[str]]) -> dict:
    """Nested topics with item counts: {"id", "title", "n_items", "children": {title: node}} from the root."""
    root = {"id": ROOT_TOPIC, "title": "", "n_items": 0, "children": {}}
    for section_path in section_paths:
        node = root
        for depth, title in enumerate(section_path):
            child = node["children"].get(title)
            if child is None:
                child = {"id": topic_of(section_path[: depth + 1]), "title": title, "n_items": 0, "children": {}}
                node["children"][title] = child
            node = child
        node["n_items"] += 1
    return root
