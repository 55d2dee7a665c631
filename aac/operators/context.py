"""Governing context: the heading or lead-in line that gives an item its prohibitive force.

Under "## Forbidden actions" the bullet "Force-push to main." is a prohibition; printed alone it is an
instruction. The same holds for a list under a lead-in line ("**Don't:**", "Never:", "Não faça:", "禁止事项").
Every operator output that includes such an item prints the context with it, and the verifier checks that
it did. Two renderings, one rule:

- block form (compact, decompose partitions, ``Retrieved.text``): the context lines, then the governed items
  as "- " bullets; a run of items under the same context shares one context block. A heading is printed as
  a lead-in line ("Forbidden actions:") rather than a Markdown heading: a heading would read as governing
  every unrelated line the output prints after it, a lead-in governs only the bullets under it;
- line form (``render_with_context``: one retrieval hit, one item a hook injects): the context as a prefix,
  ``"Forbidden actions: Force-push to main."``.

Which contexts govern: the item's lead-in or one of its section headings on which the classifier's
prohibition cues fire (``aac.classifiers.cues.prohibits``, several languages).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Iterable, Sequence

from aac.classifiers.cues import prohibits as _prohibits
from aac.core.tokens import count_tokens

BULLET = "- "
INDENT = "  "


# Asides in a heading or lead-in say nothing of the items under it: "DRY Principle (Don't Repeat Yourself)",
# 'Rule #2: "I Don't Know" Honesty', "Structuur (is mogelijk nog niet zo)", "Capabilities (that CDP cannot do):".
_ASIDE = re.compile(r"\([^()]*\)|\[[^\[\]]*\]|\"[^\"]*\"|“[^”]*”|「[^」]*」|『[^』]*』")


@lru_cache(maxsize=65_536)
def prohibitive(line: str) -> bool:
    """Whether a heading or lead-in line gives the items under it prohibitive force (its asides aside)."""
    return _prohibits(_ASIDE.sub(" ", line)) if line.strip() else False


@lru_cache(maxsize=65_536)
def governing_context(section: tuple[str, ...], lead_in: str = "") -> tuple[str, ...]:
    """The context lines that govern an item with this section path and lead-in, outermost first; () if none.

    The innermost heading with prohibitive force (as a lead-in line: its text with a colon), then the item's
    lead-in when it or that heading has prohibitive force (a lead-in under "## Never" is printed too: it is
    the item's own introduction)."""
    lead = lead_in.strip()
    heading = next((h.strip() for h in reversed(section) if prohibitive(h)), "")
    lines: list[str] = []
    if heading:
        lines.append(heading if heading.endswith((":", "：")) else heading + ":")
    if lead and (heading or prohibitive(lead)):
        lines.append(lead)
    return tuple(lines)


def context_of(item) -> tuple[str, ...]:
    """``governing_context`` of anything with ``section`` and ``lead_in`` attributes (an ``Item``)."""
    return governing_context(tuple(getattr(item, "section", ()) or ()), getattr(item, "lead_in", "") or "")


def render_with_context(item) -> str:
    """One item as a self-contained line: its governing context as a prefix, then its text (unchanged when no
    context governs it). What a retrieval hit or a hook should show an agent."""
    ctx = context_of(item)
    text = item.text.strip()
    return " ".join(ctx + (text,)) if ctx else text


def bullet(text: str) -> str:
    """A governed item in block form: "- " before its first line, continuation lines indented under it."""
    lines = text.strip().split("\n")
    return "\n".join([BULLET + lines[0]] + [INDENT + ln if ln.strip() else ln for ln in lines[1:]])


def render_blocks(entries: Iterable[tuple[str, tuple[str, ...]]]) -> list[str]:
    """Block form of (text, context) pairs in the order given: one output block per entry, each governed run
    preceded by its context lines (shared by the consecutive entries under the same context). An ungoverned
    entry whose text is exactly the last line of the next entry's context (the lead-in item itself, printed
    right before its list) is left out: the context block prints it."""
    entries = list(entries)
    out: list[str] = []
    open_ctx: tuple[str, ...] = ()
    for n, (text, ctx) in enumerate(entries):
        text = text.strip()
        if not ctx:
            nxt = entries[n + 1][1] if n + 1 < len(entries) else ()
            if nxt and text == nxt[-1] and nxt != open_ctx:
                continue
            open_ctx = ()
            out.append(text)
            continue
        block = bullet(text)
        if ctx != open_ctx:
            block = "\n".join(ctx) + "\n" + block
            open_ctx = ctx
        out.append(block)
    return out


def render_items(items: Sequence, separator: str = "\n") -> str:
    """Items in the order given, in block form (see ``render_blocks``)."""
    return separator.join(render_blocks((it.text, context_of(it)) for it in items))


def rendered_tokens(item) -> int:
    """Tokens of an item in block form on its own (its context block, bullet and text): an upper bound on what
    it adds to any block rendering, for packing budgets."""
    ctx = context_of(item)
    return count_tokens("\n".join(ctx) + "\n" + bullet(item.text)) if ctx else item.tokens


def governed_presence(output: str, items: Sequence) -> dict[str, bool]:
    """Item id -> the output shows the item under its governing context: in block form (its bullet lines, with
    only bullets of the same block between them and the context lines above) or in line form (a line starting
    with the context prefix and holding the item's first line). Items no context governs are True."""
    lines = output.split("\n")
    at: dict[str, list[int]] = {}  # line -> where it occurs: one pass, whatever the number of items
    for i, ln in enumerate(lines):
        if ln.startswith(BULLET):
            at.setdefault(ln, []).append(i)
    found: dict[str, bool] = {}
    for it in items:
        ctx = context_of(it)
        if not ctx:
            found[it.id] = True
            continue
        rendered = bullet(it.text).split("\n")
        found[it.id] = _in_block(lines, at.get(rendered[0], ()), ctx, rendered) or _in_line(lines, ctx, it.text)
    return found


def _in_block(lines: list[str], starts, ctx: tuple[str, ...], rendered: list[str]) -> bool:
    k = len(rendered)
    for i in starts:
        if lines[i:i + k] != rendered:
            continue
        j = i - 1
        while j >= 0 and (lines[j].startswith(BULLET) or lines[j].startswith(INDENT) or not lines[j].strip()):
            j -= 1  # up over the other bullets of the block (and their continuation lines)
        if j + 1 >= len(ctx) and tuple(lines[j + 1 - len(ctx):j + 1]) == ctx:
            return True
    return False


def _in_line(lines: list[str], ctx: tuple[str, ...], text: str) -> bool:
    prefix = " ".join(ctx) + " "
    head = text.strip().split("\n")[0]
    return any(prefix in ln and head in ln[ln.index(prefix) + len(prefix):] for ln in lines)
