"""YAML configs (.aider.conf.yml, ...): top-level keys become ``config`` items and prose comment blocks ``paragraph``
items; unparsable YAML keeps its lines as text, with a ``malformed_yaml`` warning.
"""

from __future__ import annotations

import re

import yaml

from aac.core.segment.items import ItemBuilder
from aac.core.segment.yaml_source import SAFE_LOADER, line_at, node_source

_COMMENTED_KEY = re.compile(r"^#[\w.-]+:")  # "#model: xxx" — a disabled option, not prose
_WORD = re.compile(r"[^\W\d_]{2,}")


def segment_yaml_config(content: str, out: ItemBuilder) -> list[str]:
    """Top-level keys become ``config`` items; prose comment blocks become ``paragraph`` items."""
    try:
        root = yaml.compose(content, Loader=SAFE_LOADER)
        warnings: list[str] = []
    except Exception:  # noqa: BLE001 - YAMLError, bad dates (ValueError), deep nesting: all mean "not YAML"
        root, warnings = None, ["malformed_yaml"]
    items: list[tuple[int, str, str]] = []  # (line, kind, text), merged in line order
    if isinstance(root, yaml.MappingNode):
        for key, value in root.value:
            if isinstance(value, yaml.ScalarNode) and value.value == "" and value.tag.endswith(":null"):
                continue
            items.append((line_at(content, key.start_mark), "config", node_source(content, key, value)))
    elif isinstance(root, yaml.SequenceNode):
        for node in root.value:
            items.append((line_at(content, node.start_mark), "config", node_source(content, node, node)))
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
