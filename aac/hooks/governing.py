"""The context that governs a rule: the heading path above it ("## Forbidden actions" makes "- Force-push to
main." a prohibition), and the lead-in line of its list when that governs it ("**Don't:**" above the bullets).

One small function on purpose: which lead-in governs is the operator library's decision
(``aac.operators.context.governing_context``, the governing-context model), imported only for items that have a
lead-in so the hook's warm path stays light.
"""

from __future__ import annotations

SEPARATOR = " > "


def governing_context(section: tuple[str, ...], lead_in: str = "") -> str:
    """The item's heading path, outermost first, then its lead-in when the operator library says it governs the
    item, as one line ("" for an item above every heading and under no lead-in)."""
    path = SEPARATOR.join(h.strip() for h in section if h and h.strip())
    lead = (lead_in or "").strip()
    if not lead:
        return path
    from aac.operators.context import governing_context as governed

    if lead not in governed(tuple(section), lead):
        return path
    return f"{path}{SEPARATOR}{lead}" if path else lead
