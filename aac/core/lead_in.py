"""Whether a line is the lead-in of the list under it ("Never:", "**Do not**", "禁止事项"): a shape, no lexicon.

Shared by the segmenter (which records an item's ``lead_in``) and the operators' light segmenter; pure ``re``.
"""

from __future__ import annotations

import re


_LEAD_IN_END = re.compile(r"(?::|：|\*\*:?|__:?)\s*$")  # "Never:", "**Do not**", "__Avoid__"
_SENTENCE_END = re.compile(r"[.!?;。！？；]\s*$")


def introduces_list(line: str) -> bool:
    """Whether a line right above a list is its lead-in rather than a statement of its own: one short line
    ending in a colon or a bold label ("Never:", "**Do not**"), or a few words without a sentence's end
    ("禁止事项", "Forbidden")."""
    line = line.strip()
    if not line or "\n" in line or len(line) > 120:
        return False
    if _LEAD_IN_END.search(line):
        return True
    return not _SENTENCE_END.search(line) and len(line.split()) <= 8
