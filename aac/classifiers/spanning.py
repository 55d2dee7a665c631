"""The part of a cue pattern that can match across the space of a word pair ("must not", "ask the user").

The featurisers test every word and every adjacent word pair "prev w" against the cue families, and add the
families of both words on their own anyway. So a pair can add a family only through a match that contains the
space between its words: a match inside one word is also a match of that word alone (``\\b`` sees a space and a
string end alike, ``^``/``$`` can only fail where the word alone succeeds). Testing the pair against just the
branches that can match a space gives the same features at a fraction of the cost, as most branches are single
words and a corpus brings new pairs all the time.

:func:`spanning_pattern` splits a pattern into its alternation branches with a small parser of the regex syntax the
cue lexicons use (both the ``regex`` module, V0 or V1, and the standard library) and keeps the branches that hold
an atom matching a space or a lookaround (which may decide otherwise beside the space), descending into a group when it is the only such part of its branch
(``\\b(?:never|must\\s+not)\\b`` -> ``\\b(?:must\\s+not)\\b``). The result only ever keeps text of the pattern, so
every match of it is a match of the pattern; a construct the parser does not handle raises instead of guessing.
"""

from __future__ import annotations

import re as stdre
from dataclasses import dataclass
from typing import Sequence

import regex

_QUANT = stdre.compile(r"(?:[*+?]|\{\d*,?\d*\})[?+]?")
_BRACE_QUANT = stdre.compile(r"\{(?:\d+|\d*,\d*)\}")
_ZERO_WIDTH = frozenset("bBAZzGmMK")  # escapes that consume nothing: \b, \B, \A, \Z, ...
_LOOK_PREFIXES = ("(?=", "(?!", "(?<=", "(?<!")
_OPTIONAL = frozenset({"", "?", "??"})  # quantifiers a group may drop when a spanning match needs it once


@dataclass
class _Node:
    """One item of a branch: a single-character atom, a zero-width assertion, or a group (``branches`` set)."""

    text: str  # the item as written, its quantifier included
    quant: str = ""
    opener: str = ""  # groups: "(", "(?:", "(?i:", "(?=", ...
    branches: list[list["_Node"]] | None = None
    spaceable: bool = False  # whether some atom of it can match a space
    zero_width: bool = False


class _Parser:
    def __init__(self, pattern: str, compile_atom) -> None:
        self.p = pattern
        self.i = 0
        self.compile_atom = compile_atom
        self.v1 = compile_atom.v1

    def parse(self) -> list[list[_Node]]:
        branches = self._alternation()
        if self.i != len(self.p):
            raise ValueError(f"unbalanced ')' at {self.i} in {self.p!r}")
        return branches

    def _alternation(self) -> list[list[_Node]]:
        branches: list[list[_Node]] = [[]]
        while self.i < len(self.p):
            c = self.p[self.i]
            if c == ")":
                break
            if c == "|":
                self.i += 1
                branches.append([])
                continue
            branches[-1].append(self._item())
        return branches

    def _item(self) -> _Node:
        start = self.i
        c = self.p[self.i]
        if c == "(":
            node = self._group()
        elif c == "[":
            end = self._class_end(self.i)
            node = _Node(self.p[self.i:end])
            node.spaceable = self.compile_atom.matches_space(node.text)
            self.i = end
        elif c == "\\":
            node = self._escape()
        elif c in "^$":
            node = _Node(c, zero_width=True)
            self.i += 1
        elif c in "*+?" or (c == "{" and _BRACE_QUANT.match(self.p, self.i)):
            raise ValueError(f"quantifier without an item at {self.i} in {self.p!r}")
        else:
            node = _Node(c, spaceable=self.compile_atom.matches_space(c))
            self.i += 1
        m = _QUANT.match(self.p, self.i)
        if m and (m.group()[0] != "{" or _BRACE_QUANT.match(self.p, self.i)):
            node.quant = m.group()
            self.i = m.end()
        node.text = self.p[start:self.i]
        return node

    def _escape(self) -> _Node:
        p, i = self.p, self.i
        if i + 1 >= len(p):
            raise ValueError(f"trailing backslash in {p!r}")
        c = p[i + 1]
        if c.isdigit() and c != "0" or c in "gkQE" or (c == "L" and p.startswith("<", i + 2)):
            raise ValueError(f"unsupported escape \\{c} in {p!r}")  # backreferences, named lists, quoting
        if c in _ZERO_WIDTH:
            self.i = i + 2
            return _Node(p[i:i + 2], zero_width=True)
        end = i + 2
        if c in "pPN" and p.startswith("{", end):
            end = p.index("}", end) + 1
        elif c in "pP":
            end += 1  # \pL
        elif c == "x":
            end = p.index("}", end) + 1 if p.startswith("{", end) else end + 2
        elif c == "u":
            end += 4
        elif c == "U":
            end += 8
        elif c == "0":
            while end < len(p) and end < i + 4 and p[end] in "01234567":
                end += 1
        self.i = end
        node = _Node(p[i:end])
        node.spaceable = self.compile_atom.matches_space(node.text)
        return node

    def _class_end(self, i: int) -> int:
        """Index just past the character class opening at ``i`` (V1 sets nest)."""
        p = self.p
        j = i + 1
        if p.startswith("^", j):
            j += 1
        if p.startswith("]", j):
            j += 1  # a leading ']' is a literal
        depth = 1
        while j < len(p):
            c = p[j]
            if c == "\\":
                j += 2
                continue
            if c == "[" and self.v1:
                depth += 1
            elif c == "]":
                depth -= 1
                if depth == 0:
                    return j + 1
            j += 1
        raise ValueError(f"unterminated character class at {i} in {p!r}")

    def _group(self) -> _Node:
        p, i = self.p, self.i
        if p.startswith("(?#", i):
            raise ValueError(f"comment groups are not supported in {p!r}")
        if p.startswith(("(?:", "(?>") + _LOOK_PREFIXES, i):
            opener = p[i:i + (4 if p.startswith(("(?<=", "(?<!"), i) else 3)]
        elif p.startswith(("(?P<", "(?<"), i):
            opener = p[i:p.index(">", i) + 1]
        elif p.startswith("(?", i):
            m = stdre.compile(r"\(\?[a-zA-Z-]+([:)])").match(p, i)
            if not m or m.group(1) == ")":
                raise ValueError(f"unsupported group at {i} in {p!r} (inline flags must be scoped: (?i:...))")
            opener = m.group()
        else:
            opener = "("
        self.i = i + len(opener)
        branches = self._alternation()
        if not p.startswith(")", self.i):
            raise ValueError(f"unterminated group at {i} in {p!r}")
        self.i += 1
        node = _Node("", opener=opener, branches=branches)
        node.zero_width = opener in _LOOK_PREFIXES
        # a lookaround may decide differently next to the space than at a word's end ("(?<!^)"): its branch is kept
        node.spaceable = node.zero_width or any(n.spaceable for b in branches for n in b)
        return node


