"""Split one agent configuration file into items: the unit every later step types, scopes and compacts.

Markdown (and the Markdown-ish plain-text rule files such as .cursorrules) is parsed with markdown-it-py at
block level only: inline parsing is switched off because items keep their source text verbatim (emphasis,
links and code spans included), which is both what the annotators labelled and several times faster.
YAML front matter (.mdc, .instructions.md, sub-agent files) and YAML configs (.aider.conf.yml) become
``front_matter`` / ``config`` items, one per top-level key. Nothing here raises on bad input: malformed
YAML is kept as text and reported in ``Segmented.warnings`` so the process step can record it.
"""

from __future__ import annotations

import re
import textwrap
import unicodedata
from dataclasses import dataclass, field, replace
from pathlib import PurePosixPath

import yaml
from markdown_it import MarkdownIt

from aac.core.lead_in import introduces_list
from aac.core.tokens import count_tokens

# libyaml's safe loader when PyYAML has it (about ten times faster); normalize's front-matter check uses it too
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

KINDS: tuple[str, ...] = ("bullet", "paragraph", "code", "table_row", "front_matter", "config")

# Rule files that are "Markdown-ish plain text": parsed as Markdown, but an indented line is prose, not code.
PLAIN_RULE_FILES = frozenset(
    {".cursorrules", ".windsurfrules", ".continuerules", ".clinerules", ".roorules", ".rules", ".goosehints"}
)
MARKDOWN_SUFFIXES = frozenset({".md", ".mdc", ".markdown", ".mdx"})
YAML_SUFFIXES = frozenset({".yml", ".yaml"})

_SafeLoader = SAFE_LOADER  # the loader normalize.front_matter_ok judges front matter with


@dataclass(frozen=True)
class Segment:
    ordinal: int  # 0.. in source order
    text: str  # verbatim from the source, without list markers / fences / table pipes
    kind: str  # one of KINDS
    section_path: tuple[str, ...]  # heading texts above the item, outermost first
    line: int | None  # 1-based source line of the item's first line
    n_tokens: int
    lead_in: str = ""  # the line right before the item's list that introduces it ("**Don't:**", "Never:")


@dataclass(frozen=True)
class Segmented:
    """A file's items plus what the later steps need from the parse (front matter for scope, warnings)."""

    segments: list[Segment]
    front_matter: dict | None = None
    warnings: tuple[str, ...] = field(default_factory=tuple)


MAX_NESTING = 50  # markdown-it stops parsing deeper blocks; see _recover_lost_lines


def _markdown(indented_code: bool) -> MarkdownIt:
    md = MarkdownIt("commonmark", {"maxNesting": MAX_NESTING}).enable("table")
    md.disable("inline")  # block structure is all we need; items keep raw inline source
    md.disable("reference")  # "[id]: url" definitions are content here, kept as paragraphs
    if not indented_code:
        md.disable("code")
    return md


# One parser per flavour, built once: constructing MarkdownIt is far costlier than parsing a small file.
_MD = _markdown(indented_code=True)
_MD_PLAIN = _markdown(indented_code=False)


def file_format(path: str) -> str:
    """``markdown`` | ``plain_rules`` | ``yaml`` — how a path's content is segmented."""
    p = PurePosixPath(path)
    suffix = p.suffix.lower()
    if suffix in YAML_SUFFIXES:
        return "yaml"
    if suffix in MARKDOWN_SUFFIXES:
        return "markdown"
    return "plain_rules"  # PLAIN_RULE_FILES, .txt, and anything unknown


def normalise_text(content: str) -> str:
    """Drop a BOM and unify line endings so line numbers mean the same thing for every file."""
    if content.startswith("\ufeff"):
        content = content[1:]
    if "\r" in content:
        content = content.replace("\r\n", "\n").replace("\r", "\n")
    return content


