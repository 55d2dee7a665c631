"""XML-style tag lines in rule files ("<rules>", "</tool_calling>", "<code-snippet>"): which wrap items (markup, no
item of their own), which are placeholders to keep as text, and which hold code.
"""

from __future__ import annotations

import re

# A line that is only an XML-style tag: "<rules>", "</tool_calling>", '<code-snippet lang="php">'; not "<https://x>".
TAG_ONLY = re.compile(r"^\s*</?[A-Za-z][\w.-]*(?::[\w.-]+)?(?:\s[^<>]*)?/?>\s*$")
TAG_NAME = re.compile(r"^\s*</?([A-Za-z][\w.:-]*)")
_CLOSING_TAG = re.compile(r"</([A-Za-z][\w.:-]*)\s*>")


def wrapper_names(body: str) -> frozenset[str]:
    """Names a closing tag uses somewhere in the body: "<rules>" ... "</rules>" wraps items; a lone "<API_KEY>"
    or "<password>" with no closing tag is a placeholder, text to keep."""
    return frozenset(m.group(1).lower() for m in _CLOSING_TAG.finditer(body))


_VOID_TAGS = frozenset({"br", "hr", "img", "input", "meta", "link", "source", "wbr", "area", "col", "embed", "track"})


def wrapper_line(line: str, wrappers: frozenset[str]) -> bool:
    """A bare tag line that is markup, no item of its own: it closes a tag, opens one the file closes somewhere,
    or is an HTML element with no content ("<br/>", "<img ... />"). A lone "<API_KEY>" is none of these: text."""
    if TAG_ONLY.match(line) is None:
        return False
    name = TAG_NAME.match(line).group(1).lower()
    return (line.lstrip().startswith("</") or line.rstrip().endswith("/>") or name in _VOID_TAGS
            or name in wrappers)


HTML_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.S)
# Tags whose content is code, not Markdown ("<code-snippet lang="php">" in Laravel Boost guidelines).
CODE_TAG_LOOKAHEAD = 500  # lines searched for a code tag's closing line, so unclosed tags stay linear
CODE_TAGS = frozenset({"code", "code-snippet", "codesnippet", "pre", "script", "style", "textarea"})
