"""YAML front matter (.mdc, .instructions.md, sub-agent files): a leading ``---`` block becomes ``front_matter``
items, one per top-level key, and its mapping is handed to scoping. Cursor's unquoted globs (not YAML) are read
line by line as Cursor does; anything else malformed is kept as text and reported.
"""

from __future__ import annotations

import re

import yaml

from aac.core.segment.items import ItemBuilder
from aac.core.segment.yaml_source import SAFE_LOADER, line_at, node_source

_FENCE_END = ("---", "...")


def split_front_matter(content: str, out: ItemBuilder) -> tuple[dict | None, int, list[str]]:
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
        root = yaml.compose(block, Loader=SAFE_LOADER) if block.strip() else None
        data = yaml.load(block, Loader=SAFE_LOADER) if block.strip() else {}
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


def _mapping_items(src: str, root: yaml.MappingNode, out: ItemBuilder, kind: str, line_offset: int) -> None:
    """One item per top-level key with a non-empty value; text is the key's source lines, comments dropped."""
    for key, value in root.value:
        if isinstance(value, yaml.ScalarNode) and value.value == "" and value.tag.endswith(":null"):
            continue
        out.add(node_source(src, key, value), kind, (), line_at(src, key.start_mark) + line_offset)
