"""A digest of the code a computation depends on, so stored results are redone when that code changes.

Incremental processing keeps a pass's output while the pass's inputs are unchanged. Its *code* is an input too:
a hand-bumped version number is forgotten sooner or later, and then a refresh silently keeps rows the new code
would write differently. :func:`code_digest` hashes the source of the given ``aac`` modules and of every ``aac``
module they import (at any depth, imports inside functions included, found by parsing the source, not by
importing it), plus the installed versions of the third-party distributions named, whose behaviour the output
also rests on (e.g. detect-secrets' plugins). Editing a comment in one of those modules re-runs the pass once:
a little wasted work, never a stale row.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.metadata
import importlib.util
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path


def _source_path(module: str) -> Path:
    """The file a module is loaded from (source, or bytecode in a source-less install)."""
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None or not Path(spec.origin).is_file():
        raise ValueError(f"no Python source for module {module!r}")
    return Path(spec.origin)


def _own_imports(module: str, source: str) -> set[str]:
    """The modules of ``module``'s own top-level package that ``source`` imports (absolute or relative)."""
    top = module.split(".")[0]
    package = module if _source_path(module).name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == top)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - (node.level - 1)]
                base = ".".join(parts + ([base] if base else []))
            if base.split(".")[0] != top:
                continue
            found.add(base)
            if _is_package(base):  # `from aac.processing import segment` imports a module, not a name
                found.update(f"{base}.{a.name}" for a in node.names
                             if importlib.util.find_spec(f"{base}.{a.name}") is not None)
    return found


def _is_package(module: str) -> bool:
    spec = importlib.util.find_spec(module)
    return spec is not None and spec.submodule_search_locations is not None


def module_closure(roots: Iterable[str], exclude: Iterable[str] = ()) -> list[str]:
    """``roots`` and every module of their own package they import transitively, sorted; modules under a prefix in
    ``exclude`` are left out and not followed (their changes are tracked some other way)."""
    skip = tuple(exclude)
    seen: set[str] = set()
    todo = list(roots)
    while todo:
        mod = todo.pop()
        if mod in seen or any(mod == p or mod.startswith(p + ".") for p in skip):
            continue
        seen.add(mod)
        path = _source_path(mod)
        if path.suffix == ".py":  # bytecode is hashed as it is; its imports cannot be read without importing it
            todo.extend(_own_imports(mod, path.read_text(encoding="utf-8")))
    return sorted(seen)


@lru_cache(maxsize=None)
def _digest(roots: tuple[str, ...], distributions: tuple[str, ...], exclude: tuple[str, ...]) -> str:
    h = hashlib.sha256()
    for mod in module_closure(roots, exclude):
        h.update(mod.encode() + b"\0" + _source_path(mod).read_bytes() + b"\0")
    for dist in distributions:
        try:
            version = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            version = "absent"
        h.update(f"{dist}=={version}\0".encode())
    return h.hexdigest()[:16]


def code_digest(roots: Iterable[str], distributions: Iterable[str] = (), exclude: Iterable[str] = ()) -> str:
    """16 hex digits that change whenever the source of ``roots`` (with their ``aac`` imports, minus
    ``exclude``) or the installed version of one of ``distributions`` changes. Cached per process."""
    return _digest(tuple(sorted(roots)), tuple(sorted(distributions)), tuple(sorted(exclude)))
