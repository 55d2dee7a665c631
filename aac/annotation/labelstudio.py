"""Label Studio round trip: tasks JSON + labelling config XML out, its JSON export (several annotators) back in.

Task ``data`` carries the item text, its section path and our item id; choices are the five type codes plus a
``meta`` checkbox (pointer-only items, rubric tie-break). The import reads Label Studio's JSON export format
(a list of tasks, each with ``annotations`` whose ``completed_by`` identifies the annotator) and its JSON-MIN
format (one flat object per annotation, ``annotator`` and the choices under ``type`` / ``meta``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterable

from aac.core.labels import parse_type
from aac.core.schema import TYPES

TYPE_NAMES = {"C": "Constraint", "P": "Procedural", "B": "Belief", "F": "Preference", "E": "Episodic"}

LABEL_CONFIG = """<View>
  <Header value="$section"/>
  <Text name="text" value="$text"/>
  <Choices name="type" toName="text" choice="single" showInline="true" required="true">
""" + "".join(f'    <Choice value="{t}" hint="{TYPE_NAMES[t]}"/>\n' for t in TYPES) + """  </Choices>
  <Choices name="meta" toName="text" choice="multiple">
    <Choice value="meta" hint="only points at another file"/>
  </Choices>
</View>
"""


def export_tasks(items: Iterable[dict], out_dir: str | Path) -> tuple[Path, Path]:
    """Write ``tasks.json`` and ``label_config.xml``; items need item_id and text (section_path optional)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    tasks = []
    for it in items:
        section = list(it.get("section_path") or it.get("section") or [])
        tasks.append({"data": {"item_id": it["item_id"], "text": it["text"], "section": " › ".join(section),
                               "section_path": section, "kind": it.get("kind"), "repo": it.get("repo")}})
    tasks_path = out / "tasks.json"
    tasks_path.write_text(json.dumps(tasks, ensure_ascii=False, indent=1), encoding="utf-8")
    config_path = out / "label_config.xml"
    config_path.write_text(LABEL_CONFIG, encoding="utf-8")
    return tasks_path, config_path


def _annotator(ann: dict) -> str:
    who = ann.get("completed_by")
    if isinstance(who, dict):
        who = who.get("email") or who.get("id")
    return str(who if who is not None else "unknown")


def _choices(value) -> list[str]:
    """A choice value as Label Studio writes it: a string, a list, or ``{"choices": [...]}`` (JSON-MIN)."""
    if isinstance(value, dict):
        value = value.get("choices")
    if isinstance(value, str):
        return [value]
    return [str(v) for v in value] if isinstance(value, list) else []


def _row(item_id: str, who: str, label: str, meta: bool, data: dict, round_: int) -> dict:
    from aac.annotation.formats import _place

    return {"item_id": item_id, "annotator": who, "label": label, "meta": meta, "round": round_, **_place(data)}


def _when(ann: dict) -> tuple:
    """Order of one annotator's annotations of a task: the latest update wins."""
    return (str(ann.get("updated_at") or ann.get("created_at") or ""), ann.get("id") or 0)


def _from_json(tasks: list, round_: int) -> tuple[list[dict], list[str]]:
    rows: dict[tuple[str, str], tuple[tuple, dict]] = {}
    problems, superseded, bare = [], 0, 0
    for n, task in enumerate(tasks, 1):
        if not isinstance(task, dict):
            problems.append(f"task {n}: not a JSON object")
            continue
        data = task.get("data") or {}
        item_id = str(data.get("item_id") or task.get("id") or f"task-{n}")
        anns = [a for a in (task.get("annotations") or []) if isinstance(a, dict)]
        if not anns:
            bare += 1
        for ann in anns:
            who = _annotator(ann)
            if ann.get("was_cancelled"):
                problems.append(f"{item_id}: annotation by {who} was cancelled")
                continue
            label, meta = None, False
            for res in ann.get("result") or []:
                if not isinstance(res, dict):
                    continue
                choices = _choices(res.get("value"))
                if res.get("from_name") == "type" and choices:
                    label = parse_type(choices[0])
                elif res.get("from_name") == "meta" and "meta" in choices:
                    meta = True
            if label not in TYPES:
                problems.append(f"{item_id}: annotation by {who} has no valid type")
                continue
            key = (item_id, who)
            if key in rows:
                superseded += 1
                if _when(ann) < rows[key][0]:
                    continue
            rows[key] = (_when(ann), _row(item_id, who, label, meta, data, round_))
    if superseded:
        problems.append(f"{superseded} earlier annotations of a task by the same annotator replaced by the latest")
    if bare:
        problems.append(f"{bare} tasks have no annotations")
    return [r for _, r in rows.values()], problems


def _from_json_min(tasks: list, round_: int) -> tuple[list[dict], list[str]]:
    """Label Studio's JSON-MIN export: one flat object per annotation, the choices under the control names."""
    rows: dict[tuple[str, str], tuple[tuple, dict]] = {}
    problems = []
    for n, task in enumerate(tasks, 1):
        if not isinstance(task, dict):
            problems.append(f"task {n}: not a JSON object")
            continue
        item_id = str(task.get("item_id") or task.get("id") or f"task-{n}")
        who = str(task.get("annotator") if task.get("annotator") is not None else "unknown")
        choices = _choices(task.get("type"))
        label = parse_type(choices[0]) if choices else None
        if label not in TYPES:
            problems.append(f"{item_id}: annotation by {who} has no valid type")
            continue
        key = (item_id, who)
        when = _when(task)
        if key not in rows or when >= rows[key][0]:
            rows[key] = (when, _row(item_id, who, label, "meta" in _choices(task.get("meta")), task, round_))
    return [r for _, r in rows.values()], problems


def import_export(path: str | Path, round_: int = 1) -> tuple[list[dict], list[str]]:
    """Annotation rows (item_id, annotator, label, meta, text, section_path, round) + problems found.

    Reads Label Studio's JSON export (tasks with ``annotations``) and its JSON-MIN export (one flat object per
    annotation). Cancelled annotations, results without a valid type, tasks nobody annotated and an annotator's
    superseded annotations of a task (the latest update is kept) are reported, not silently dropped.
    """
    try:
        tasks = json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not JSON ({exc.msg} at line {exc.lineno})") from None
    if not isinstance(tasks, list):
        raise ValueError(f"{path}: expected a JSON list of Label Studio tasks")
    records = [t for t in tasks if isinstance(t, dict)]
    if records and not any("annotations" in t or "data" in t for t in records):  # JSON-MIN: flat records
        return _from_json_min(tasks, round_)
    return _from_json(tasks, round_)
