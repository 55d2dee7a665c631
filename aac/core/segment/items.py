"""What segmentation yields: items (:class:`Segment`) and a file's parse (:class:`Segmented`), and the builder every
segmenter appends to, which numbers items, drops blank ones and collects warnings.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from aac.core.tokens import count_tokens

KINDS: tuple[str, ...] = ("bullet", "paragraph", "code", "table_row", "front_matter", "config")


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


class ItemBuilder:
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