class _Atoms:
    """Tells whether one atom (a character, escape or class) can match a space, in the pattern's own engine/flags."""

    def __init__(self, engine, flags: int) -> None:
        self.engine, self.flags = engine, flags
        self.v1 = engine is regex and bool(flags & regex.V1)

    def matches_space(self, atom: str) -> bool:
        return self.engine.compile(atom, self.flags).fullmatch(" ") is not None


def _branch_text(branch: Sequence[_Node]) -> str:
    return "".join(n.text for n in branch)


def _spanning_branch(branch: list[_Node]) -> str | None:
    """The part of one branch that can match a space (None: none can). A branch whose only space-matching item
    is a plain group needed once keeps that group's spanning branches; any other keeps the whole branch."""
    hits = [k for k, n in enumerate(branch) if n.spaceable]
    if not hits:
        return None
    node = branch[hits[0]]
    if len(hits) == 1 and node.branches is not None and not node.zero_width and node.opener != "(?>" \
            and node.quant in _OPTIONAL:
        inner = _spanning_alternation(node.branches)
        opener = "(?:" if node.opener == "(" or node.opener.startswith(("(?P<", "(?<")) else node.opener
        k = hits[0]
        return _branch_text(branch[:k]) + opener + inner + ")" + _branch_text(branch[k + 1:])
    return _branch_text(branch)


def _spanning_alternation(branches: list[list[_Node]]) -> str:
    kept = [s for s in (_spanning_branch(b) for b in branches) if s is not None]
    return "|".join(kept)


def _check_round_trip(pattern: str, branches: list[list[_Node]]) -> None:
    def text(bs):
        return "|".join("".join(n.opener + text(n.branches) + ")" + n.quant if n.branches is not None else n.text
                                for n in b) for b in bs)
    if text(branches) != pattern:
        raise ValueError(f"the parser did not read {pattern!r} back as written")


def spanning_pattern(pattern: str, engine=regex, flags: int = 0) -> str | None:
    """The branches of ``pattern`` that can match a space (see the module doc), as one pattern; None when there are
    none. ``engine`` (``regex`` or the standard ``re``) and ``flags`` are the pattern's own."""
    atoms = _Atoms(engine, flags)
    branches = _Parser(pattern, atoms).parse()
    _check_round_trip(pattern, branches)
    out = _spanning_alternation(branches)
    return out or None


def spanning_families(families: Sequence[tuple[str, "regex.Pattern | stdre.Pattern"]]):
    """``(name, pattern)`` of the families that can match across a word pair's space, each reduced to its spanning
    branches, and one pattern any of them matches (one that never matches when no family can): what a word pair is
    tested against."""
    out = []
    for name, p in families:
        engine = stdre if isinstance(p, stdre.Pattern) else regex
        flags = p.flags
        sub = spanning_pattern(p.pattern, engine, flags)
        if sub is not None:
            out.append((name, engine.compile(sub, flags), engine, flags))
    if not out:
        return (), stdre.compile(r"(?!)")
    engines = {(e, f) for _, _, e, f in out}
    if len(engines) != 1:
        raise ValueError("the families mix engines or flags: one combined pattern cannot test them")
    engine, flags = engines.pop()
    combined = engine.compile("|".join(f"(?:{p.pattern})" for _, p, _, _ in out), flags)
    return tuple((name, p) for name, p, _, _ in out), combined
