"""The lead-in that governs a list: "Never:", "**Hard Stops:**", "禁止事项：", "Não faça:" followed by bullets.

A rule whose force sits in the sentence that introduces its list ("The agent MUST NEVER do any of the following:"
then "- git commit") reads as a bare fragment on its own. The segmenter makes the lead-in an item of its own; this
module hands it to the items of the list it introduces (:attr:`ItemInput.lead_in`), so the constraint stage sees
it as it sees a governing heading. Items are taken in file order: a lead-in is a short paragraph ending with a colon;
it governs the bullets / lines that follow it in the same section, up to the next item of another kind.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Hashable, Sequence

from aac.classifiers.base import ItemInput

MAX_LEAD_IN = 300  # characters; a longer paragraph ending in a colon introduces an example, not a rule list
LIST_KINDS = frozenset({"bullet", "line"})


def is_lead_in(text: str, kind: str) -> bool:
    t = text.strip().rstrip("*_ ").rstrip()
    return kind == "paragraph" and 0 < len(t) <= MAX_LEAD_IN and t.endswith((":", "："))


def with_lead_ins(items: Sequence[ItemInput], files: Sequence[Hashable] | None = None) -> list[ItemInput]:
    """``items`` (in file order) with ``lead_in`` set on the list items a lead-in governs; ``files``: which file
    each item comes from (a lead-in never crosses files; None: all one file). An item that already carries a
    lead-in keeps it."""
    out: list[ItemInput] = []
    lead, where = "", None
    for n, it in enumerate(items):
        here = (files[n] if files is not None else None, it.section)
        if is_lead_in(it.text, it.kind):
            lead, where = it.text.strip(), here
            out.append(it)
            continue
        if lead and here == where and it.kind in LIST_KINDS:
            out.append(it if it.lead_in else replace(it, lead_in=lead))
            continue
        lead, where = "", None
        out.append(it)
    return out
