"""The instruction files of a project and their typed items, cached by file content hash.

Files are those the platform registry recognises (CLAUDE.md, AGENTS.md, .cursor/rules/*.mdc, copilot instructions,
GEMINI.md, .windsurfrules, .clinerules, ...), at the root and nested; slash commands and sub-agent prompts are not
rules of the session and are skipped. Items come from the pipeline's own segmenter and scope rules, typed by the
default classifier; secrets in an item's text are redacted with the pipeline's secret shapes (typing sees the
original); the hard-lane decision (TypeCompact's: constraints, and abstentions with risk), each item's constraint
risk (what the block keeps first under its budget) and its governing context are computed once, when a file is
first seen, and cached as JSON under the user's cache folder, so a warm call reads JSON only: no segmenter, no
classifier, no numpy.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from aac.hooks.paths import cache_dir, write_atomic

CACHE_VERSION = 2  # 2: records carry the item's constraint risk (the block's priority under the budget)
MAX_FILES = 400  # a project with more instruction files than this is read up to this many (sorted), logged
MAX_FILE_BYTES = 1 << 20
SKIP_DIRS = frozenset({".git", ".hg", ".svn", "node_modules", ".venv", "venv", "env", "__pycache__", ".tox", ".nox",
                       ".mypy_cache", ".pytest_cache", ".ruff_cache", "dist", "build", "target", ".next", ".cache",
                       "vendor", "third_party", "site-packages", ".idea", ".vscode", ".terraform", "coverage"})
NOT_RULES = frozenset({"slash_command", "sub_agent"})
CLASSIFIER = "default"  # the registry name the hooks type with (benches compare others)


@dataclass(frozen=True)
class Rule:
    """One hard-lane item of one instruction file, ready to render."""

    file: str  # project-relative, "/" separators
    line: int
    text: str
    context: str  # the heading path / lead-in that governs it ("" for none)
    scope: tuple[str, ...]
    base: str  # the folder the file governs ("" = the whole project): a nested CLAUDE.md governs its subtree
    ordinal: int
    globs: tuple[tuple[str, tuple[tuple[str, bool], ...]], ...] = ()  # (pattern, ((regex, full_path), ...))
    labelled: bool = False  # the classifier typed it C (else it is in the hard lane by risk, abstention or context)
    risk: float = 0.0  # its constraint risk, p(C) x authority weight: how sure the classifier is it is a constraint


def instruction_files(root: Path) -> list[str]:
    """Project-relative paths of every instruction file under ``root``: the root's own files first (top-level ones
    before those in agent folders), then nested folders'."""
    from aac.core.platforms import BY_NAME, platform_of

    agent_dirs = _agent_dirs()
    found: list[str] = []
    root_s = str(root)
    for dirpath, dirnames, filenames in os.walk(root_s):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.endswith(".egg-info")
                             and (not d.startswith(".") or d in agent_dirs))
        rel_dir = os.path.relpath(dirpath, root_s)
        rel_dir = "" if rel_dir == "." else rel_dir.replace(os.sep, "/")
        for name in filenames:
            if not (name.startswith(".") or name.lower().endswith(CANDIDATE_SUFFIXES)):
                continue  # every registry pattern names a dot-file or a Markdown/YAML file: skip the rest cheaply
            rel = f"{rel_dir}/{name}" if rel_dir else name
            platform = platform_of(rel)
            if platform is None or BY_NAME[platform].function in NOT_RULES:
                continue
            found.append(rel)
    found.sort(key=lambda p: (base_of(p) != "", base_of(p), p.count("/"), p))
    return found[:MAX_FILES]


CANDIDATE_SUFFIXES = (".md", ".mdc", ".yml", ".yaml")


@lru_cache(maxsize=1)
def _agent_dirs() -> frozenset[str]:
    """The hidden folders the registry's patterns look into (.claude, .cursor, .github, ...); other hidden folders
    (.git, .venv, .tox, ...) are not walked."""
    import re

    from aac.core.platforms import PLATFORMS

    return frozenset("." + m for p in PLATFORMS for pat in p.patterns for m in re.findall(r"\\\.([\w-]+)/", pat))


def base_of(rel: str) -> str:
    """The folder a file's rules govern: the folder holding it, or holding its agent folder (``.cursor/rules/x.mdc``
    and ``.github/instructions/y.instructions.md`` govern the folder above ``.cursor`` / ``.github``)."""
    parts = rel.split("/")[:-1]
    for i, part in enumerate(parts):
        if part.startswith(".") and part not in (".", ".."):
            return "/".join(parts[:i])
    return "/".join(parts)


def _stamp(path: Path) -> str:
    try:
        st = path.stat()
        return f"{st.st_size}:{st.st_mtime_ns}"
    except OSError:
        return "missing"


def typing_stamp() -> str:
    """What the cached items depend on besides the file's bytes: the classifier model and the segmenter's code
    (sizes and mtimes, cheap to stat), so an upgrade or a retrained model never serves stale types."""
    import aac.classifiers as clf_pkg
    import aac.hooks as hooks_pkg

    aac_dir = Path(hooks_pkg.__file__).resolve().parent.parent
    from aac.core.config import Settings

    model = Settings.from_env().classifier_model or str(Path(clf_pkg.__file__).parent / "models" / "trained.npz")
    parts = [f"v{CACHE_VERSION}", CLASSIFIER, clf_pkg.DEFAULT, model, _stamp(Path(model))]
    segmenter = sorted(p.relative_to(aac_dir).as_posix() for p in (aac_dir / "core" / "segment").glob("*.py"))
    for rel in (*segmenter, "core/scope.py", "classifiers/linear.py", "operators/compact.py",
                "operators/context.py", "hooks/project.py", "hooks/governing.py"):
        parts.append(_stamp(aac_dir / rel))
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:16]


