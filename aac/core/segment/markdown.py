"""Markdown bodies (and Markdown-ish plain-text rule files) to items: the walk over markdown-it's block tokens, with
headings as sections, lists with their lead-ins, quotes, tables, code, and HTML/tag blocks segmented again inside.

The walk recurses (a tag block's content, the Markdown after an unclosed fence's code), so the recursive handlers
live here; the line scans that bound it (``block_scan``), statement splitting (``statements``), tag-line rules
(``tags``) and what a failed parse still gives (``recovery``) are modules of their own.
"""

from __future__ import annotations

import re
from dataclasses import replace

from markdown_it import MarkdownIt

from aac.core.lead_in import introduces_list
from aac.core.segment.block_scan import closing_line, code_run_on, next_block_start
from aac.core.segment.items import ItemBuilder, Segment
from aac.core.segment.parser import MAX_NESTING, MAX_RESEGMENT_DEPTH, MAX_REREADS, BodyParse, parse
from aac.core.segment.recovery import swallowed_code_end, unclosed_fence, uncovered_lines
from aac.core.segment.statements import paragraph_items
from aac.core.segment.tags import CODE_TAGS, HTML_COMMENT, TAG_NAME, TAG_ONLY, wrapper_line, wrapper_names


def segment_markdown(body: str, out: ItemBuilder, md: MarkdownIt | BodyParse, line_offset: int) -> bool:
    """Append the body's items; False when nesting past MAX_NESTING made markdown-it drop lines (recovered)."""
    how = md if isinstance(md, BodyParse) else BodyParse(md, wrappers=wrapper_names(body))
    tokens = parse(how.md, body)
    if tokens and max(t.level for t in tokens) >= MAX_NESTING - 2:
        _recover_lost_lines(body, tokens, out, line_offset, how)
        return False
    _segment_markdown_tokens(body, tokens, out, line_offset, how)
    return True