def comparable_text(text: str) -> str:
    """An item's text modulo whitespace, code fences and a table row's outer pipes: the form in which items from
    different segmenters (ours, the annotators') are compared."""
    t = text.strip()
    if t.startswith("```"):
        t = "\n".join(t.split("\n")[1:-1] if t.rstrip().endswith("```") else t.split("\n")[1:])
    if t.startswith("|") and t.endswith("|"):
        t = " | ".join(c.strip() for c in t.strip("|").split("|"))
    return " ".join(t.split())


def segment(content: str, path: str) -> list[Segment]:
    """The items of one file, in source order."""
    return segment_document(content, path).segments


def segment_document(content: str, path: str) -> Segmented:
    """Items plus parsed front matter and warnings (e.g. ``malformed_front_matter``)."""
    content = normalise_text(content)
    fmt = file_format(path)
    out = _Builder()
    if fmt == "yaml":
        warnings = _segment_yaml_config(content, out)
        return Segmented(out.segments, None, tuple(warnings))
    front, body_start, warnings = _split_front_matter(content, out)
    body = "\n".join(content.split("\n")[body_start:]) if body_start else content
    if fmt == "plain_rules":
        body = textwrap.dedent(body)  # a file indented throughout is not one code block or a list of "- " lines
    if not _segment_markdown(body, out, _MD_PLAIN if fmt == "plain_rules" else _MD, line_offset=body_start):
        out.warn("markdown_nesting_limit")
    if out.comments_dropped:  # not items by design, but said: "<!-- ... -->" can hold instructions too
        out.warn(f"html_comments_dropped:{out.comments_dropped}")
    return Segmented(out.segments, front, tuple(dict.fromkeys(warnings + out.warnings)))


class _Builder:
    """Collects items, numbering them and dropping blank ones, and the warnings met on the way."""

    __slots__ = ("segments", "warnings", "comments_dropped", "lead_ins")

    def __init__(self) -> None:
        self.segments: list[Segment] = []
        self.warnings: list[str] = []
        self.comments_dropped = 0
        self.lead_ins: list[str] = []  # per open list, its lead-in ("" for none), innermost last

    def warn(self, warning: str) -> None:
        self.warnings.append(warning)

    def add(self, text: str, kind: str, section: tuple[str, ...], line: int | None) -> None:
        text = text.strip()
        if not text:
            return
        lead_in = next((x for x in reversed(self.lead_ins) if x), "")
        self.segments.append(Segment(len(self.segments), text, kind, section, line, count_tokens(text), lead_in))


# --- YAML front matter -------------------------------------------------------------------------------

_FENCE_END = ("---", "...")


def _split_front_matter(content: str, out: _Builder) -> tuple[dict | None, int, list[str]]:
    """Parse a leading ``---`` YAML block; returns (mapping or None, first body line index, warnings)."""
    if not content.startswith("---"):
        return None, 0, []
    lines = content.split("\n")
    if lines[0].rstrip() != "---":
        return None, 0, []
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip() in _FENCE_END), None)
    if end is None:
        return None, 0, []  # a lone thematic break, not front matter
    block = "\n".join(lines[1:end])
    try:
        root = yaml.compose(block, Loader=_SafeLoader) if block.strip() else None
        data = yaml.load(block, Loader=_SafeLoader) if block.strip() else {}
    except Exception:  # noqa: BLE001 - YAMLError, bad dates (ValueError), deep nesting: all mean "not YAML"
        root, data = None, None
    if not block.strip() or (data is None and _only_comments(block)):
        return {}, end + 1, []  # an empty front matter block
    if not isinstance(root, yaml.MappingNode) or not isinstance(data, dict):
        # Cursor writes `globs: **/*.ts, src/**` unquoted, which is not YAML (`*` starts an alias); its own
        # reader is line-based, so ours falls back to that before giving up.
        lenient = _lenient_front_matter(lines[1:end])
        if lenient is not None:
            data, entries = lenient
            for first, last, value in entries:
                if value not in ("", []):
                    out.add("\n".join(lines[1 + first : 2 + last]), "front_matter", (), first + 2)
            return data, end + 1, ["front_matter_not_yaml"]
        if not any(_FM_KEY.match(ln) for ln in lines[1:end]):
            return None, 0, []  # prose between two thematic breaks, not front matter
        # Malformed: keep every line as text so nothing is lost, and say so.
        for i in range(1, end):
            out.add(lines[i], "paragraph", (), i + 1)
        return None, end + 1, ["malformed_front_matter"]
    _mapping_items(block, root, out, kind="front_matter", line_offset=1)
    return data, end + 1, []


