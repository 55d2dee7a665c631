"""Typed items from a plain file a user hands to the operators, without the corpus pipeline.

The pipeline's segmenter (``aac.processing.items.items_from_file``) is used when it is installed; this module
is the light path for runtimes that have only the operator library: a Markdown-aware line segmenter (front
matter, headings as section paths, fenced code, bullets, table rows, paragraphs) and any classifier that
follows ``aac.classifiers``' interface.
"""

from __future__ import annotations

from pathlib import Path

import regex as re

from aac.core.lead_in import introduces_list

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
    lead_in = ""  # the line introducing the list being read ("Never:"), as the pipeline's segmenter records it

    def flush():
        nonlocal buf, kind
        body = "\n".join(buf).strip()
        if body:
            rows.append({"text": body, "kind": kind, "section_path": list(section), "lead_in": lead_in if
                         kind == "bullet" else "", "topic": slug(section[0]) if section else "general",
                         "ordinal": len(rows)})
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
        if line.strip() and not _BULLET.match(line) and not (kind == "bullet" and line.startswith((" ", "\t"))):
            lead_in = ""  # a line of its own ends the list
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
            if kind == "paragraph" and buf and introduces_list(buf[-1]) and len(buf) == 1:
                lead_in = buf[0].strip()
            elif kind == "paragraph" and not buf and rows and rows[-1]["kind"] == "paragraph" \
                    and not lead_in and introduces_list(rows[-1]["text"]) and _blank_before(lines, i):
                lead_in = rows[-1]["text"]  # "**Do not**", a blank line, then the list
            flush()
            buf, kind = [_BULLET.sub("", line, count=1)], "bullet"
        else:
            buf.append(line.strip() if kind == "bullet" else line)
        i += 1
    flush()
    return _assign_topics(rows)


def _blank_before(lines: list[str], i: int) -> bool:
    """Only blank lines between line ``i`` and the paragraph line above it."""
    j = i - 1
    while j >= 0 and not lines[j].strip():
        j -= 1
    return j < i - 1 and j >= 0 and not _HEADING.match(lines[j])


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


class NotATextFile(ValueError):
    """A path that is no readable text file (a folder, a missing file, binary content): a user's input error."""


_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f]")


def read_text_file(path: str | Path) -> str:
    """The text of a file given to an operator; undecodable bytes become U+FFFD. Raises NotATextFile for a
    folder, a missing file, or binary content (a NUL byte, or more than 10 % undecodable bytes or control
    characters), whose items would be garbage printed as if they were rules."""
    p = Path(path)
    if p.is_dir():
        raise NotATextFile(f"{path} is a folder; give a file")
    if not p.is_file():
        raise NotATextFile(f"no such file: {path}")
    data = p.read_bytes()
    if b"\x00" in data:
        raise NotATextFile(f"{path} is not a text file")
    text = data.decode("utf-8", errors="replace")
    bad = text.count("\ufffd") - data.decode("utf-8", errors="ignore").count("\ufffd") + len(_CONTROL.findall(text))
    if text and bad > 0.1 * len(text):
        raise NotATextFile(f"{path} is not a text file")
    return text


def rows_from_file(path: str | Path, classifier="default") -> list[dict]:
    """Typed item rows for a file (see ``rows_from_text``); NotATextFile when it is none."""
    return rows_from_text(read_text_file(path), path, classifier)


def rows_from_text(text: str, path: str | Path, classifier="default") -> list[dict]:
    """Typed item rows for a file's text: the pipeline's segmenter when present, else the light one here.

    ``path`` says how to read the text (Markdown, rule file, YAML) and keys the item ids. ``classifier`` is a
    registry name or an already-built classifier (reuse one across many files).
    """
    from aac.classifiers import get_classifier

    clf = get_classifier(classifier) if isinstance(classifier, str) else classifier
    try:
        from aac.processing.items import itemize, local_artifact_id  # the pipeline's segmenter (scope, topics)
    except ImportError:
        return classify_rows(segment_text(text), clf)
    warnings: dict[str, tuple[str, ...]] = {}
    p = Path(path)
    rows = itemize(local_artifact_id(p), p.as_posix(), text, clf, warnings=warnings)
    if any("segmentation_failed" in w for w in warnings.values()):
        # a segmenter bug must not leave the file without items: the operators would then report a safe, empty
        # result having dropped every constraint in it
        return classify_rows(segment_text(text), clf)
    return rows