def _segment_markdown_tokens(body: str, tokens, out: ItemBuilder, line_offset: int, how: BodyParse) -> None:
    headings: list[tuple[int, str]] = list(how.headings)
    seen_heading = bool(headings)
    section: tuple[str, ...] = tuple(h[1] for h in headings)
    # Innermost-last stack of open containers; a list item's entry records whether its bullet text was seen.
    containers: list[list] = []
    quote_depth = 0
    src_lines = body.split("\n")
    row: list[str] | None = None
    row_line: int | None = None
    n = len(tokens)
    i = 0
    # Once the body is parsed again in parts (see the html_block case), src_lines is body_lines[part_at:part_end].
    body_lines, body_offset = src_lines, line_offset
    part_at, part_end = 0, len(body_lines)
    lists_base = len(out.lead_ins)  # lists opened here are closed here (or forgotten with their part's tokens)
    lead_para: tuple[int, int] | None = None  # (index of the last paragraph's close token, segments after it)
    while i < n or part_end < len(body_lines):
        if i >= n:  # the next part
            del out.lead_ins[lists_base:]
            lead_para = None
            part_at, part_end = part_end, next_block_start(body_lines, part_end)
            src_lines, line_offset = body_lines[part_at:part_end], body_offset + part_at
            if part_end == len(body_lines):
                how = replace(how, rereads=how.rereads + 1)
            tokens, i = _parse_part(src_lines, out, line_offset, replace(how, headings=tuple(headings))), 0
            n = len(tokens)
            continue
        tok = tokens[i]
        t = tok.type
        if t == "inline":
            i += 1
            continue
        if t == "heading_open" and _setext_sentence(tok, tokens[i + 1].content):
            # "Always write tests. Never commit secrets." over a "---" rule is a paragraph and a rule, not a title
            tok.type, tok.tag, tokens[i + 2].type, tokens[i + 2].tag = "paragraph_open", "p", "paragraph_close", "p"
            continue
        if t == "heading_open":
            level = int(tok.tag[1])
            title = _heading_text(tokens[i + 1].content)
            if not title or _RULER.match(title):
                i += 3  # "# =====" is decoration, not a section
                continue
            if not seen_heading:
                # The file's first heading is its title, whatever its depth: "## Project X" then "## Setup"
                # reads as Setup under Project X, so the title ranks as h1 and only another h1 replaces it.
                seen_heading, level = True, 1
            while headings and headings[-1][0] >= level:
                headings.pop()
            headings.append((level, title))
            section = tuple(h[1] for h in headings)
            i += 3
            continue
        if t == "paragraph_open":
            inline = tokens[i + 1]
            kind = "paragraph"
            if containers and containers[-1][0] == "list_item" and not containers[-1][1]:
                containers[-1][1] = True
                kind = "bullet"
            quoted = src_lines if quote_depth and tok.map else None
            before = len(out.segments)
            paragraph_items(tok, inline.content, kind, section, line_offset, quoted, out, how.wrappers)
            lead_para = (i + 2, len(out.segments)) if len(out.segments) > before else None
            i += 3
            continue
        if t in ("bullet_list_open", "ordered_list_open"):
            # a list right under a short introducing line ("**Don't:**", "Never:", "禁止事项") is governed by it
            lead = ""
            if lead_para == (i - 1, len(out.segments)) and introduces_list(out.segments[-1].text):
                lead = out.segments[-1].text
            out.lead_ins.append(lead)
        elif t in ("bullet_list_close", "ordered_list_close"):
            if len(out.lead_ins) > lists_base:
                out.lead_ins.pop()
        if t == "list_item_open":
            containers.append(["list_item", False])
        elif t == "blockquote_open":
            containers.append(["blockquote", False])
            quote_depth += 1
        elif t in ("list_item_close", "blockquote_close"):
            if containers:
                containers.pop()
            if t == "blockquote_close":
                quote_depth -= 1
        elif t == "fence" and unclosed_fence(tok, src_lines):
            out.warn("unclosed_fence")
            _swallowed_lines(tok, out, line_offset, replace(how, headings=tuple(headings), depth=how.depth + 1))
        elif t == "fence" or t == "code_block":
            line = tok.map[0] + 1 + line_offset if tok.map else None
            if t == "fence":
                line = line + 1 if line is not None else None  # the code starts under the opening fence
            out.add(tok.content.rstrip("\n"), "code", section, line)
        elif t == "tr_open":
            row, row_line = [], (tok.map[0] + 1 + line_offset if tok.map else None)
        elif t in ("th_open", "td_open"):
            if row is not None:
                row.append(tokens[i + 1].content.strip())
        elif t == "tr_close":
            if row is not None and any(row):
                out.add(" | ".join(row), "table_row", section, row_line)
            row = None
        elif t == "html_block":
            i, reread_from = _html_block(tokens, i, src_lines, out, tuple(headings), line_offset, how)
            if reread_from is not None:
                # A fence in a tag block ran past the block's end, so markdown-it misread the lines after it
                # (the closing fence as an opening one): parse the rest of the body again from there, up to
                # the next block start only, so that a file of many such blocks is not parsed once per block.
                part_at += reread_from
                part_end = next_block_start(body_lines, part_at)
                src_lines, line_offset = body_lines[part_at:part_end], body_offset + part_at
                if part_end == len(body_lines):  # a parse of the whole rest: those are the costly ones, and bounded
                    how = replace(how, rereads=how.rereads + 1)
                del out.lead_ins[lists_base:]
                tokens, i = _parse_part(src_lines, out, line_offset, replace(how, headings=tuple(headings))), 0
                n = len(tokens)
            continue
        i += 1
    del out.lead_ins[lists_base:]


def _parse_part(lines: list[str], out: ItemBuilder, line_offset: int, how: BodyParse) -> list:
    """The tokens of part of a body; none when nesting past MAX_NESTING lost lines (then recovered and said)."""
    tokens = parse(how.md, "\n".join(lines))
    if tokens and max(t.level for t in tokens) >= MAX_NESTING - 2:
        _recover_lost_lines("\n".join(lines), tokens, out, line_offset, how)
        out.warn("markdown_nesting_limit")
        return []
    return tokens