_FM_KEY = re.compile(r"^([A-Za-z_][\w.-]*)[ \t]*:(?:[ \t]+(.*))?$")


def _lenient_front_matter(lines: list[str]) -> tuple[dict, list[tuple[int, int, object]]] | None:
    """``key: value`` lines (values unparsed strings, ``- x`` continuations as lists), or None if not that shape.

    Returns the mapping and, per key line in source order, its first and last line index within ``lines`` and
    its own value: a key given twice keeps both lines as items (the mapping keeps the last value).
    """
    data: dict = {}
    entries: list[list] = []  # [first, last, value]
    for i, ln in enumerate(lines):
        if not ln.strip() or ln.lstrip().startswith("#"):
            continue
        m = _FM_KEY.match(ln)
        if m:
            value = (m.group(2) or "").strip()
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
                value = value[1:-1]
            data[m.group(1)] = value
            entries.append([i, i, value, m.group(1)])
        elif entries and (ln[0] in " \t" or ln.startswith("- ")):
            entry, item = entries[-1], ln.strip()
            if item.startswith("- "):
                prev = entry[2]
                entry[2] = (prev if isinstance(prev, list) else ([prev] if prev else [])) + [item[2:].strip()]
            elif isinstance(entry[2], str):
                entry[2] = f"{entry[2]} {item}".strip()
            entry[1] = i
            data[entry[3]] = entry[2]
        else:
            return None
    return (data, [(first, last, value) for first, last, value, _ in entries]) if data else None


def _only_comments(block: str) -> bool:
    return all(not ln.strip() or ln.lstrip().startswith("#") for ln in block.split("\n"))


def _mapping_items(src: str, root: yaml.MappingNode, out: _Builder, kind: str, line_offset: int) -> None:
    """One item per top-level key with a non-empty value; text is the key's source lines, comments dropped."""
    for key, value in root.value:
        if isinstance(value, yaml.ScalarNode) and value.value == "" and value.tag.endswith(":null"):
            continue
        out.add(_node_source(src, key, value), kind, (), _line_at(src, key.start_mark) + line_offset)


def _line_at(src: str, mark) -> int:
    """The 1-based line of a YAML mark in ``src`` as this module counts lines (at "\\n" only): PyYAML's own
    ``mark.line`` also breaks at NEL, LS and PS (U+0085, U+2028, U+2029), which would put items past the file's end."""
    return src.count("\n", 0, mark.index) + 1


def _node_source(src: str, start: yaml.Node, end: yaml.Node) -> str:
    text = src[start.start_mark.index : end.end_mark.index]
    if isinstance(end, yaml.ScalarNode) and end.style in ("|", ">"):
        return text.rstrip()
    return "\n".join(ln.rstrip() for ln in text.split("\n") if ln.strip() and not ln.lstrip().startswith("#"))


# --- YAML configs (.aider.conf.yml, ...) --------------------------------------------------------------

_COMMENTED_KEY = re.compile(r"^#[\w.-]+:")  # "#model: xxx" — a disabled option, not prose
_WORD = re.compile(r"[^\W\d_]{2,}")


