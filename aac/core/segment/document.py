"""The entry points: a file's path picks its format (Markdown, Markdown-ish plain rules, YAML), its text is normalised,
and the format's segmenter turns it into items plus front matter and warnings.
"""

from __future__ import annotations

import textwrap
from pathlib import PurePosixPath

from aac.core.segment.front_matter import split_front_matter
from aac.core.segment.items import ItemBuilder, Segment, Segmented
from aac.core.segment.markdown import segment_markdown
from aac.core.segment.parser import MD, MD_PLAIN
from aac.core.segment.yaml_config import segment_yaml_config

MARKDOWN_SUFFIXES = frozenset({".md", ".mdc", ".markdown", ".mdx"})
YAML_SUFFIXES = frozenset({".yml", ".yaml"})


def file_format(path: str) -> str:
    """``markdown`` | ``plain_rules`` | ``yaml`` — how a path's content is segmented."""
    p = PurePosixPath(path)
    suffix = p.suffix.lower()
    if suffix in YAML_SUFFIXES:
        return "yaml"
    if suffix in MARKDOWN_SUFFIXES:
        return "markdown"
    # "Markdown-ish plain text" (.cursorrules, .windsurfrules, .rules, .txt, anything unknown): parsed as Markdown,
    # but an indented line is prose, not code
    return "plain_rules"


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
    out = ItemBuilder()
    if fmt == "yaml":
        warnings = segment_yaml_config(content, out)
        return Segmented(out.segments, None, tuple(warnings))
    front, body_start, warnings = split_front_matter(content, out)
    body = "\n".join(content.split("\n")[body_start:]) if body_start else content
    if fmt == "plain_rules":
        body = textwrap.dedent(body)  # a file indented throughout is not one code block or a list of "- " lines
    if not segment_markdown(body, out, MD_PLAIN if fmt == "plain_rules" else MD, line_offset=body_start):
        out.warn("markdown_nesting_limit")
    if out.comments_dropped:  # not items by design, but said: "<!-- ... -->" can hold instructions too
        out.warn(f"html_comments_dropped:{out.comments_dropped}")
    return Segmented(out.segments, front, tuple(dict.fromkeys(warnings + out.warnings)))
