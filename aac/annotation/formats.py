"""The shared dev formats: import gold_dev.jsonl (adjudicated) and per-annotator label files; export the ``gold``
view in gold_dev.jsonl format, which ``aac classify train --gold`` and ``aac eval classifiers --gold`` read."""

from __future__ import annotations

import json
from pathlib import Path

from aac.labels import parse_type
from aac.schema import TYPES

from aac.annotation.views import ADJUDICATOR  # noqa: F401  (re-exported)


def _rows(path: str | Path) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _check(label, where: str) -> str:
    lab = parse_type(label)
    if lab is None:
        raise ValueError(f"{where}: label {label!r} is not one of {', '.join(TYPES)}")
    return lab


def import_gold_jsonl(path: str | Path) -> list[dict]:
    """gold_dev.jsonl -> rows for annotators A, B (when present) and the adjudicated label."""
    out = []
    for n, r in enumerate(_rows(path), 1):
        base = {"item_id": r["id"], "meta": bool(r.get("meta")), "round": 1, "text": r.get("text"),
                "section_path": r.get("section") or [], "kind": r.get("kind"), "repo": r.get("repo")}
        for who, key in (("A", "label_a"), ("B", "label_b")):
            if r.get(key):
                out.append({**base, "annotator": who, "label": _check(r[key], f"{path}:{n}")})
        out.append({**base, "annotator": ADJUDICATOR, "label": _check(r["label"], f"{path}:{n}")})
    return out


def import_label_file(path: str | Path, annotator: str, items_path: str | Path | None = None,
                      round_: int = 1) -> list[dict]:
    """A per-annotator label file (id, label, meta) joined to its items file (id, text, section, ...); ``round_``
    keeps a second look by the same annotator apart from the first."""
    items = {r["id"]: r for r in _rows(items_path)} if items_path else {}
    out = []
    for n, r in enumerate(_rows(path), 1):
        it = items.get(r["id"], {})
        out.append({"item_id": r["id"], "annotator": annotator, "label": _check(r.get("label"), f"{path}:{n}"),
                    "meta": bool(r.get("meta")), "round": round_, "text": it.get("text"),
                    "section_path": it.get("section") or [], "kind": it.get("kind"), "repo": it.get("repo")})
    return out


def gold_jsonl_rows(gold: list[dict]) -> list[dict]:
    """Rows of the ``gold`` view (:func:`aac.annotation.store.gold_rows`) in gold_dev.jsonl format, plus every
    vote, its annotators and how the label was settled (``provenance``)."""
    out = []
    for g in gold:
        votes, who = list(g.get("votes") or []), list(g.get("annotators") or [])
        row = {"id": g["item_id"], "repo": g.get("repo"), "section": list(g.get("section_path") or []),
               "kind": g.get("kind"), "text": g.get("text"), "label": g["label"], "meta": bool(g.get("meta")),
               "agreed": len(votes) >= 2 and len(set(votes)) == 1, "provenance": g.get("provenance"),
               "votes": votes, "annotators": who}
        if len(votes) >= 2:
            row.update(label_a=votes[0], label_b=votes[1])
        out.append(row)
    return out