def _segment_yaml_config(content: str, out: _Builder) -> list[str]:
    """Top-level keys become ``config`` items; prose comment blocks become ``paragraph`` items."""
    try:
        root = yaml.compose(content, Loader=_SafeLoader)
        warnings: list[str] = []
    except Exception:  # noqa: BLE001 - YAMLError, bad dates (ValueError), deep nesting: all mean "not YAML"
        root, warnings = None, ["malformed_yaml"]
    items: list[tuple[int, str, str]] = []  # (line, kind, text), merged in line order
    if isinstance(root, yaml.MappingNode):
        for key, value in root.value:
            if isinstance(value, yaml.ScalarNode) and value.value == "" and value.tag.endswith(":null"):
                continue
            items.append((_line_at(content, key.start_mark), "config", _node_source(content, key, value)))
    elif isinstance(root, yaml.SequenceNode):
        for node in root.value:
            items.append((_line_at(content, node.start_mark), "config", _node_source(content, node, node)))
    elif root is not None or warnings:
        # A bare scalar or unparsable YAML: keep its non-comment lines as text.
        for i, ln in enumerate(content.split("\n")):
            if ln.strip() and not ln.lstrip().startswith("#"):
                items.append((i + 1, "paragraph", ln))
    items.extend(_comment_paragraphs(content))
    items.sort(key=lambda t: t[0])
    for line, kind, text in items:
        out.add(text, kind, (), line)
    return warnings


def _comment_paragraphs(content: str):
    """Groups of full-line comments that read as prose (≥3 words), not rulers or commented-out options."""
    group: list[str] = []
    start = 0
    disabled = False

    def flush():
        if group and not disabled:
            text = "\n".join(group)
            if len(_WORD.findall(text)) >= 3:
                return (start, "paragraph", text)
        return None

    for i, raw in enumerate(content.split("\n")):
        ln = raw.strip()
        body = ln.lstrip("#").strip() if ln.startswith("#") else None
        if body is None or not body or not _WORD.search(body) and len(set(body)) <= 2:
            done = flush()
            if done:
                yield done
            group, disabled = [], False
            continue
        if _COMMENTED_KEY.match(ln):
            disabled = True
        if not group:
            start = i + 1
        group.append(body)
    done = flush()
    if done:
        yield done


# --- Markdown ----------------------------------------------------------------------------------------

# A line that is only an XML-style tag: "<rules>", "</tool_calling>", '<code-snippet lang="php">'; not "<https://x>".
_TAG_ONLY = re.compile(r"^\s*</?[A-Za-z][\w.-]*(?::[\w.-]+)?(?:\s[^<>]*)?/?>\s*$")
_TAG_NAME = re.compile(r"^\s*</?([A-Za-z][\w.:-]*)")
_CLOSING_TAG = re.compile(r"</([A-Za-z][\w.:-]*)\s*>")


def _wrapper_names(body: str) -> frozenset[str]:
    """Names a closing tag uses somewhere in the body: "<rules>" ... "</rules>" wraps items; a lone "<API_KEY>"
    or "<password>" with no closing tag is a placeholder, text to keep."""
    return frozenset(m.group(1).lower() for m in _CLOSING_TAG.finditer(body))


_VOID_TAGS = frozenset({"br", "hr", "img", "input", "meta", "link", "source", "wbr", "area", "col", "embed", "track"})


def _wrapper_line(line: str, wrappers: frozenset[str]) -> bool:
    """A bare tag line that is markup, no item of its own: it closes a tag, opens one the file closes somewhere,
    or is an HTML element with no content ("<br/>", "<img ... />"). A lone "<API_KEY>" is none of these: text."""
    if _TAG_ONLY.match(line) is None:
        return False
    name = _TAG_NAME.match(line).group(1).lower()
    return (line.lstrip().startswith("</") or line.rstrip().endswith("/>") or name in _VOID_TAGS
            or name in wrappers)
MAX_RESEGMENT_DEPTH = 20  # parts segmented again (tag blocks, unclosed fences) inside one another; deeper ones are not
MAX_REREADS = 50  # times a body's whole rest is parsed again after a fence in a tag block (_code_run_on), when no
# block start (_next_block_start) bounds the part to parse; each costs a parse of the rest


