"""What a failed parse still gives, so no line of a file is lost: the lines markdown-it dropped past its nesting limit,
and the code an unclosed fence plausibly meant (the rest of the file is Markdown again). Pure functions of the tokens
and lines; ``markdown`` segments what they hand back.
"""

from __future__ import annotations

import re

from aac.core.segment.parser import MAX_RESEGMENT_DEPTH

_ATX_HEADING = re.compile(r"^ {0,3}#{1,6}(?:[ \t]|$)")


def unclosed_fence(tok, src_lines: list[str]) -> bool:
    """True when the fence ran to the end of its container because no closing marker came."""
    if not tok.map or tok.map[1] - tok.map[0] < 2:
        return tok.map is not None
    last = src_lines[tok.map[1] - 1]
    marker = tok.markup[0] * len(tok.markup)
    closing = last.lstrip(" \t>").rstrip()
    return not (closing.startswith(marker) and not closing.strip(tok.markup[0]))


def swallowed_code_end(lines: list[str], depth: int) -> int:
    """Where an unclosed fence's code plausibly ends (an index into its content ``lines``): at its first blank line
    or heading. A forgotten closing fence would otherwise make the rest of the file one code item; the lines before
    the first break are what the author meant as code. Past ``MAX_RESEGMENT_DEPTH`` the whole content is code."""
    cut = next((k for k, ln in enumerate(lines) if not ln.strip() or _ATX_HEADING.match(ln)), len(lines))
    if depth > MAX_RESEGMENT_DEPTH:
        cut = len(lines)
    return cut


_MARKER_ONLY = re.compile(r"^[\s>*+\-]*(?:\d+[.)])?[\s>*+\-]*$")
_LEAF_TYPES = frozenset({"paragraph_open", "fence", "code_block", "html_block", "heading_open", "hr", "table_open"})


def uncovered_lines(body: str, tokens, line_offset: int) -> list[tuple[int, str]]:
    """(source line, text) of every line of ``body`` that no leaf block of ``tokens`` covers and that holds more than
    list or quote markers, the markers stripped. Past ``maxNesting`` markdown-it silently skips the rest of the
    enclosing block: these are the lines it lost."""
    covered = bytearray(body.count("\n") + 1)
    for t in tokens:
        if t.type in _LEAF_TYPES and t.map:
            covered[t.map[0] : t.map[1]] = b"\x01" * (t.map[1] - t.map[0])
    lost = []
    for k, ln in enumerate(body.split("\n")):
        if not covered[k] and ln.strip() and not _MARKER_ONLY.match(ln):
            text = ln.strip().lstrip(">").strip()
            text = re.sub(r"^(?:[*+\-]|\d+[.)])\s+", "", text)
            if text:
                lost.append((k + 1 + line_offset, text))
    return lost
