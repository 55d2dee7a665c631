"""Line scans that find where markdown-it's blocks really end: the next safe place to parse a body again from, a
fence left open inside a tag block, the code that runs on past a blank line, a code tag's closing line. They
bound re-parsing so that hostile files stay linear.
"""

from __future__ import annotations

import re

from markdown_it import MarkdownIt

from aac.core.segment.parser import parse
from aac.core.segment.tags import CODE_TAG_LOOKAHEAD, CODE_TAGS, TAG_NAME, TAG_ONLY

_TOP_FENCE_LINE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
_RAW_BLOCK = re.compile(r"^ {0,3}<(script|pre|style|textarea)(?:\s|>|$)", re.I)


def next_block_start(lines: list[str], start: int) -> int:
    """The index after ``start`` of the first bare tag line at column 0 that starts a block (after a blank line or a
    closing fence, outside HTML blocks, comments and code or raw tags): markdown-it starts a new top-level block
    there whatever came before (link reference definitions are off), so the two parts parse as the whole does.
    An opening tag line right under a closing one that starts a block ("</example>" / "<example>") is cut too:
    the two are one HTML block to markdown-it, and _html_block skips a block's leading tag lines. A line scan
    that cuts too rarely rather than wrongly; ``len(lines)`` when there is no cut."""
    fence: str | None = None
    fence_indent = 0
    comment = False
    raw: re.Pattern | None = None
    closed_block = False  # the line before closes a tag and starts a block: "</example>" then "<example>"
    block_start = True  # the line starts a block: the first, or after a blank line or a closing fence
    in_html = False  # (perhaps) in an HTML block, where a fence line is no fence: a blank line ends it
    for k in range(start, len(lines)):
        ln = lines[k]
        bare_tag = ln.startswith("<") and TAG_ONLY.match(ln) is not None
        after_close, closed_block = closed_block, False
        starts, block_start = block_start, not ln.strip()
        in_html = bool(ln.strip()) and (in_html or starts and ln.lstrip().startswith("<"))
        if comment:
            comment = "-->" not in ln
            continue
        if raw is not None:
            raw = None if raw.match(ln) else raw
            continue
        m = _TOP_FENCE_LINE.match(ln)  # indented 4+, a fence line is code, or in a list item a col-0 line ends
        if fence is not None:
            if ln.strip() and len(ln) - len(ln.lstrip()) < fence_indent:
                return len(lines)  # the end of a list item the fence is in, or its closing line: unknown
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and not m.group(2).strip():
                fence, block_start = None, not in_html
            continue
        if m and not (m.group(1)[0] == "`" and "`" in m.group(2)):
            fence, fence_indent = m.group(1), len(ln) - len(ln.lstrip())
            continue
        if k > start and bare_tag and (starts or after_close and not ln.startswith("</")):
            return k
        closed_block = bare_tag and ln.startswith("</") and (starts or after_close)
        comment = ln.rfind("<!--") > ln.rfind("-->")
        opened = _RAW_BLOCK.match(ln) or (TAG_ONLY.match(ln) and TAG_NAME.match(ln))
        name = opened.group(1).lower() if opened else ""
        if name in CODE_TAGS and not ln.lstrip().startswith("</") and not re.search(rf"</{name}\s*>", ln, re.I):
            raw = re.compile(rf"^\s*</{re.escape(name)}\s*>\s*$", re.I)
    return len(lines)


def code_run_on(tokens, i: int, content: list[str], src_lines: list[str], name: str, md: MarkdownIt,
                 may_reread: bool) -> tuple[list[str], int, int | None] | None:
    """The rest of the code that a top-level tag block ends in, when a blank line cut it from the block.

    An open fence runs to its closing fence if that comes before the closing line of the tag it sits in
    (indented or not: the tag bounds the search, and authors indent fences inside tags freely); the tokens
    after the block are then misread (the closing fence opened a new one), hence the parse again. An indented
    block continues in the top-level indented block right after the blank lines, a whole token to take over.
    Returns (code lines after the block, next token to read, line to parse again from or None), or None."""
    if tokens[i].level != 0 or not tokens[i].map:
        return None
    after = tokens[i].map[1]
    fence = open_fence(content)
    if fence is not None and may_reread:
        marker, tag = fence
        closer = re.compile(rf"^\s*{re.escape(marker[0])}{{{len(marker)},}}[ \t]*$")
        end_tag = re.compile(rf"^\s*</{re.escape(tag or name)}\s*>\s*$", re.I)
        for k in range(after, min(len(src_lines), after + CODE_TAG_LOOKAHEAD)):
            if end_tag.match(src_lines[k]):
                return None
            if closer.match(src_lines[k]):
                return src_lines[after:k] + [src_lines[k].strip()], len(tokens), k + 1
        return None
    nxt = tokens[i + 1] if i + 1 < len(tokens) else None
    if nxt is None or nxt.type != "code_block" or nxt.level != 0:
        return None
    if any(ln.strip() for ln in src_lines[after : nxt.map[0]]):
        return None
    last = next((t for t in reversed(parse(md, "\n".join(content))) if t.level == 0), None)
    if last is not None and last.type == "code_block" and last.map and last.map[1] >= len(content):
        return src_lines[after : nxt.map[1]], i + 2, None
    return None


_FENCE_LINE = re.compile(r"^\s*(`{3,}|~{3,})(.*)$")


def open_fence(lines: list[str]) -> tuple[str, str | None] | None:
    """(marker, name of the last tag opened above it) of a fence the lines leave open, else None. A line scan,
    not a parse, so that a fence inside a nested tag block ("</a>" then "<b>" then the fence) is seen too."""
    fence: str | None = None
    tag = opened_at = None
    for ln in lines:
        m = _FENCE_LINE.match(ln)
        if fence is None:
            if m and not (m.group(1)[0] == "`" and "`" in m.group(2)):
                fence, opened_at = m.group(1), tag
            elif TAG_ONLY.match(ln) and not ln.lstrip().startswith("</"):
                tag = TAG_NAME.match(ln).group(1)
        elif m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and not m.group(2).strip():
            fence = None
    return None if fence is None else (fence, opened_at)


def closing_line(tokens, i: int, src_lines: list[str], close: re.Pattern) -> tuple[int, int] | None:
    """(line index of the closing tag, index of the first token after it) when the top-level blocks after
    ``tokens[i]`` end exactly there; None when the tag is never closed or a block runs past it."""
    if tokens[i].level != 0:
        return None
    begin = tokens[i].map[1]
    stop = min(len(src_lines), begin + CODE_TAG_LOOKAHEAD)
    close_line = next((k for k in range(begin, stop) if close.match(src_lines[k])), None)
    if close_line is None:
        return None
    j = i + 1
    while j < len(tokens) and (tokens[j].map is None or tokens[j].map[0] <= close_line):
        if tokens[j].map is not None and tokens[j].map[1] > close_line + 1:
            return None
        j += 1
    return close_line, j