@dataclass(frozen=True)
class _Markdown:
    """How a body is parsed: the parser flavour, the headings (level, title) already open above it (a part of
    a file segmented on its own continues the file's sections), and how deep in tag blocks it sits."""

    md: MarkdownIt
    headings: tuple[tuple[int, str], ...] = ()
    depth: int = 0
    wrappers: frozenset[str] = frozenset()  # tag names closed somewhere in the file (see _wrapper_names)
    rereads: int = 0  # times the body's whole rest was parsed again so far (see MAX_REREADS)


def _parse(md: MarkdownIt, text: str) -> list:
    """markdown-it's block tokens of ``text``, which is given a final newline: without one, markdown-it-py 4.3 raises
    IndexError on a file that ends in a quoted list item holding an open HTML block ("> - <!-- todo" then ">")."""
    return md.parse(text if text.endswith("\n") else text + "\n")


def _segment_markdown(body: str, out: _Builder, md: MarkdownIt | _Markdown, line_offset: int) -> bool:
    """Append the body's items; False when nesting past MAX_NESTING made markdown-it drop lines (recovered)."""
    how = md if isinstance(md, _Markdown) else _Markdown(md, wrappers=_wrapper_names(body))
    tokens = _parse(how.md, body)
    if tokens and max(t.level for t in tokens) >= MAX_NESTING - 2:
        _recover_lost_lines(body, tokens, out, line_offset, how)
        return False
    _segment_markdown_tokens(body, tokens, out, line_offset, how)
    return True


def _segment_markdown_tokens(body: str, tokens, out: _Builder, line_offset: int, how: _Markdown) -> None:
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
            part_at, part_end = part_end, _next_block_start(body_lines, part_end)
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
            _paragraph(tok, inline.content, kind, section, line_offset, quoted, out, how.wrappers)
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
        elif t == "fence" and _unclosed_fence(tok, src_lines):
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
                part_end = _next_block_start(body_lines, part_at)
                src_lines, line_offset = body_lines[part_at:part_end], body_offset + part_at
                if part_end == len(body_lines):  # a parse of the whole rest: those are the costly ones, and bounded
                    how = replace(how, rereads=how.rereads + 1)
                del out.lead_ins[lists_base:]
                tokens, i = _parse_part(src_lines, out, line_offset, replace(how, headings=tuple(headings))), 0
                n = len(tokens)
            continue
        i += 1
    del out.lead_ins[lists_base:]




def _parse_part(lines: list[str], out: _Builder, line_offset: int, how: _Markdown) -> list:
    """The tokens of part of a body; none when nesting past MAX_NESTING lost lines (then recovered and said)."""
    tokens = _parse(how.md, "\n".join(lines))
    if tokens and max(t.level for t in tokens) >= MAX_NESTING - 2:
        _recover_lost_lines("\n".join(lines), tokens, out, line_offset, how)
        out.warn("markdown_nesting_limit")
        return []
    return tokens


_TOP_FENCE_LINE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
_RAW_BLOCK = re.compile(r"^ {0,3}<(script|pre|style|textarea)(?:\s|>|$)", re.I)


def _next_block_start(lines: list[str], start: int) -> int:
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
        bare_tag = ln.startswith("<") and _TAG_ONLY.match(ln) is not None
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
        opened = _RAW_BLOCK.match(ln) or (_TAG_ONLY.match(ln) and _TAG_NAME.match(ln))
        name = opened.group(1).lower() if opened else ""
        if name in _CODE_TAGS and not ln.lstrip().startswith("</") and not re.search(rf"</{name}\s*>", ln, re.I):
            raw = re.compile(rf"^\s*</{re.escape(name)}\s*>\s*$", re.I)
    return len(lines)


def _paragraph(tok, content: str, kind: str, section: tuple[str, ...], line_offset: int,
               quoted_lines: list[str] | None, out: _Builder, wrappers: frozenset[str] = frozenset()) -> None:
    """One item per statement of a paragraph (see statement_lines); a quoted paragraph's items keep their
    ``>`` markers, taken from the source lines once the text without them has been split."""
    line = tok.map[0] + 1 + line_offset if tok.map else None
    prev = ""
    parts = statement_lines(content)
    for k, (offset, part) in enumerate(parts):
        if _wrapper_line(part, wrappers):  # "<rules>" / "</tool_calling>" wrap items, they are none
            continue
        following = parts[k + 1][1] if k + 1 < len(parts) else ""
        marker = _LIST_MARKER.match(part) if offset and _list_item_after(prev, part, following) else None
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