_SETEXT_SENTENCE_END = (".", "!", "?", ";", "。", "！", "？", "；")
_LIST_LIKE = re.compile(r"^(?:-|\*\s)")  # "-不允许写伪代码": a list item missing its space, not a title


def _setext_sentence(tok, content: str) -> bool:
    """A setext heading (text underlined by ``===``/``---``) that reads as instructions: several lines, a
    sentence, or a list-like line. Authors of rule files put ``---`` under a rule as a separator far more often
    than they mean a title."""
    if tok.markup not in ("=", "-"):
        return False
    text = content.strip()
    return "\n" in text or text.endswith(_SETEXT_SENTENCE_END) or len(text) > 100 or bool(_LIST_LIKE.match(text))


_RULER = re.compile(r"^[=\-_*#~+.:| ]+$")  # ASCII rulers such as "=====" or "- - -"


def _heading_text(content: str) -> str:
    """A heading's text on one line; ruler lines of a setext heading ("====" above the title) are dropped."""
    lines = [ln.strip() for ln in content.split("\n") if ln.strip()]
    if len(lines) > 1:
        lines = [ln for ln in lines if not _RULER.match(ln)] or lines
    return " ".join(lines)


def _html_block(tokens, i: int, src_lines: list[str], out: ItemBuilder, headings: tuple[tuple[int, str], ...],
                line_offset: int, how: BodyParse) -> tuple[int, int | None]:
    """Add the items of the HTML block at ``tokens[i]``; returns the index of the next token to read and, when
    the block's code ran on past the tokens' idea of it, the source line from which to parse again instead.

    HTML comments are skipped (text after one on its line is kept). A block opened by a bare tag line
    ("<communication>" ... "</communication>") is a wrapper agents read as a labelled section: its lines are
    segmented again as Markdown (code tags give one code item) and the tag lines themselves are no items. Any
    other HTML block keeps its non-tag lines as a paragraph.
    """
    tok = tokens[i]
    content, comments = HTML_COMMENT.subn(lambda m: "\n" * m.group(0).count("\n"), tok.content)
    out.comments_dropped += comments
    if not content.strip():
        return i + 1, None
    lines = content.rstrip("\n").split("\n")
    first = tok.map[0] if tok.map else None
    # a block opened by a bare tag line wraps what follows it, closed or not (a misspelt or cut-off closing tag);
    # a block of that line alone is markup, or a placeholder kept as text below
    opened = TAG_ONLY.match(lines[0]) is not None and sum(1 for ln in lines if ln.strip()) > 1
    if first is not None and how.depth < MAX_RESEGMENT_DEPTH and opened:
        inner = replace(how, headings=headings, depth=how.depth + 1)
        return _tag_wrapped_block(tokens, i, lines, src_lines, out, line_offset + first, inner)
    section = tuple(h[1] for h in headings)
    kept = [(k, ln) for k, ln in enumerate(lines) if ln.strip() and not wrapper_line(ln, how.wrappers)]
    if kept:
        line = first + kept[0][0] + 1 + line_offset if first is not None else None
        out.add("\n".join(ln for _, ln in kept), "paragraph", section, line)
    return i + 1, None


