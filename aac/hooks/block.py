"""One block of the project's constraints, verbatim, grouped by file, within a character budget.

In play: rules that apply everywhere (root files), and path-scoped rules for the files the session touched
(``.mdc`` globs, ``applyTo``, ``paths:``, nested instruction files); path-scoped rules for files not touched are not.
Under the budget the surest constraints are kept first: everywhere before path-scoped, then within each of these
tiers the rules the classifier typed C before those in the hard lane only by risk, abstention or governing context,
then higher constraint risk first (file order breaks ties). The block still lists the rules it keeps as the files
do: everywhere rules, then path-scoped ones, each grouped by file in file order with the heading that governs it.
A rule is never cut or reworded: it is in whole or left out, and the block says how many were left out and the
``aac retrieve`` command that lists them. Duplicates (same text modulo whitespace) are given once, at their first
place.
"""

from __future__ import annotations

import bisect
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


def priority(rule: Rule) -> tuple[bool, float]:
    """Within a tier, lower sorts first: the classifier's C decision, then higher constraint risk."""
    return (not rule.labelled, -rule.risk)


def _in_play(rules: list[Rule], touched: list[str]) -> tuple[list[Rule], list[Rule], int, int]:
    """(rules that apply everywhere, path-scoped rules for touched files, both in file order; path-scoped rules
    not in play; duplicates dropped)."""
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
    return first, second, idle, dup


def select(rules: list[Rule], touched: list[str]) -> tuple[list[Rule], int, int]:
    """(rules in priority order, path-scoped rules not in play, duplicates dropped)."""
    first, second, idle, dup = _in_play(rules, touched)
    return sorted(first, key=priority) + sorted(second, key=priority), idle, dup  # stable: file order breaks ties


def render(rules: list[Rule], touched: list[str], max_chars: int = DEFAULT_MAX_CHARS,
           header: str = HEADER) -> Block:
    """The block for ``rules`` (from ``project.rules_of``), at most ``max_chars`` characters."""
    first, second, idle, dup = _in_play(rules, touched)
    layout = first + second  # the order the block lists rules in
    ordered = sorted(first, key=priority) + sorted(second, key=priority)  # the order they are kept in
    if not ordered:
        return Block("", [], [], idle, dup)
    notes: dict[str, str] = {}
    fit = lambda reserve: _greedy(ordered, layout, touched, header, max_chars, reserve, notes)  # noqa: E731
    chosen = fit(0)
    if len(chosen) < len(ordered):  # something is left out: make room for the line that says so, then refill
        chosen = fit(size(_footer(layout, touched, max_chars)) + 4)
        chosen = fit(size(_footer(_split(layout, chosen)[1], touched, max_chars)) + 4)
    shown, left = _split(layout, chosen)
    text = _text(shown, left, touched, header, max_chars, notes)
    while size(text) > max_chars and chosen:  # the footer came out longer than reserved: give back the least sure
        chosen.pop()
        shown, left = _split(layout, chosen)
        text = _text(shown, left, touched, header, max_chars, notes)
    if size(text) > max_chars:  # a budget too small for any rule: say so alone, or say nothing
        text = _footer(left, touched, max_chars)
        if size(text) > max_chars:
            text = _short_footer(left, max_chars)
        if size(text) > max_chars:
            text = ""
    return Block(text, shown, left, idle, dup)


def _short_footer(left: list[Rule], max_chars: int) -> str:
    n = len(left)
    return f"[{n} project rule{'s' if n != 1 else ''} left out: {max_chars:,} characters hold none; raise --max-chars]"


def _split(layout: list[Rule], chosen: list[Rule]) -> tuple[list[Rule], list[Rule]]:
    """(chosen rules, the others), both in layout order."""
    ids = {id(r) for r in chosen}
    return [r for r in layout if id(r) in ids], [r for r in layout if id(r) not in ids]


def _greedy(ordered: list[Rule], layout: list[Rule], touched: list[str], header: str, max_chars: int,
            reserve: int, notes: dict[str, str]) -> list[Rule]:
    """Rules in priority order, each taken whole if the block, listing what is taken in layout order, still fits:
    its size is kept exact as rules are added out of layout order (see ``_Groups``). Returns them in priority
    order."""
    groups = _Groups(layout, touched, notes)
    total, chosen = size(header), []
    for r in ordered:
        cost = groups.cost_of_adding(r)
        if total + cost + reserve <= max_chars:
            groups.add(r)
            chosen.append(r)
            total += cost
    return chosen


class _Groups:
    """The size of the block's body for the rules taken so far. The block lists them in layout order, one group
    per run of a file's rules: a blank line and the "## file" header, then per rule a "[context]" line when its
    context differs from the rule above and the "- file:line: text" line (a line break counts 2, as JSON escapes
    it). A rule taken out of layout order lands between two taken ones, which may change whether the next one
    still needs its context line: the cost of adding it counts that."""

    def __init__(self, layout: list[Rule], touched: list[str], notes: dict[str, str]) -> None:
        self.layout, self.touched, self.notes = layout, touched, notes
        self.pos: dict[int, int] = {}
        self.group: dict[int, int] = {}  # rule -> position of the first rule of its run of one file in the layout
        start = 0
        for n, r in enumerate(layout):
            if n and layout[n - 1].file != r.file:
                start = n
            self.pos[id(r)], self.group[id(r)] = n, start
        self.taken: dict[int, list[int]] = {}  # group -> layout positions taken, sorted
        self._sizes: dict[str, int] = {}

    def cost_of_adding(self, r: Rule) -> int:
        taken = self.taken.get(self.group[id(r)])
        if not taken:
            return self._size(_group_header(r, self.touched, self.notes)) + 4 + self._context(r, None) + self._line(r)
        at = bisect.bisect(taken, self.pos[id(r)])
        before = self.layout[taken[at - 1]] if at else None
        after = self.layout[taken[at]] if at < len(taken) else None
        cost = self._context(r, before) + self._line(r)
        if after is not None:
            cost += self._context(after, r) - self._context(after, before)
        return cost

    def add(self, r: Rule) -> None:
        bisect.insort(self.taken.setdefault(self.group[id(r)], []), self.pos[id(r)])

    def _context(self, r: Rule, above: Rule | None) -> int:
        if r.context and r.context != (above.context if above is not None else None):
            return self._size(r.context) + 4
        return 0

    def _line(self, r: Rule) -> int:
        return self._size(_line(r)) + 2

    def _size(self, text: str) -> int:
        if text not in self._sizes:
            self._sizes[text] = size(text)
        return self._sizes[text]


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