_ATX_HEADING = re.compile(r"^ {0,3}#{1,6}(?:[ \t]|$)")


def _unclosed_fence(tok, src_lines: list[str]) -> bool:
    """True when the fence ran to the end of its container because no closing marker came."""
    if not tok.map or tok.map[1] - tok.map[0] < 2:
        return tok.map is not None
    last = src_lines[tok.map[1] - 1]
    marker = tok.markup[0] * len(tok.markup)
    closing = last.lstrip(" \t>").rstrip()
    return not (closing.startswith(marker) and not closing.strip(tok.markup[0]))


def _swallowed_lines(tok, out: _Builder, line_offset: int, how: _Markdown) -> None:
    """An unclosed fence's content: code up to its first blank line or heading, Markdown from there on.

    A forgotten closing fence would otherwise make the rest of the file one code item; the lines before the
    first break are what the author plausibly meant as code.
    """
    lines = tok.content.split("\n")
    cut = next((k for k, ln in enumerate(lines) if not ln.strip() or _ATX_HEADING.match(ln)), len(lines))
    if how.depth > MAX_RESEGMENT_DEPTH:
        cut = len(lines)
    first = tok.map[0] + 2 + line_offset  # the source line of the fence's first content line
    section = tuple(h[1] for h in how.headings)
    out.add("\n".join(lines[:cut]).rstrip(), "code", section, first)
    rest = "\n".join(lines[cut:])
    if rest.strip() and not _segment_markdown(rest, out, how, first - 1 + cut):
        out.warn("markdown_nesting_limit")


_RULER = re.compile(r"^[=\-_*#~+.:| ]+$")  # ASCII rulers such as "=====" or "- - -"


def _heading_text(content: str) -> str:
    """A heading's text on one line; ruler lines of a setext heading ("====" above the title) are dropped."""
    lines = [ln.strip() for ln in content.split("\n") if ln.strip()]
    if len(lines) > 1:
        lines = [ln for ln in lines if not _RULER.match(ln)] or lines
    return " ".join(lines)


_MARKER_ONLY = re.compile(r"^[\s>*+\-]*(?:\d+[.)])?[\s>*+\-]*$")
_LEAF_TYPES = frozenset({"paragraph_open", "fence", "code_block", "html_block", "heading_open", "hr", "table_open"})


def _recover_lost_lines(body: str, tokens, out: _Builder, line_offset: int, how: _Markdown) -> None:
    """Pathologically deep nesting: segment what markdown-it kept, then add every uncovered line as text.

    Past ``maxNesting`` markdown-it silently skips the rest of the enclosing block; rather than lose those
    lines, the parse is redone from the tokens' line coverage and the file is flagged.
    """
    covered = bytearray(body.count("\n") + 1)
    for t in tokens:
        if t.type in _LEAF_TYPES and t.map:
            covered[t.map[0] : t.map[1]] = b"\x01" * (t.map[1] - t.map[0])
    inner = _Builder()
    _segment_markdown_tokens(body, tokens, inner, line_offset, how)
    out.warnings.extend(inner.warnings)
    out.comments_dropped += inner.comments_dropped
    found = [(s.line or 0, s) for s in inner.segments]
    for k, ln in enumerate(body.split("\n")):
        if not covered[k] and ln.strip() and not _MARKER_ONLY.match(ln):
            text = ln.strip().lstrip(">").strip()
            text = re.sub(r"^(?:[*+\-]|\d+[.)])\s+", "", text)
            if text:
                found.append((k + 1 + line_offset, Segment(0, text, "paragraph", (), k + 1 + line_offset, 0)))
    found.sort(key=lambda p: p[0])
    for _, s in found:
        out.add(s.text, s.kind, s.section_path, s.line)


