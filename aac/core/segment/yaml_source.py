"""YAML nodes back to their source text and lines, as this package counts lines: shared by the front matter and the
YAML config segmenters (which keep an item's source verbatim, not the parsed value).
"""

from __future__ import annotations

import yaml

# libyaml's safe loader when PyYAML has it (about ten times faster); normalize's front-matter check uses it too
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def line_at(src: str, mark) -> int:
    """The 1-based line of a YAML mark in ``src`` as this module counts lines (at "\\n" only): PyYAML's own
    ``mark.line`` also breaks at NEL, LS and PS (U+0085, U+2028, U+2029), which would put items past the file's end."""
    return src.count("\n", 0, mark.index) + 1


def node_source(src: str, start: yaml.Node, end: yaml.Node) -> str:
    text = src[start.start_mark.index : end.end_mark.index]
    if isinstance(end, yaml.ScalarNode) and end.style in ("|", ">"):
        return text.rstrip()
    return "\n".join(ln.rstrip() for ln in text.split("\n") if ln.strip() and not ln.lstrip().startswith("#"))
