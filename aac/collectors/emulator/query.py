"""Legacy code-search query syntax: parsing ``q`` into predicates over indexed files.

Supported: ``filename:`` (exact basename, case-insensitive), ``path:`` (a run of consecutive directory
segments anywhere in the file's directory; ``path:/`` = repository root; ``path:/a/b`` anchored at the root),
``extension:``, ``size:`` in bytes (``n``, ``a..b`` inclusive, ``a..*``, ``*..b``, ``>n``, ``>=n``, ``<n``,
``<=n``), ``repo:owner/name``, ``user:``/``org:``, ``language:``, and bare words or "quoted phrases" matched
case-insensitively against path and content. A leading ``-`` negates a qualifier. Several terms AND together
(an explicit ``AND`` is accepted). GitHub's own limits are kept: at most 256 characters of search terms and five
operators. Anything else (``OR``, ``NOT``, unknown qualifiers) is refused (422) rather than silently ignored.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field

from aac.core.errors import InputError

_SIZE = re.compile(r"^(?:(?P<op>>=|<=|>|<)(?P<n>\d+)|(?P<a>\d+|\*)\.\.(?P<b>\d+|\*)|(?P<eq>\d+))$")
_IGNORED = {"in", "fork", "sort", "order", "is"}
KNOWN = ("filename", "path", "extension", "size", "repo", "user", "org", "language")


class QueryError(InputError, ValueError):
    """The query cannot be parsed; answered with 422 Validation Failed."""


@dataclass(frozen=True)
class SizeRange:
    lo: int = 0
    hi: int | None = None  # inclusive; None = unbounded

    def __contains__(self, n: int) -> bool:
        return n >= self.lo and (self.hi is None or n <= self.hi)


def parse_size(text: str) -> SizeRange:
    m = _SIZE.match(text.strip())
    if not m:
        raise QueryError(f"invalid size qualifier {text!r}: use n, a..b, >n, >=n, <n or <=n (bytes)")
    if m["eq"] is not None:
        n = int(m["eq"])
        return SizeRange(n, n)
    if m["op"]:
        n = int(m["n"])
        return {">": SizeRange(n + 1), ">=": SizeRange(n), "<": SizeRange(0, n - 1), "<=": SizeRange(0, n)}[m["op"]]
    lo = 0 if m["a"] == "*" else int(m["a"])
    hi = None if m["b"] == "*" else int(m["b"])
    return SizeRange(lo, hi)


@dataclass(frozen=True)
class Term:
    kind: str  # a qualifier name, or "text"
    value: str
    negated: bool = False


@dataclass(frozen=True)
class Query:
    text: str
    terms: tuple[Term, ...]
    key: str = field(default="")  # normalized form: identical for reordered/re-spaced/re-cased queries

    def predicate(self) -> Callable[[object], bool]:
        checks = [(_CHECKS[t.kind](t.value), t.negated) for t in self.terms]

        def match(f: object) -> bool:
            return all(check(f) != neg for check, neg in checks)

        return match

    def value(self, kind: str) -> str | None:
        """The value of the first positive qualifier ``kind`` (used to narrow candidates through an index)."""
        return next((t.value for t in self.terms if t.kind == kind and not t.negated), None)


def parse_query(q: str) -> Query:
    if q is None or not q.strip():
        raise QueryError("Validation Failed: the q parameter is missing or empty")
    try:
        tokens = shlex.split(q)
    except ValueError as exc:
        raise QueryError(f"cannot parse query {q!r}: {exc}") from None
    operators = [t for t in tokens if t in ("AND", "OR", "NOT")]
    if len(operators) > 5:
        raise QueryError("Validation Failed: a query may have at most five AND, OR or NOT operators")
    if "OR" in operators or "NOT" in operators:
        raise QueryError("OR and NOT are not supported by the emulator; use a '-' qualifier or separate queries")
    tokens = [t for t in tokens if t != "AND"]  # AND is implicit
    free_text = sum(len(t) for t in tokens if ":" not in t)
    if free_text > 256:
        raise QueryError(f"Validation Failed: the query's search terms are {free_text} characters; at most 256")
    terms = []
    for tok in tokens:
        neg = tok.startswith("-") and ":" in tok
        body = tok[1:] if neg else tok
        name, sep, value = body.partition(":")
        name = name.lower()
        if sep and name in KNOWN:
            if not value:
                raise QueryError(f"qualifier {name}: needs a value")
            if name == "size":
                parse_size(value)
            if name == "repo" and "/" not in value:
                raise QueryError(f"repo:{value} must be owner/name")
            terms.append(Term(name, value, neg))
        elif sep and name in _IGNORED:
            continue
        elif sep and re.fullmatch(r"[a-z_]+", name):
            raise QueryError(f"unsupported qualifier {name}: (supported: {', '.join(KNOWN)})")
        else:
            terms.append(Term("text", tok))
    if not terms:
        raise QueryError(f"query {q!r} has no searchable term")
    key = " ".join(sorted(f"{'-' if t.negated else ''}{t.kind}:{t.value.lower()}" for t in terms))
    return Query(q, tuple(terms), key)


def _segments_in(run: tuple[str, ...], dirs: tuple[str, ...]) -> bool:
    n = len(run)
    return any(dirs[i:i + n] == run for i in range(len(dirs) - n + 1))


def _path_check(value: str) -> Callable[[object], bool]:
    v = value.lower()
    if v.strip("/") == "":
        return lambda f: f.dirs == ()
    anchored = v.startswith("/")
    run = tuple(s for s in v.strip("/").split("/") if s)
    if anchored:
        return lambda f: f.dirs[: len(run)] == run
    return lambda f: _segments_in(run, f.dirs)


def _size_check(value: str) -> Callable[[object], bool]:
    r = parse_size(value)
    return lambda f: f.size in r


def _text_check(value: str) -> Callable[[object], bool]:
    v = value.lower()
    return lambda f: v in f.path_lower or v in f.content_lower


_CHECKS: dict[str, Callable[[str], Callable[[object], bool]]] = {
    "filename": lambda v: (lambda f, v=v.lower(): f.name == v),
    "path": _path_check,
    "extension": lambda v: (lambda f, v=v.lower().lstrip("."): f.ext == v),
    "size": _size_check,
    "repo": lambda v: (lambda f, v=v.lower(): f.repo_lower == v),
    "user": lambda v: (lambda f, v=v.lower(): f.owner_lower == v),
    "org": lambda v: (lambda f, v=v.lower(): f.owner_lower == v),
    "language": lambda v: (lambda f, v=v.lower(): (f.language or "").lower() == v),
    "text": _text_check,
}