_END_OF_STATEMENT = re.compile(r"(?:[.!?:;。！？：；]|[.!?]\*\*|\*\*:?)\s*$")
# A sentence end inside closing marks: "(see the docs.)", 'then say "done."'. A ")" or a quote also ends
# wrapped text ("(uses `x`" / "and `y`)"), so these only end a statement when the next line starts a sentence.
_CLOSED_SENTENCE_END = re.compile(r"[.!?。！？][)\]\"'`’”*_]+\s*$")
_OPENING_MARKS = "*_`\"'“‘(["
_LIST_MARKER = re.compile(r"^(?:[-*+]|\d{1,9}[.)])[ \t]+(?=\S)")
_NUMBERED = re.compile(r"^\d{1,9}[.)][ \t]")
_LEAD_IN = re.compile(r"(?::|\*\*:?|__:?)\s*$")  # "Steps:", "**Phase 1**": what a list of steps follows


def _list_item_after(prev: str, line: str, following: str = "") -> bool:
    """Whether ``line`` (inside a paragraph) is a list item: a bullet marker, or a number that follows a lead-in
    or another numbered line ("6. Read ..." after "**Phase 1**"), or that the next number follows ("11. Plan" /
    "12. Refactor"). A number that merely wraps to the start of a line ("... in December" / "2019. Since then
    ...") is text."""
    if _LIST_MARKER.match(line) is None:
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
            or _TAG_ONLY.match(a) is not None
            or _TAG_ONLY.match(b) is not None
            or _END_OF_STATEMENT.search(a) is not None
            or (_CLOSED_SENTENCE_END.search(a) is not None and _starts_sentence(b))
            or _STARTS_LABEL.match(b) is not None
            or _list_item_after(a, b, lines[k + 2] if k + 2 < len(lines) else "")
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


_HTML_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.S)
# Tags whose content is code, not Markdown ("<code-snippet lang="php">" in Laravel Boost guidelines).
CODE_TAG_LOOKAHEAD = 500  # lines searched for a code tag's closing line, so unclosed tags stay linear
_CODE_TAGS = frozenset({"code", "code-snippet", "codesnippet", "pre", "script", "style", "textarea"})


def _html_block(tokens, i: int, src_lines: list[str], out: _Builder, headings: tuple[tuple[int, str], ...],
                line_offset: int, how: _Markdown) -> tuple[int, int | None]:
    """Add the items of the HTML block at ``tokens[i]``; returns the index of the next token to read and, when
    the block's code ran on past the tokens' idea of it, the source line from which to parse again instead.

    HTML comments are skipped (text after one on its line is kept). A block opened by a bare tag line
    ("<communication>" ... "</communication>") is a wrapper agents read as a labelled section: its lines are
    segmented again as Markdown (code tags give one code item) and the tag lines themselves are no items. Any
    other HTML block keeps its non-tag lines as a paragraph.
    """
    tok = tokens[i]
    content, comments = _HTML_COMMENT.subn(lambda m: "\n" * m.group(0).count("\n"), tok.content)
    out.comments_dropped += comments
    if not content.strip():
        return i + 1, None
    lines = content.rstrip("\n").split("\n")
    first = tok.map[0] if tok.map else None
    # a block opened by a bare tag line wraps what follows it, closed or not (a misspelt or cut-off closing tag);
    # a block of that line alone is markup, or a placeholder kept as text below
    opened = _TAG_ONLY.match(lines[0]) is not None and sum(1 for ln in lines if ln.strip()) > 1
    if first is not None and how.depth < MAX_RESEGMENT_DEPTH and opened:
        inner = replace(how, headings=headings, depth=how.depth + 1)
        return _tag_wrapped_block(tokens, i, lines, src_lines, out, line_offset + first, inner)
    section = tuple(h[1] for h in headings)
    kept = [(k, ln) for k, ln in enumerate(lines) if ln.strip() and not _wrapper_line(ln, how.wrappers)]
    if kept:
        line = first + kept[0][0] + 1 + line_offset if first is not None else None
        out.add("\n".join(ln for _, ln in kept), "paragraph", section, line)
    return i + 1, None


