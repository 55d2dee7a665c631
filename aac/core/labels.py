"""Reading a five-type label as people write it (no dependencies: the operators import it too)."""

from __future__ import annotations

_TYPE_BY_NAME = {"c": "C", "p": "P", "b": "B", "f": "F", "e": "E",
                 "constraint": "C", "procedural": "P", "belief": "B", "preference": "F", "episodic": "E"}


def parse_type(value) -> str | None:
    """A type label written as its letter or its full name, in any case ("F", "preference"); None for anything
    else: a first letter alone would read "Preference" as P and "banana" as B."""
    return _TYPE_BY_NAME.get(str(value if value is not None else "").strip().lower())
