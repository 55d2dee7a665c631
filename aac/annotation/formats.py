"""The shared dev formats: import gold_dev.jsonl (adjudicated) and per-annotator label files; export the ``gold``
view in gold_dev.jsonl format, which ``aac classify train --gold`` and ``aac eval classifiers --gold`` read."""

from __future__ import annotations

from pathlib import Path

from aac.core.jsonl import read_objects
from aac.core.labels import parse_type
from aac.core.schema import TYPES

from aac.core.gold_view import ADJUDICATOR  # noqa: F401  (re-exported)


def _check(label, where: str) -> str:
    lab = parse_type(label)
    if lab is None:
        raise ValueError(f"{where}: label {label!r} is not one of {', '.join(TYPES)}")
    return lab


def _id(row: dict, where: str) -> str:
    if row.get("id") is None or row.get("id") == "":
        raise ValueError(f"{where}: no 'id'")
    return str(row["id"])


def _line(value) -> int | None:
    return int(value) if isinstance(value, int) or (isinstance(value, str) and value.isdigit()) else None


def _place(row: dict) -> dict:
    """Where an item sits, as gold_dev.jsonl gives it (repo, path, platform, line); export writes it back."""
    section = row.get("section_path") or row.get("section") or []  # Label Studio data: "section" is the joined title
    return {"text": row.get("text"), "section_path": [section] if isinstance(section, str) else list(section),
            "kind": row.get("kind"), "repo": row.get("repo"), "path": row.get("path"),
            "platform": row.get("platform"), "line": _line(row.get("line"))}


def leans_c(row: dict) -> bool:
    """An annotator's hesitation towards C on a label line: ``"leans_c": true`` or ``"unsure": "C"`` (the form of
    the project's packaged rounds)."""
    return row.get("leans_c") is True or str(row.get("unsure") or "").strip().upper() == "C"


def import_gold_jsonl(path: str | Path) -> list[dict]:
    """gold_dev.jsonl -> rows for annotators A, B (when present) and the adjudicated label."""
    out = []
    for n, r in enumerate(read_objects(path), 1):
        where = f"{path}:{n}"
        base = {"item_id": _id(r, where), "meta": bool(r.get("meta")), "round": 1, **_place(r)}
        for who, key in (("A", "label_a"), ("B", "label_b")):
            if r.get(key):
                out.append({**base, "annotator": who, "label": _check(r[key], where)})
        out.append({**base, "annotator": ADJUDICATOR, "label": _check(r.get("label"), where)})
    return out


def import_label_file(path: str | Path, annotator: str, items_path: str | Path | None = None,
                      round_: int = 1) -> list[dict]:
    """A per-annotator label file (id, label, meta, leans_c) joined to its items file (id, text, section, ...);
    ``round_`` keeps a second look by the same annotator apart from the first. A label line may carry its item's
    text itself; rows left without text are for the caller to fill (:func:`aac.annotation.store.fill_text`) or
    refuse."""
    items = {str(r.get("id")): r for r in read_objects(items_path)} if items_path else {}
    out = []
    for n, r in enumerate(read_objects(path), 1):
        item_id = _id(r, f"{path}:{n}")
        place = _place(items.get(item_id) or r)
        label = _check(r.get("label"), f"{path}:{n}")
        out.append({"item_id": item_id, "annotator": annotator, "label": label, "meta": bool(r.get("meta")),
                    "round": round_, **place, "leans_c": leans_c(r) and label != "C"})
    return out


def gold_jsonl_rows(gold: list[dict]) -> list[dict]:
    """Rows of the ``gold`` view (:func:`aac.core.gold_view.gold_rows`) in gold_dev.jsonl format, plus every
    vote, its annotators and how the label was settled (``provenance``)."""
    out = []
    for g in gold:
        votes, who = list(g.get("votes") or []), list(g.get("annotators") or [])
        row = {"id": g["item_id"], "repo": g.get("repo"), "path": g.get("path"), "platform": g.get("platform"),
               "line": g.get("line"), "section": list(g.get("section_path") or []), "kind": g.get("kind"),
               "text": g.get("text"), "label": g["label"], "meta": bool(g.get("meta")),
               "agreed": len(votes) >= 2 and len(set(votes)) == 1, "provenance": g.get("provenance"),
               "votes": votes, "annotators": who}
        if len(votes) >= 2:
            row.update(label_a=votes[0], label_b=votes[1])
        out.append(row)
    return out


def labels_only_rows(gold: list[dict]) -> list[dict]:
    """Rows of the ``gold`` view without their text, in the package's annotated-labels format
    (aac/classifiers/data/annotated_sample.jsonl: ``id`` a hash of the item's text, repo, path, label, who settled it,
    every vote and its annotator), so labels of third-party files can be stored and shipped while the text stays in
    the files: ``aac classify train --annotated FILE --sample FILES.jsonl`` segments those files again to join them.
    Items without a repository and path cannot be joined back and are left out (the caller is told how many)."""
    from aac.core.ids import annotated_item_id

    out = []
    for g in gold:
        if not g.get("repo") or not g.get("path") or not g.get("text"):
            continue
        votes, who = list(g.get("votes") or []), list(g.get("annotators") or [])
        row = {"id": annotated_item_id(g["text"]), "repo": g["repo"], "path": g["path"], "label": g["label"],
               "annotator": ADJUDICATOR if g.get("provenance") == "adjudicated" else (who[0] if who else None),
               "provenance": g.get("provenance")}
        if g.get("meta"):
            row["meta"] = True
        if len(votes) >= 2:
            row.update(votes=votes, annotators=who)
        out.append(row)
    return out