def _tag_wrapped_block(tokens, i: int, lines: list[str], src_lines: list[str], out: _Builder, line_offset: int,
                       inner: _Markdown) -> tuple[int, int | None]:
    """The content between a block's leading and trailing tag lines, as Markdown or (code tags) one code item.

    A blank line ends an HTML block, so code with blank lines in it (a fenced or indented sample inside
    "<example>") is cut there; the code's remaining lines are taken back from the source (see _code_run_on).
    """
    start = opening = 0  # lines[0] is a tag line (see _html_block)
    while start < len(lines) and (not lines[start].strip() or _TAG_ONLY.match(lines[start])):
        if lines[start].strip():  # the innermost tag names the block; a blank line (a dropped comment) does not
            opening = start
        start += 1
    end = len(lines)
    while end > start and (not lines[end - 1].strip() or _wrapper_line(lines[end - 1], inner.wrappers)):
        end -= 1
    name = _TAG_NAME.match(lines[opening]).group(1).lower()
    if name in _CODE_TAGS:
        return _code_tag_block(tokens, i, lines, src_lines, out, inner, line_offset, start, name), None
    if end <= start:
        return i + 1, None
    content = lines[start:end]
    next_i, reread_from = i + 1, None
    run_on = _code_run_on(tokens, i, lines[start:], src_lines, name, inner.md, inner.rereads < MAX_REREADS)
    if run_on is not None:  # the block ends inside code, so its trailing "tag" lines are code too
        more, next_i, reread_from = run_on
        content = lines[start:] + more
    if not _segment_markdown("\n".join(content), out, inner, line_offset + start):
        out.warn("markdown_nesting_limit")
    return next_i, reread_from


def _code_run_on(tokens, i: int, content: list[str], src_lines: list[str], name: str, md: MarkdownIt,
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
    fence = _open_fence(content)
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
    last = next((t for t in reversed(_parse(md, "\n".join(content))) if t.level == 0), None)
    if last is not None and last.type == "code_block" and last.map and last.map[1] >= len(content):
        return src_lines[after : nxt.map[1]], i + 2, None
    return None


_FENCE_LINE = re.compile(r"^\s*(`{3,}|~{3,})(.*)$")


def _open_fence(lines: list[str]) -> tuple[str, str | None] | None:
    """(marker, name of the last tag opened above it) of a fence the lines leave open, else None. A line scan,
    not a parse, so that a fence inside a nested tag block ("</a>" then "<b>" then the fence) is seen too."""
    fence: str | None = None
    tag = opened_at = None
    for ln in lines:
        m = _FENCE_LINE.match(ln)
        if fence is None:
            if m and not (m.group(1)[0] == "`" and "`" in m.group(2)):
                fence, opened_at = m.group(1), tag
            elif _TAG_ONLY.match(ln) and not ln.lstrip().startswith("</"):
                tag = _TAG_NAME.match(ln).group(1)
        elif m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and not m.group(2).strip():
            fence = None
    return None if fence is None else (fence, opened_at)


def _code_tag_block(tokens, i: int, lines: list[str], src_lines: list[str], out: _Builder, inner: _Markdown,
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
        code = [ln for ln in lines[start:] if not _wrapper_line(ln, inner.wrappers)]
        found = _closing_line(tokens, i, src_lines, close)
        if found is not None:
            close_line, next_i = found
            code = src_lines[tokens[i].map[0] + start : close_line]
    while code and not code[0].strip():
        code, start = code[1:], start + 1
    out.add("\n".join(code).rstrip(), "code", section, line_offset + start + 1)
    if closed_at is not None and any(ln.strip() for ln in rest):
        if not _segment_markdown("\n".join(rest), out, inner, line_offset + closed_at + 1):
            out.warn("markdown_nesting_limit")
    return next_i


def _closing_line(tokens, i: int, src_lines: list[str], close: re.Pattern) -> tuple[int, int] | None:
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
