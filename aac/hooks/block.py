"""One block of the project's constraints, verbatim, grouped by file, within a character budget.

Order under the budget: rules that apply everywhere first (root files, in file order), then path-scoped rules for
the files the session touched (``.mdc`` globs, ``applyTo``, ``paths:``, nested instruction files); path-scoped
rules for files not touched are not in play. A rule is never cut or reworded: it is in whole or left out, and the
block says how many were left out and the ``aac retrieve`` command that lists them. Duplicates (same text modulo
whitespace) are given once, at their first place.
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass, field

from aac.hooks.project import Rule

DEFAULT_MAX_CHARS = 9000
HEADER = ("The project's rules, verbatim from its instruction files, each with file:line and the heading that governs "
          "it (re-injected by `aac hook` because the conversation was compacted). They still apply.")


def size(text: str) -> int:
    """Characters ``text`` takes inside the JSON answer (escapes counted): budgets are measured this way, so the
    answer as a whole stays within what the agents inline."""
    return len(json.dumps(text, ensure_ascii=False)) - 2


@dataclass
class Block:
    text: str
    shown: list[Rule] = field(default_factory=list)
    left_out: list[Rule] = field(default_factory=list)
    not_in_play: int = 0  # path-scoped rules whose paths the session did not touch
    duplicates: int = 0


def applies_to(rule: Rule, path: str) -> bool:
    """Whether a path-scoped rule covers a project-relative path (glob semantics of aac.operators.model, compiled
    in the cache; a nested file's rules cover its folder's subtree)."""
    if rule.globs:
        name = path.rsplit("/", 1)[-1]
        for _, alts in rule.globs:
            for rx, full in alts:
                if re.fullmatch(rx, path if full else name):
                    return True
        return False
    return bool(rule.base) and (path == rule.base or path.startswith(rule.base + "/"))


def is_path_scoped(rule: Rule) -> bool:
    return bool(rule.globs) or bool(rule.base)


def select(rules: list[Rule], touched: list[str]) -> tuple[list[Rule], int, int]:
    """(rules in priority order, path-scoped rules not in play, duplicates dropped)."""
    seen: set[str] = set()
    first, second, idle, dup = [], [], 0, 0
    for r in rules:
        key = " ".join(r.text.split())
        if key in seen:
            dup += 1
            continue
        if not is_path_scoped(r):
            first.append(r)
        elif any(applies_to(r, t) for t in touched):
            second.append(r)
        else:
            idle += 1
            continue
        seen.add(key)
    return first + second, idle, dup


def render(rules: list[Rule], touched: list[str], max_chars: int = DEFAULT_MAX_CHARS,
           header: str = HEADER) -> Block:
    """The block for ``rules`` (from ``project.rules_of``), at most ``max_chars`` characters."""
    ordered, idle, dup = select(rules, touched)
    if not ordered:
        return Block("", [], [], idle, dup)
    notes: dict[str, str] = {}
    chosen = _greedy(ordered, touched, header, max_chars, 0, notes)
    if len(chosen) < len(ordered):  # something is left out: make room for the line that says so, then refill
        reserve = size(_footer(ordered, touched, max_chars)) + 4
        chosen = _greedy(ordered, touched, header, max_chars, reserve, notes)
        left = _rest(ordered, chosen)
        chosen = _greedy(ordered, touched, header, max_chars, size(_footer(left, touched, max_chars)) + 4, notes)
    left = _rest(ordered, chosen)
    text = _text(chosen, left, touched, header, max_chars, notes)
    while size(text) > max_chars and chosen:  # the footer came out longer than reserved: give back a rule
        chosen.pop()
        left = _rest(ordered, chosen)
        text = _text(chosen, left, touched, header, max_chars, notes)
    if size(text) > max_chars:  # a budget too small for any rule: say so alone, or say nothing
        text = _footer(left, touched, max_chars)
        if size(text) > max_chars:
            text = _short_footer(left, max_chars)
        if size(text) > max_chars:
            text = ""
    return Block(text, chosen, left, idle, dup)


def _short_footer(left: list[Rule], max_chars: int) -> str:
    n = len(left)
    return f"[{n} project rule{'s' if n != 1 else ''} left out: {max_chars:,} characters hold none; raise --max-chars]"


def _rest(ordered: list[Rule], chosen: list[Rule]) -> list[Rule]:
    ids = {id(r) for r in chosen}
    return [r for r in ordered if id(r) not in ids]


def _greedy(ordered: list[Rule], touched: list[str], header: str, max_chars: int, reserve: int,
            notes: dict[str, str]) -> list[Rule]:
    """Rules in priority order, each taken whole if its lines still fit (``ordered`` is grouped by file already:
    a file's rules are all path-scoped or none)."""
    total, chosen = size(header), []
    last_file, last_context = None, None
    for r in ordered:
        cost = size(_line(r)) + 2
        context = last_context
        if r.file != last_file:
            cost += size(_group_header(r, touched, notes)) + 4
            context = None
        if r.context and r.context != context:
            cost += size(r.context) + 4
        if total + cost + reserve <= max_chars:
            chosen.append(r)
            total += cost
            last_file, last_context = r.file, r.context
    return chosen


def _line(r: Rule) -> str:
    return f"- {r.file}:{r.line}: {r.text}"


def _group_header(r: Rule, touched: list[str], notes: dict[str, str]) -> str:
    if r.file not in notes:
        notes[r.file] = f"## {r.file}{_scope_note(r, touched)}"
    return notes[r.file]


def _text(chosen: list[Rule], left: list[Rule], touched: list[str], header: str, max_chars: int,
          notes: dict[str, str]) -> str:
    parts = [header]
    last_file, context = None, None
    for r in chosen:
        if r.file != last_file:
            parts += ["", _group_header(r, touched, notes)]
            last_file, context = r.file, None
        if r.context and r.context != context:
            parts.append(f"[{r.context}]")
        context = r.context
        parts.append(_line(r))
    if left:
        parts += ["", _footer(left, touched, max_chars)]
    return "\n".join(parts)


def _scope_note(rule: Rule, touched: list[str]) -> str:
    if not is_path_scoped(rule):
        return ""
    hits = [t for t in touched if applies_to(rule, t)][:3]
    what = ", ".join(g for g, _ in rule.globs) if rule.globs else f"{rule.base}/"
    return f" (applies to {what}; touched: {', '.join(hits)})"


def _footer(left: list[Rule], touched: list[str], max_chars: int) -> str:
    files = list(dict.fromkeys(r.file for r in left))
    args = " ".join(f"--file {shlex.quote(f)}" for f in files)
    paths = [t for t in touched if any(is_path_scoped(r) and applies_to(r, t) for r in left)][:5]
    args += "".join(f" --path {shlex.quote(p)}" for p in paths)
    n = len(left)
    return (f"[{n} more rule{'s' if n != 1 else ''} left out to stay within {max_chars:,} characters; list them with: "
            f"aac retrieve {args} -k 1000 \"rules constraints never must\"]")
