"""JSON output that every reader can parse back."""

from __future__ import annotations

import math


def finite(value):
    """NaN and infinities as null, at any depth: JSON has no spelling for them (Python's ``NaN`` is not JSON)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [finite(v) for v in value]
    return value
