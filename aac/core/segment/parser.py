"""markdown-it, as segmentation uses it: block level only (items keep their inline source verbatim), one parser
per flavour built once, and the state a body is parsed in (:class:`BodyParse`) with the bounds on parsing again.
"""

from __future__ import annotations

from dataclasses import dataclass

from markdown_it import MarkdownIt

MAX_NESTING = 50  # markdown-it stops parsing deeper blocks; see _recover_lost_lines


def _markdown(indented_code: bool) -> MarkdownIt:
    md = MarkdownIt("commonmark", {"maxNesting": MAX_NESTING}).enable("table")
    md.disable("inline")  # block structure is all we need; items keep raw inline source
    md.disable("reference")  # "[id]: url" definitions are content here, kept as paragraphs
    if not indented_code:
        md.disable("code")
    return md


# One parser per flavour, built once: constructing MarkdownIt is far costlier than parsing a small file.
MD = _markdown(indented_code=True)
MD_PLAIN = _markdown(indented_code=False)


MAX_RESEGMENT_DEPTH = 20  # parts segmented again (tag blocks, unclosed fences) inside one another; deeper ones are not
MAX_REREADS = 50  # times a body's whole rest is parsed again after a fence in a tag block (code_run_on), when no
# block start (next_block_start) bounds the part to parse; each costs a parse of the rest


@dataclass(frozen=True)
class BodyParse:
    """How a body is parsed: the parser flavour, the headings (level, title) already open above it (a part of
    a file segmented on its own continues the file's sections), and how deep in tag blocks it sits."""

    md: MarkdownIt
    headings: tuple[tuple[int, str], ...] = ()
    depth: int = 0
    wrappers: frozenset[str] = frozenset()  # tag names closed somewhere in the file (see wrapper_names)
    rereads: int = 0  # times the body's whole rest was parsed again so far (see MAX_REREADS)


def parse(md: MarkdownIt, text: str) -> list:
    """markdown-it's block tokens of ``text``, which is given a final newline: without one, markdown-it-py 4.3 raises
    IndexError on a file that ends in a quoted list item holding an open HTML block ("> - <!-- todo" then ">")."""
    return md.parse(text if text.endswith("\n") else text + "\n")
