"""A paragraph split into statements: plain-text rule files put one rule per line without list markers, so a
paragraph is cut at hard line breaks (not soft wraps), and a numbered line inside it is a list item.
"""

from __future__ import annotations

import re
import unicodedata

from aac.core.segment.items import ItemBuilder
from aac.core.segment.tags import TAG_ONLY, wrapper_line

_END_OF_STATEMENT = re.compile(r"(?:[.!?:;。！？：；]|[.!?]\*\*|\*\*:?)\s*$")
# A sentence end inside closing marks: "(see the docs.)", 'then say "done."'. A ")" or a quote also ends
# wrapped text ("(uses `x`" / "and `y`)"), so these only end a statement when the next line starts a sentence.
_CLOSED_SENTENCE_END = re.compile(r"[.!?。！？][)\]\"'`’”*_]+\s*$")
_OPENING_MARKS = "*_`\"'“‘(["
LIST_MARKER = re.compile(r"^(?:[-*+]|\d{1,9}[.)])[ \t]+(?=\S)")
_NUMBERED = re.compile(r"^\d{1,9}[.)][ \t]")
_LEAD_IN = re.compile(r"(?::|\*\*:?|__:?)\s*$")  # "Steps:", "**Phase 1**": what a list of steps follows


def list_item_after(prev: str, line: str, following: str = "") -> bool:
    """Whether ``line`` (inside a paragraph) is a list item: a bullet marker, or a number that follows a lead-in
    or another numbered line ("6. Read ..." after "**Phase 1**"), or that the next number follows ("11. Plan" /
    "12. Refactor"). A number that merely wraps to the start of a line ("... in December" / "2019. Since then
    ...") is text."""
    if LIST_MARKER.match(line) is None:
        return False
    number = _NUMBERED.match(line)
    if not number:
        return True
    prev = prev.strip()
    if _NUMBERED.match(prev) is not None or _LEAD_IN.search(prev) is not None:
        return True
    nxt = _NUMBERED.match(following.strip())
    return nxt is not None and int(nxt.group(0)[:-2]) == int(number.group(0)[:-2]) + 1
_STARTS_LABEL = re.compile(r"^(?:\*\*|__|@|--|->|→|•|>|[│├└┌]|\*\w[^*]*(?:\*:|:\*)|[A-Z][\w ./-]{0,30}:\s)")
_LAST_WORD = re.compile(  # a line ending in a function word continues on the next one
    r"\b(?:a|an|the|and|or|but|nor|of|to|in|on|for|with|at|by|from|as|is|are|be|that|which|who|if|when|than|"
    r"into|onto|via|per|not|no|your|our|its|their|this|these|those|all|any|each|every|using|use)\s*$",
    re.IGNORECASE,
)
_SHORT_LINE = 60  # display columns; a soft-wrapped line (72-120 columns) is longer unless it ends the paragraph


def _width(line: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line)


def _starts_sentence(line: str) -> bool:
    """The line's first letter, after opening marks, is a capital or of a script without case (CJK, Arabic...)."""
    first = line.lstrip(_OPENING_MARKS)[:1]
    return first.isalpha() and not first.islower()


def statement_lines(text: str) -> list[tuple[int, str]]:
    """Split a paragraph at hard line breaks only, keeping soft-wrapped lines together.

    Plain-text rule files put one statement per line without list markers ("use sql for the database" /
    "all tables have a uuid key"); Markdown would render them as one paragraph, but each line is its own
    rule, and its own item. A break is hard when the line ends a statement (. ! ? : ; or a Markdown hard
    break; ".)" or '."' before a line that starts a sentence), either line is a bare XML-style tag ("</rules>"),
    the next line opens a label ("**macOS:**", "@file", "Step 2:") or a list item ("6. Check" after a
    paragraph, which CommonMark keeps in it), or the line is too short to be a wrap. Returns (line offset
    within the paragraph, text) pairs.
    """
    lines = text.split("\n")
    out: list[tuple[int, str]] = []
    start = 0
    for k in range(len(lines) - 1):
        a, b = lines[k], lines[k + 1].lstrip()
        hard = (
            a.endswith(("  ", "\\"))
            or TAG_ONLY.match(a) is not None
            or TAG_ONLY.match(b) is not None
            or _END_OF_STATEMENT.search(a) is not None
            or (_CLOSED_SENTENCE_END.search(a) is not None and _starts_sentence(b))
            or _STARTS_LABEL.match(b) is not None
            or list_item_after(a, b, lines[k + 2] if k + 2 < len(lines) else "")
            or (
                _width(a.strip()) < _SHORT_LINE
                and not a.rstrip().endswith((",", "(", "-", "/", "—", "–", "、", "，", "&", "+", "="))
                and _LAST_WORD.search(a) is None
            )
        )
        if hard:
            out.append((start, "\n".join(lines[start : k + 1])))
            start = k + 1
    out.append((start, "\n".join(lines[start:])))
    return out


def paragraph_items(tok, content: str, kind: str, section: tuple[str, ...], line_offset: int,
               quoted_lines: list[str] | None, out: ItemBuilder, wrappers: frozenset[str] = frozenset()) -> None:
    """One item per statement of a paragraph (see statement_lines); a quoted paragraph's items keep their
    ``>`` markers, taken from the source lines once the text without them has been split."""
    line = tok.map[0] + 1 + line_offset if tok.map else None
    prev = ""
    parts = statement_lines(content)
    for k, (offset, part) in enumerate(parts):
        if wrapper_line(part, wrappers):  # "<rules>" / "</tool_calling>" wrap items, they are none
            continue
        following = parts[k + 1][1] if k + 1 < len(parts) else ""
        marker = LIST_MARKER.match(part) if offset and list_item_after(prev, part, following) else None
        prev = part.split("\n")[-1]
        if marker:  # "6. Read the files" cannot start a list inside a paragraph, but is a list item
            out.add(part[marker.end() :], "bullet", section, None if line is None else line + offset)
            continue
        if quoted_lines is not None:
            # Keep the quote markers: an agent reads "> Note: ..." as written, and the item then stays a
            # verbatim (whitespace-normalised) substring of the file, which compaction relies on.
            first = tok.map[0] + offset
            part = "\n".join(ln.strip() for ln in quoted_lines[first : first + part.count("\n") + 1])
        out.add(part, kind, section, None if line is None else line + offset)
