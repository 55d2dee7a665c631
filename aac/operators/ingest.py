"""Typed items from a plain file a user hands to the operators, without the corpus pipeline.

The pipeline's segmenter (``aac.processing.items.items_from_file``) is used when it is installed; this module
is the light path for runtimes that have only the operator library: a Markdown-aware line segmenter (front
matter, headings as section paths, fenced code, bullets, table rows, paragraphs) and any classifier that
follows ``aac.classifiers``' interface.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Sequence

import regex as re

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_FENCE = re.compile(r"^\s*(```|~~~)")
_SLUG = re.compile(r"[^\p{L}\p{N}]+")


def slug(text: str) -> str:
    return _SLUG.sub("-", text.lower()).strip("-")[:48] or "general"


def segment_text(text: str) -> list[dict]:
    """Rows with text, kind, section_path, topic, ordinal — one per bullet / paragraph / code block / table row."""
    rows: list[dict] = []
    section: list[str] = []
    lines = text.splitlines()
    buf: list[str] = []
    kind = "paragraph"

    def flush():
        nonlocal buf, kind
        body = "\n".join(buf).strip()
        if body:
            rows.append({"text": body, "kind": kind, "section_path": list(section),
                         "topic": slug(section[0]) if section else "general", "ordinal": len(rows)})
        buf, kind = [], "paragraph"

    i = 0
    if lines and lines[0].strip() == "---":  # front matter
        end = next((j for j in range(1, len(lines)) if lines[j].strip() == "---"), None)
        if end:
            buf, kind = lines[1:end], "front_matter"
            flush()
            i = end + 1
    while i < len(lines):
        line = lines[i]
        if _FENCE.match(line):
            flush()
            fence = _FENCE.match(line).group(1)
            j = i + 1
            while j < len(lines) and not lines[j].strip().startswith(fence):
                j += 1
            buf, kind = lines[i:j + 1], "code"
            flush()
            i = j + 1
            continue
        h = _HEADING.match(line)
        if h:
            flush()
            level = len(h.group(1))
            section = section[: level - 1] + [h.group(2)]
        elif not line.strip():
            flush()
        elif line.lstrip().startswith("|"):
            flush()
            if not re.fullmatch(r"\s*\|[\s|:-]*\|?\s*", line):  # skip separator rows
                buf, kind = [line.strip()], "table_row"
                flush()
        elif _BULLET.match(line):
            flush()
            buf, kind = [_BULLET.sub("", line, count=1)], "bullet"
        else:
            buf.append(line.strip() if kind == "bullet" else line)
        i += 1
    flush()
    return _assign_topics(rows)


def _assign_topics(rows: list[dict]) -> list[dict]:
    """Topic = the first heading level that differs across the file (a lone H1 title is not a topic).

    Items under no distinguishing heading are general: their topic is "general" and their scope global; other
    items are scoped to their topic.
    """
    depth = 0
    while True:
        heads = {tuple(r["section_path"][: depth + 1]) for r in rows if len(r["section_path"]) > depth}
        if len(heads) == 1 and all(len(r["section_path"]) > depth for r in rows if r["section_path"]):
            depth += 1
            continue
        break
    for r in rows:
        sec = r["section_path"]
        if len(sec) > depth:
            r["topic"], r["scope"] = slug(sec[depth]), [slug(sec[depth])]
        else:
            r["topic"], r["scope"] = "general", ["*"]
    return rows


def classify_rows(rows: list[dict], classifier) -> list[dict]:
    """Add type, type_proba, confidence, abstained from any ``aac.classifiers`` classifier."""
    from aac.classifiers import ItemInput
    from aac.classifiers.context import with_lead_ins

    preds = classifier.predict(with_lead_ins([ItemInput(r["text"], tuple(r["section_path"]), r["kind"],
                                                        r.get("authority", "user")) for r in rows]))
    for r, p in zip(rows, preds):
        r.update(type=p.label, type_proba=list(p.proba), confidence=p.confidence, abstained=p.abstained)
    return rows


def rows_from_file(path: str | Path, classifier="default") -> list[dict]:
    """Typed item rows for a file: the pipeline's segmenter when present, else the light one here.

    ``classifier`` is a registry name or an already-built classifier (reuse one across many files).
    """
    from aac.classifiers import get_classifier

    clf = get_classifier(classifier) if isinstance(classifier, str) else classifier
    try:
        from aac.processing.items import items_from_file  # the pipeline's segmenter (scope, authority, topics)
    except ImportError:
        return _light_rows(path, clf)
    warnings: dict[str, tuple[str, ...]] = {}
    rows = items_from_file(str(path), classifier=clf, warnings=warnings)
    if any("segmentation_failed" in w for w in warnings.values()):
        # a segmenter bug must not leave the file without items: the operators would then report a safe, empty
        # result having dropped every constraint in it
        return _light_rows(path, clf)
    return rows


def _light_rows(path: str | Path, classifier) -> list[dict]:
    text = Path(path).read_text(encoding="utf-8", errors="replace")
    return classify_rows(segment_text(text), classifier)
