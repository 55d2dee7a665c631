"""The context that governs a rule: the heading path above it ("## Forbidden actions" makes "- Force-push to
main." a prohibition).

One small function on purpose: the operator library is gaining a governing-context model (an item carrying its
heading and lead-in, and a renderer for it); when it lands this is the one place to switch to it.
"""

from __future__ import annotations

SEPARATOR = " > "


def governing_context(section: tuple[str, ...], text: str = "") -> str:
    """The item's heading path, outermost first, as one line ("" above every heading)."""
    return SEPARATOR.join(h.strip() for h in section if h and h.strip())
