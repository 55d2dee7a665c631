"""Split one agent configuration file into items: the unit every later step types, scopes and compacts.

Markdown (and the Markdown-ish plain-text rule files such as .cursorrules) is parsed with markdown-it-py at
block level only: inline parsing is switched off because items keep their source text verbatim (emphasis,
links and code spans included), which is both what the annotators labelled and several times faster.
YAML front matter (.mdc, .instructions.md, sub-agent files) and YAML configs (.aider.conf.yml) become
``front_matter`` / ``config`` items, one per top-level key. Nothing here raises on bad input: malformed
YAML is kept as text and reported in ``Segmented.warnings`` so the process step can record it.

Modules: ``document`` (entry points: format, normalisation), ``items`` (what segmentation yields),
``markdown`` (the token walk), ``parser`` (markdown-it as used here), ``statements`` (a paragraph's statements),
``tags`` (XML-style tag lines), ``block_scan`` (where blocks really end), ``recovery`` (what a failed parse still
gives), ``front_matter``, ``yaml_config``, ``yaml_source`` (YAML nodes back to source). Light by design: the
operators and the agent hooks import it (PyYAML and markdown-it-py only). The names others use are re-exported.
"""

from aac.core.segment.document import (
    MARKDOWN_SUFFIXES,
    YAML_SUFFIXES,
    comparable_text,
    file_format,
    normalise_text,
    segment,
    segment_document,
)
from aac.core.segment.items import KINDS, Segment, Segmented
from aac.core.segment.statements import statement_lines
from aac.core.segment.yaml_source import SAFE_LOADER

__all__ = [
    "KINDS", "MARKDOWN_SUFFIXES", "SAFE_LOADER", "YAML_SUFFIXES", "Segment", "Segmented", "comparable_text",
    "file_format", "normalise_text", "segment", "segment_document", "statement_lines",
]