def _tag_wrapped_block(tokens, i: int, lines: list[str], src_lines: list[str], out: ItemBuilder, line_offset: int,
                       inner: BodyParse) -> tuple[int, int | None]:
    """The content between a block's leading and trailing tag lines, as Markdown or (code tags) one code item.

    A blank line ends an HTML block, so code with blank lines in it (a fenced or indented sample inside
    "<example>") is cut there; the code's remaining lines are taken back from the source (see code_run_on).
    """
    start = opening = 0  # lines[0] is a tag line (see _html_block)
    while start < len(lines) and (not lines[start].strip() or TAG_ONLY.match(lines[start])):
        if lines[start].strip():  # the innermost tag names the block; a blank line (a dropped comment) does not
            opening = start
        start += 1
    end = len(lines)
    while end > start and (not lines[end - 1].strip() or wrapper_line(lines[end - 1], inner.wrappers)):
        end -= 1
    name = TAG_NAME.match(lines[opening]).group(1).lower()
    if name in CODE_TAGS:
        return _code_tag_block(tokens, i, lines, src_lines, out, inner, line_offset, start, name), None
    if end <= start:
        return i + 1, None
    content = lines[start:end]
    next_i, reread_from = i + 1, None
    run_on = code_run_on(tokens, i, lines[start:], src_lines, name, inner.md, inner.rereads < MAX_REREADS)
    if run_on is not None:  # the block ends inside code, so its trailing "tag" lines are code too
        more, next_i, reread_from = run_on
        content = lines[start:] + more
    if not segment_markdown("\n".join(content), out, inner, line_offset + start):
        out.warn("markdown_nesting_limit")
    return next_i, reread_from


def _code_tag_block(tokens, i: int, lines: list[str], src_lines: list[str], out: ItemBuilder, inner: BodyParse,
                    line_offset: int, start: int, name: str) -> int:
    """One code item from a code tag's content, up to its closing tag; what follows that tag in the same block
    (an instruction, the next snippet) is segmented on its own. A blank line ends an HTML block, so when the
    closing tag is further down, the blocks markdown-it made of the code in between are taken back into the item."""
    close = re.compile(rf"^\s*</{re.escape(name)}\s*>\s*$", re.I)
    section = tuple(h[1] for h in inner.headings)
    next_i = i + 1
    closed_at = next((k for k in range(start, len(lines)) if close.match(lines[k])), None)
    rest: list[str] = []
    if closed_at is not None:
        code, rest = lines[start:closed_at], lines[closed_at + 1:]
    else:
        code = [ln for ln in lines[start:] if not wrapper_line(ln, inner.wrappers)]
        found = closing_line(tokens, i, src_lines, close)
        if found is not None:
            close_line, next_i = found
            code = src_lines[tokens[i].map[0] + start : close_line]
    while code and not code[0].strip():
        code, start = code[1:], start + 1
    out.add("\n".join(code).rstrip(), "code", section, line_offset + start + 1)
    if closed_at is not None and any(ln.strip() for ln in rest):
        if not segment_markdown("\n".join(rest), out, inner, line_offset + closed_at + 1):
            out.warn("markdown_nesting_limit")
    return next_i


def _swallowed_lines(tok, out: ItemBuilder, line_offset: int, how: BodyParse) -> None:
    """An unclosed fence's content: code up to its first blank line or heading, Markdown from there on (see
    :func:`~aac.core.segment.recovery.swallowed_code_end`)."""
    lines = tok.content.split("\n")
    cut = swallowed_code_end(lines, how.depth)
    first = tok.map[0] + 2 + line_offset  # the source line of the fence's first content line
    section = tuple(h[1] for h in how.headings)
    out.add("\n".join(lines[:cut]).rstrip(), "code", section, first)
    rest = "\n".join(lines[cut:])
    if rest.strip() and not segment_markdown(rest, out, how, first - 1 + cut):
        out.warn("markdown_nesting_limit")


def _recover_lost_lines(body: str, tokens, out: ItemBuilder, line_offset: int, how: BodyParse) -> None:
    """Pathologically deep nesting: segment what markdown-it kept, then add every line it lost as text.

    Past ``maxNesting`` markdown-it silently skips the rest of the enclosing block; rather than lose those
    lines, the parse is redone from the tokens' line coverage and the file is flagged.
    """
    lost = uncovered_lines(body, tokens, line_offset)
    inner = ItemBuilder()
    _segment_markdown_tokens(body, tokens, inner, line_offset, how)
    out.warnings.extend(inner.warnings)
    out.comments_dropped += inner.comments_dropped
    found = [(s.line or 0, s) for s in inner.segments]
    found += [(line, Segment(0, text, "paragraph", (), line, 0)) for line, text in lost]
    found.sort(key=lambda p: p[0])
    for _, s in found:
        out.add(s.text, s.kind, s.section_path, s.line)
