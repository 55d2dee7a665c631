"""The one GraphQL query shape the collector sends, parsed and answered without a GraphQL library.

Accepted: an optional ``query [Name] [($var: Type!, ...)]`` header, then a selection set whose fields are
(optionally aliased) ``repository(owner: ..., name: ...) { ... }`` with string literals or ``$variables`` as
arguments, and inside them any of the :data:`FIELDS` below (object fields take their own sub-selection).
Commas are whitespace and ``#`` starts a comment, as in GraphQL. Anything else is an error in GitHub's shape:
a syntax error ``Parse error on ... at [line, col]``, an unknown field ``Field 'x' doesn't exist on type
'Repository'`` (code ``undefinedField``), a missing variable ``Variable $x ... was provided invalid value``.
A repository that does not exist gives ``null`` under its alias plus a ``NOT_FOUND`` error naming the path,
as GitHub does ("Could not resolve to a Repository with the name 'o/n'.").
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from . import shapes
from .index import Repo

from aac.core.errors import InputError


class GraphQLError(InputError, ValueError):
    """A query the emulator cannot run; ``error`` is the GitHub-shaped entry of ``errors``."""

    def __init__(self, error: dict):
        super().__init__(error["message"])
        self.error = error


def _lic(repo: Repo) -> dict | None:
    lic = shapes.license_obj(repo.license_spdx)
    return None if lic is None else {"spdxId": lic["spdx_id"], "key": lic["key"], "name": lic["name"]}


# Repository fields: scalar ones map to a value, object ones to a dict of their own scalar fields. The values
# come from the same Repo as the REST body (shapes.repo_obj), so both APIs describe a repository identically.
FIELDS: dict[str, Callable[[Repo], object]] = {
    "id": lambda r: f"MDEwOlJlcG9zaXRvcnk{r.id}",
    "databaseId": lambda r: r.id,
    "name": lambda r: r.name,
    "nameWithOwner": lambda r: r.full_name,
    "url": lambda r: f"https://github.com/{r.full_name}",
    "stargazerCount": lambda r: r.stars,
    "forkCount": lambda r: r.stars // 7,
    "pushedAt": lambda r: r.pushed_at,
    "updatedAt": lambda r: r.pushed_at,
    "createdAt": lambda r: "2021-01-01T00:00:00Z",
    "isFork": lambda r: False,
    "isArchived": lambda r: False,
    "isPrivate": lambda r: False,
    "primaryLanguage": lambda r: {"name": r.language} if r.language else None,
    "licenseInfo": _lic,
    "defaultBranchRef": lambda r: {"name": "main"},
    "owner": lambda r: {"login": r.owner},
}
OBJECT_FIELDS = {"primaryLanguage": ("Language", {"name"}), "licenseInfo": ("License", {"spdxId", "key", "name"}),
                 "defaultBranchRef": ("Ref", {"name"}), "owner": ("RepositoryOwner", {"login"})}

_TOKEN = re.compile(r"""(?P<ws>[\s,]+|\#[^\n]*)|(?P<str>"(?:[^"\\\n]|\\.)*")|(?P<name>[_A-Za-z][_0-9A-Za-z]*)
                        |(?P<var>\$[_A-Za-z][_0-9A-Za-z]*)|(?P<punct>[{}():!\[\]=])""", re.VERBOSE)


@dataclass
class _Tok:
    kind: str
    text: str
    line: int
    col: int


def _tokens(src: str) -> list[_Tok]:
    out, pos, line, line_start = [], 0, 1, 0
    while pos < len(src):
        m = _TOKEN.match(src, pos)
        if m is None:
            raise GraphQLError(_parse_error(f"Parse error on \"{src[pos]}\"", line, pos - line_start + 1))
        if m.lastgroup != "ws":
            out.append(_Tok(m.lastgroup, m.group(), line, pos - line_start + 1))
        for i, ch in enumerate(m.group()):
            if ch == "\n":
                line, line_start = line + 1, pos + i + 1
        pos = m.end()
    return out


def _parse_error(message: str, line: int, col: int) -> dict:
    return {"message": f"{message} at [{line}, {col}]", "locations": [{"line": line, "column": col}]}


@dataclass
class RepoSelection:
    alias: str
    owner: str
    name: str
    fields: list[tuple[str, list[str]]] = field(default_factory=list)  # (field, sub-fields of an object field)
    line: int = 1
    col: int = 1


class _Parser:
    def __init__(self, src: str, variables: dict):
        self.toks = _tokens(src)
        self.i = 0
        self.variables = variables

    def peek(self) -> _Tok | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self, kind: str | None = None, text: str | None = None) -> _Tok:
        t = self.peek()
        if t is None:
            last = self.toks[-1] if self.toks else _Tok("eof", "", 1, 1)
            raise GraphQLError(_parse_error("Parse error on end of file (EOF)", last.line, last.col + len(last.text)))
        if (kind and t.kind != kind) or (text and t.text != text):
            raise GraphQLError(_parse_error(f"Parse error on \"{t.text}\" ({t.kind.upper()})", t.line, t.col))
        self.i += 1
        return t

    def document(self) -> list[RepoSelection]:
        t = self.peek()
        if t is not None and t.kind == "name" and t.text == "query":
            self.take()
            if self.peek() is not None and self.peek().kind == "name":
                self.take()
            if self.peek() is not None and self.peek().text == "(":
                self._variable_definitions()
        out = self._selection_set()
        if self.peek() is not None:
            t = self.peek()
            raise GraphQLError(_parse_error(f"Parse error on \"{t.text}\" ({t.kind.upper()})", t.line, t.col))
        return out

    def _variable_definitions(self) -> None:
        self.take("punct", "(")
        while self.peek() is not None and self.peek().text != ")":
            self.take("var")
            self.take("punct", ":")
            if self.peek() is not None and self.peek().text == "[":
                self.take()
                self.take("name")
                self.take("punct", "]")
            else:
                self.take("name")
            if self.peek() is not None and self.peek().text == "!":
                self.take()
        self.take("punct", ")")

    def _selection_set(self) -> list[RepoSelection]:
        self.take("punct", "{")
        out: list[RepoSelection] = []
        while self.peek() is not None and self.peek().text != "}":
            first = self.take("name")
            alias, fname = first.text, first.text
            if self.peek() is not None and self.peek().text == ":":
                self.take()
                fname = self.take("name").text
            if fname != "repository":
                raise GraphQLError({"message": f"Field '{fname}' doesn't exist on type 'Query'",
                                    "locations": [{"line": first.line, "column": first.col}], "path": ["query", alias],
                                    "extensions": {"code": "undefinedField", "typeName": "Query", "fieldName": fname}})
            args = self._arguments()
            missing = [a for a in ("owner", "name") if a not in args]
            if missing:
                raise GraphQLError({"message": f"Field 'repository' is missing required arguments: {', '.join(missing)}",
                                    "locations": [{"line": first.line, "column": first.col}], "path": ["query", alias],
                                    "extensions": {"code": "missingRequiredArguments", "className": "Field",
                                                   "name": "repository", "arguments": ", ".join(missing)}})
            sel = RepoSelection(alias, args["owner"], args["name"], line=first.line, col=first.col)
            sel.fields = self._repo_fields(alias)
            out.append(sel)
        self.take("punct", "}")
        if not out:
            raise GraphQLError(_parse_error("Parse error on \"}\" (RCURLY)", 1, 1))
        return out

    def _arguments(self) -> dict[str, str]:
        args: dict[str, str] = {}
        self.take("punct", "(")
        while self.peek() is not None and self.peek().text != ")":
            name = self.take("name").text
            self.take("punct", ":")
            t = self.peek()
            if t is not None and t.kind == "var":
                self.take()
                value = self.variables.get(t.text[1:])
                if not isinstance(value, str):
                    raise GraphQLError({"message": f"Variable {t.text} of type String! was provided invalid value",
                                        "locations": [{"line": t.line, "column": t.col}],
                                        "extensions": {"value": value, "problems": [
                                            {"path": [], "explanation": "Expected value to not be null"}]}})
            else:
                value = _string(self.take("str").text)
            args[name] = value
        self.take("punct", ")")
        return args

    def _repo_fields(self, alias: str) -> list[tuple[str, list[str]]]:
        self.take("punct", "{")
        out = []
        while self.peek() is not None and self.peek().text != "}":
            t = self.take("name")
            if t.text not in FIELDS:
                raise GraphQLError({"message": f"Field '{t.text}' doesn't exist on type 'Repository'",
                                    "locations": [{"line": t.line, "column": t.col}],
                                    "path": ["query", alias, t.text],
                                    "extensions": {"code": "undefinedField", "typeName": "Repository",
                                                   "fieldName": t.text}})
            subs: list[str] = []
            if t.text in OBJECT_FIELDS:
                type_name, allowed = OBJECT_FIELDS[t.text]
                self.take("punct", "{")
                while self.peek() is not None and self.peek().text != "}":
                    s = self.take("name")
                    if s.text not in allowed:
                        raise GraphQLError({"message": f"Field '{s.text}' doesn't exist on type '{type_name}'",
                                            "locations": [{"line": s.line, "column": s.col}],
                                            "path": ["query", alias, t.text, s.text],
                                            "extensions": {"code": "undefinedField", "typeName": type_name,
                                                           "fieldName": s.text}})
                    subs.append(s.text)
                self.take("punct", "}")
                if not subs:
                    raise GraphQLError(_parse_error("Parse error on \"}\" (RCURLY)", t.line, t.col))
            out.append((t.text, subs))
        self.take("punct", "}")
        return out


def _string(literal: str) -> str:
    return json.loads(literal)


def parse(query: str, variables: dict | None = None) -> list[RepoSelection]:
    """The repository selections of ``query``; raises :class:`GraphQLError` with GitHub's error entry."""
    return _Parser(query, variables or {}).document()


def execute(selections: list[RepoSelection], find: Callable[[str], Repo | None]) -> dict:
    """The response body: ``data`` per alias (``null`` for a missing repository) and ``errors`` if any."""
    data: dict[str, dict | None] = {}
    errors: list[dict] = []
    for sel in selections:
        repo = find(f"{sel.owner}/{sel.name}")
        if repo is None:
            data[sel.alias] = None
            errors.append({"type": "NOT_FOUND", "path": [sel.alias], "locations": [{"line": sel.line, "column": sel.col}],
                           "message": f"Could not resolve to a Repository with the name '{sel.owner}/{sel.name}'."})
            continue
        obj: dict[str, object] = {}
        for fname, subs in sel.fields:
            value = FIELDS[fname](repo)
            obj[fname] = {s: value.get(s) for s in subs} if isinstance(value, dict) else value
        data[sel.alias] = obj
    return {"data": data, "errors": errors} if errors else {"data": data}
