"""The five item types and reading a label as people write it (no dependencies: the operators, the default
classifier and `pip install aac` without extras import it; ``aac.core.schema`` re-exports the types)."""

from __future__ import annotations

TYPES: tuple[str, ...] = ("C", "P", "B", "F", "E")
TYPE_NAMES: dict[str, str] = {
    "C": "Constraint",
    "P": "Procedural",
    "B": "Belief",
    "F": "Preference",
    "E": "Episodic",
}

_TYPE_BY_NAME = {"c": "C", "p": "P", "b": "B", "f": "F", "e": "E",
                 "constraint": "C", "procedural": "P", "belief": "B", "preference": "F", "episodic": "E"}


def parse_type(value) -> str | None:
    """A type label written as its letter or its full name, in any case ("F", "preference"); None for anything
    else: a first letter alone would read "Preference" as P and "banana" as B."""
    return _TYPE_BY_NAME.get(str(value if value is not None else "").strip().lower())
