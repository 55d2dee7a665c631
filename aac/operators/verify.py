"""The deterministic verifier: every hard-lane constraint must still be in the output.

A constraint's *guard* is its negation/modal marker plus the object phrase it governs ("never" + "commit
secrets repo"). The verifier checks two things per hard-lane constraint: its whitespace-normalised text is
in the output verbatim, and its guard's key tokens survive together; and a constraint whose force comes from a
heading or lead-in ("## Forbidden actions", "**Don't:**") is printed under that governing context (see
``aac.operators.context``). Failing ones are handed back so the operator can restore the original or declare
the result Unsafe.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

import regex as re

from aac.operators.context import governed_presence
from aac.operators.model import Item

_WORD = re.compile(r"[\p{L}\p{N}_]+(?:'[\p{L}]+)?")
_WS = re.compile(r"\s+")
_STOP = frozenset(
    "a an the to of in on at for by with from as and or but if then than that this these those it its is are be "
    "been being was were will would should shall can could may might must do does did have has had you your we our "
    "they their them he she his her i me my any all each every some such so very just also into onto about over "
    "under when while where which who whom what how there here up down out off".split()
)
# Markers that make a sentence a constraint; multi-word ones first so "do not" wins over "do".
_MARKERS = (
    "must not", "mustn't", "do not", "don't", "does not", "doesn't", "should not", "shouldn't", "shall not",
    "cannot", "can't", "can not", "may not", "never", "not", "no", "avoid", "without", "forbidden", "prohibited",
    "only", "always", "must", "required", "require", "requires", "ensure", "should", "important", "critical",
)
_MARKER_RE = re.compile(r"\b(" + "|".join(re.escape(m) for m in _MARKERS) + r")\b", re.IGNORECASE)
_STOP_PHRASE = re.compile(r"[.;!?:\n]|,\s")
OBJECT_WORDS = 4


def norm_ws(text: str) -> str:
    return _WS.sub(" ", text).strip()


def words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


@dataclass(frozen=True)
class Guard:
    marker: tuple[str, ...]  # e.g. ("do", "not")
    obj: tuple[str, ...]  # content words of the governed phrase

    @property
    def key_tokens(self) -> tuple[str, ...]:
        return self.marker + self.obj


def extract_guard(text: str) -> Guard:
    """Negation (or modal) marker + the first content words after it, up to the end of the clause.

    Without a marker the guard is the item's first content words, so every item has checkable key tokens.
    """
    m = _MARKER_RE.search(text)
    if m:
        marker = tuple(words(m.group(1)))
        tail = text[m.end():]
        stop = _STOP_PHRASE.search(tail)
        phrase = tail[: stop.start()] if stop else tail
        obj = [w for w in words(phrase) if w not in _STOP][:OBJECT_WORDS]
        if len(obj) < 2:  # marker near the end of its clause ("force pushes are not allowed"): add what precedes
            clause = _STOP_PHRASE.split(text[: m.start()])[-1]
            before = [w for w in words(clause) if w not in _STOP]
            obj = before[-(OBJECT_WORDS - len(obj)):] + obj if before else obj
        return Guard(marker, tuple(obj))
    return Guard((), tuple([w for w in words(text) if w not in _STOP][:OBJECT_WORDS]))


class OutputIndex:
    """Word positions of an output text, to test whether key tokens survive close together."""

    def __init__(self, text: str):
        self.text = text
        self.norm = norm_ws(text)
        self.words = words(text)
        self.pos: dict[str, list[int]] = {}
        for i, w in enumerate(self.words):
            self.pos.setdefault(w, []).append(i)

    def has_verbatim(self, text: str) -> bool:
        return norm_ws(text) in self.norm

    def has_guard(self, guard: Guard, window: int = 40) -> bool:
        """All key tokens occur within ``window`` words of an occurrence of the first key token."""
        keys = guard.key_tokens
        if not keys:
            return True
        if any(k not in self.pos for k in keys):
            return False
        for start in self.pos[keys[0]]:
            if all(any(abs(p - start) <= window for p in self.pos[k]) for k in keys[1:]):
                return True
        return False


def verbatim_presence(output: str, items: Sequence[Item]) -> dict[str, bool]:
    """Item id -> its whitespace-normalised text occurs in the normalised output.

    Items are searched in source order from where the previous one was found (one linear pass when the output
    keeps source order, as the operators' outputs do), falling back to a whole-text search.
    """
    pos = 0
    found: dict[str, bool] = {}
    normed: str | None = None
    for it in sorted(items, key=lambda i: i.order):
        raw = it.text.strip()
        at = output.find(raw, pos)
        if at >= 0:  # a raw occurrence is also a normalised one
            pos = at + len(raw)
            found[it.id] = True
            continue
        if normed is None:
            normed = norm_ws(output)
        found[it.id] = norm_ws(it.text) in normed
    return found


@dataclass(frozen=True)
class Check:
    item: Item
    verbatim: bool
    guard_ok: bool
    governed: bool = True  # printed under its governing context (True when none governs it)

    @property
    def ok(self) -> bool:
        return self.verbatim and self.guard_ok and self.governed


def verify(output: str, hard_lane: Sequence[Item], types: Iterable[str] = ("C",)) -> list[Check]:
    """One check per hard-lane item of the given types (constraints by default)."""
    idx = OutputIndex(output)
    wanted = set(types)
    checked = [it for it in hard_lane if it.type in wanted or "*" in wanted or it.governing_context]
    governed = governed_presence(output, checked)
    return [Check(it, idx.has_verbatim(it.text), idx.has_guard(extract_guard(it.text)), governed[it.id])
            for it in checked]