def _cache_file(key: str) -> Path:
    return cache_dir() / "items" / key[:2] / f"{key}.json"


def load_items(root: Path, files: list[str]) -> dict[str, list[dict]]:
    """Cached item records per file (see ``_records``); files not cached yet are segmented and typed together, in
    one classifier call, and written to the cache."""
    stamp = typing_stamp()
    out: dict[str, list[dict]] = {}
    misses: list[tuple[str, str, str]] = []  # (rel, content, key)
    for rel in files:
        p = root / rel
        try:
            if p.stat().st_size > MAX_FILE_BYTES:
                continue
            raw = p.read_bytes()
        except OSError:
            continue
        key = hashlib.sha256(raw + b"\0" + rel.encode() + b"\0" + stamp.encode()).hexdigest()
        cached = _read_cache(key)
        if cached is not None:
            out[rel] = cached
        else:
            misses.append((rel, raw.decode("utf-8", errors="replace"), key))
    if misses:
        typed = _type_files([(rel, content) for rel, content, _ in misses])
        for (rel, _, key), records in zip(misses, typed):
            out[rel] = records
            try:
                write_atomic(_cache_file(key), json.dumps(records, ensure_ascii=False))
            except OSError:
                pass  # an unwritable cache only makes the next call cold
    return {rel: out[rel] for rel in files if rel in out}


def _read_cache(key: str) -> list[dict] | None:
    try:
        with _cache_file(key).open(encoding="utf-8") as fh:
            data = json.load(fh)
        return data if isinstance(data, list) else None
    except (OSError, ValueError):
        return None


def _type_files(files: list[tuple[str, str]]) -> list[list[dict]]:
    """Segment, scope and type files (the pipeline's segmenter and scope rules, the default classifier)."""
    from aac.classifiers import get_classifier
    from aac.classifiers.base import ItemInput
    from aac.hooks.governing import governing_context
    from aac.operators.compact import hard_lane_of
    from aac.operators.model import item_from_row
    from aac.core.scope import scope_of, topic_of
    from aac.processing.secrets import scrub
    from aac.core.segment import segment_document

    pending: list[tuple[int, object, tuple[str, ...]]] = []
    per_file: list[list[dict]] = [[] for _ in files]
    for n, (rel, content) in enumerate(files):
        try:
            doc = segment_document(content, rel)
        except Exception:  # noqa: BLE001 - one file the segmenter cannot read must not cost the others their rules
            continue
        for s in doc.segments:
            if s.kind == "front_matter":
                continue  # globs/description/alwaysApply: metadata that scopes the file, not a rule
            pending.append((n, s, scope_of(s.section_path, rel, doc.front_matter)))
    if not pending:
        return per_file
    # one process: a worker pool costs 1-2 s to start, more than a project's items take (the user's setting wins)
    from aac.classifiers.parallel import set_worker_count
    from aac.core.config import Settings

    if Settings.from_env().classify_workers is None:
        set_worker_count(1)
    clf = get_classifier(CLASSIFIER)
    preds = clf.predict([ItemInput(s.text, s.section_path, s.kind, "user") for _, s, _ in pending])
    for (n, s, scope), p in zip(pending, preds):
        lead_in = getattr(s, "lead_in", "") or ""  # the list's lead-in line, where the segmenter records one
        row = {"item_id": f"{files[n][0]}#{s.ordinal}", "text": s.text, "kind": s.kind, "lead_in": lead_in,
               "section_path": list(s.section_path), "topic": topic_of(s.section_path), "type": p.label,
               "type_proba": list(p.proba), "abstained": p.abstained, "scope": list(scope), "ordinal": s.ordinal}
        item = item_from_row(row)
        lane = hard_lane_of(item)
        shown = scrub(s.text)  # a key pasted into a rule file is not handed to the agent again
        per_file[n].append({"ordinal": s.ordinal, "line": s.line or 0, "text": shown.text, "kind": s.kind,
                            "redacted": shown.found,
                            "section": list(s.section_path), "topic": row["topic"], "scope": list(scope),
                            "type": p.label, "proba": [round(float(x), 6) for x in p.proba],
                            "abstained": bool(p.abstained), "lane": lane, "risk": round(float(item.risk), 6),
                            "context": governing_context(tuple(s.section_path), lead_in),
                            "globs": {g[5:]: glob_regexes(g[5:]) for g in scope if g.startswith("glob:")}})
    return per_file


def glob_regexes(pattern: str) -> list[list]:
    """The library's glob semantics (``aac.operators.model.glob_matches``) as plain regular expressions, stored in
    the cache so that a warm call matches paths with the standard ``re`` module: [[regex, match_full_path], ...]."""
    from aac.operators.model import _braces, _glob_source

    pattern = pattern.strip().replace("\\", "/").lstrip("/")
    while pattern.startswith("./"):
        pattern = pattern[2:]
    return [[_glob_source(alt), "/" in alt] for alt in _braces(pattern)]


def rules_of(items: dict[str, list[dict]]) -> list[Rule]:
    """The constraint lane (TypeCompact's C lane: constraints, and abstentions with risk) of every file."""
    out = []
    for rel, records in items.items():
        for r in records:
            if r.get("lane") == "C":
                globs = tuple((g, tuple((str(rx), bool(full)) for rx, full in alts))
                              for g, alts in (r.get("globs") or {}).items())
                out.append(Rule(rel, int(r.get("line") or 0), r["text"], r.get("context") or "",
                                tuple(r.get("scope") or ()), base_of(rel), int(r.get("ordinal") or 0), globs,
                                labelled=r.get("type") == "C", risk=float(r.get("risk") or 0.0)))
    return out
