"""Label Studio round trip: tasks JSON + labelling config XML out, its JSON export (several annotators) back in.

Task ``data`` carries the item text, its section path and our item id; choices are the five type codes plus a
``meta`` checkbox (pointer-only items, rubric tie-break) and an ``unsure`` one, "leans C": the annotator chose
another type but was unsure it is not a constraint (the constraint lean, ``aac annotate lean-c``, counts it as a C
vote). The import reads Label Studio's JSON export format (a list of tasks, each with ``annotations`` whose
``completed_by`` identifies the annotator) and its JSON-MIN format (one flat object per annotation, ``annotator``
and the choices under ``type`` / ``meta`` / ``unsure``).

Checked against a real Label Studio 1.23 (tests/annotation/test_labelstudio_server.py): its project export
(``GET /api/projects/N/export``, JSON and JSON_MIN) names an annotator by the server's numeric user id only, which
means nothing outside that server; an export snapshot made with ``serialization_options``
``{"annotations__completed_by": {"only_id": false}}`` carries the user's e-mail. Ids are turned into names with the
server's user list (``GET /api/users``, :func:`read_users`), else kept as ``label-studio:<id>`` and reported.
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
  <Choices name="unsure" toName="text" choice="multiple">
    <Choice value="leans C" hint="another type, but it may be a constraint"/>
  </Choices>
</View>
"""


def export_tasks(items: Iterable[dict], out_dir: str | Path) -> tuple[Path, Path]:
    """Write ``tasks.json`` and ``label_config.xml``; items need item_id and text (section_path, kind, repo, path,
    platform optional: they come back in the export, so labels keep the file they point into)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    tasks = []
    for it in items:
        section = list(it.get("section_path") or it.get("section") or [])
        tasks.append({"data": {"item_id": it["item_id"], "text": it["text"], "section": " › ".join(section),
                               "section_path": section, "kind": it.get("kind"), "repo": it.get("repo"),
                               "path": it.get("path"), "platform": it.get("platform")}})
    tasks_path = out / "tasks.json"
    tasks_path.write_text(json.dumps(tasks, ensure_ascii=False, indent=1), encoding="utf-8")
    config_path = out / "label_config.xml"
    config_path.write_text(LABEL_CONFIG, encoding="utf-8")
    return tasks_path, config_path


def read_users(path: str | Path) -> dict[str, str]:
    """Label Studio user id -> annotator name, from its ``GET /api/users`` answer (a list of users with ``id`` and
    ``email``/``username``) or a plain ``{"id": "name"}`` object."""
    try:
        raw = json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not JSON ({exc.msg} at line {exc.lineno})") from None
    if isinstance(raw, dict):
        return {str(k): str(v) for k, v in raw.items() if v not in (None, "")}
    if not isinstance(raw, list):
        raise ValueError(f"{path}: expected Label Studio's user list or an object of id -> name")
    out = {}
    for u in raw:
        if isinstance(u, dict) and u.get("id") is not None and (u.get("email") or u.get("username")):
            out[str(u["id"])] = str(u.get("email") or u.get("username"))
    return out


def _annotator(who, users: dict[str, str] | None, unnamed: set[str]) -> str:
    """An annotator's name: the e-mail of an expanded user, a numeric user id through ``users``, else
    ``label-studio:<id>`` (the id is noted in ``unnamed`` so the import can say so)."""
    if isinstance(who, dict):
        if who.get("email") or who.get("username"):
            return str(who.get("email") or who.get("username"))
        who = who.get("id")
    if who is None or who == "":
        return "unknown"
    if isinstance(who, int) or (isinstance(who, str) and who.isdigit()):
        if users and str(who) in users:
            return users[str(who)]
        unnamed.add(str(who))
        return f"label-studio:{who}"
    return str(who)


def _unnamed_problem(unnamed: set[str]) -> list[str]:
    if not unnamed:
        return []
    return [f"annotators known only by Label Studio user id ({', '.join(sorted(unnamed, key=int))}): recorded as "
            "label-studio:<id>; pass --users with the server's GET /api/users answer to record their names"]


def _choices(value) -> list[str]:
    """A choice value as Label Studio writes it: a string, a list, or ``{"choices": [...]}`` (JSON-MIN)."""
    if isinstance(value, dict):
        value = value.get("choices")
    if isinstance(value, str):
        return [value]
    return [str(v) for v in value] if isinstance(value, list) else []


LEANS_C = "leans C"  # the ``unsure`` control's one choice


def _row(item_id: str, who: str, label: str, meta: bool, data: dict, round_: int, leans_c: bool = False) -> dict:
    from aac.annotation.formats import _place

    return {"item_id": item_id, "annotator": who, "label": label, "meta": meta, "round": round_, **_place(data),
            "leans_c": leans_c and label != "C"}


def _when(ann: dict) -> tuple:
    """Order of one annotator's annotations of a task: the latest update wins."""
    return (str(ann.get("updated_at") or ann.get("created_at") or ""), ann.get("id") or 0)


def _from_json(tasks: list, round_: int, users: dict[str, str] | None = None) -> tuple[list[dict], list[str]]:
    rows: dict[tuple[str, str], tuple[tuple, dict]] = {}
    problems, superseded, bare = [], 0, 0
    unnamed: set[str] = set()
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
            who = _annotator(ann.get("completed_by"), users, unnamed)
            if ann.get("was_cancelled"):
                problems.append(f"{item_id}: annotation by {who} was cancelled")
                continue
            label, meta, leans_c = None, False, False
            for res in ann.get("result") or []:
                if not isinstance(res, dict):
                    continue
                choices = _choices(res.get("value"))
                if res.get("from_name") == "type" and choices:
                    label = parse_type(choices[0])
                elif res.get("from_name") == "meta" and "meta" in choices:
                    meta = True
                elif res.get("from_name") == "unsure" and LEANS_C in choices:
                    leans_c = True
            if label not in TYPES:
                problems.append(f"{item_id}: annotation by {who} has no valid type")
                continue
            key = (item_id, who)
            if key in rows:
                superseded += 1
                if _when(ann) < rows[key][0]:
                    continue
            rows[key] = (_when(ann), _row(item_id, who, label, meta, data, round_, leans_c))
    if superseded:
        problems.append(f"{superseded} earlier annotations of a task by the same annotator replaced by the latest")
    if bare:
        problems.append(f"{bare} tasks have no annotations")
    return [r for _, r in rows.values()], problems + _unnamed_problem(unnamed)


def _from_json_min(tasks: list, round_: int, users: dict[str, str] | None = None) -> tuple[list[dict], list[str]]:
    """Label Studio's JSON-MIN export: one flat object per annotation, the choices under the control names."""
    rows: dict[tuple[str, str], tuple[tuple, dict]] = {}
    problems = []
    unnamed: set[str] = set()
    for n, task in enumerate(tasks, 1):
        if not isinstance(task, dict):
            problems.append(f"task {n}: not a JSON object")
            continue
        item_id = str(task.get("item_id") or task.get("id") or f"task-{n}")
        who = _annotator(task.get("annotator"), users, unnamed)
        choices = _choices(task.get("type"))
        label = parse_type(choices[0]) if choices else None
        if label not in TYPES:
            problems.append(f"{item_id}: annotation by {who} has no valid type")
            continue
        key = (item_id, who)
        when = _when(task)
        if key not in rows or when >= rows[key][0]:
            rows[key] = (when, _row(item_id, who, label, "meta" in _choices(task.get("meta")), task, round_,
                                    LEANS_C in _choices(task.get("unsure"))))
    return [r for _, r in rows.values()], problems + _unnamed_problem(unnamed)


def import_export(path: str | Path, round_: int = 1,
                  users: dict[str, str] | None = None) -> tuple[list[dict], list[str]]:
    """Annotation rows (item_id, annotator, label, meta, text, section_path, round) + problems found.

    Reads Label Studio's JSON export (tasks with ``annotations``) and its JSON-MIN export (one flat object per
    annotation). Cancelled annotations, results without a valid type, tasks nobody annotated and an annotator's
    superseded annotations of a task (the latest update is kept) are reported, not silently dropped. ``users``
    (:func:`read_users`) names the annotators a plain export gives by numeric Label Studio user id only.
    """
    try:
        tasks = json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not JSON ({exc.msg} at line {exc.lineno})") from None
    if not isinstance(tasks, list):
        raise ValueError(f"{path}: expected a JSON list of Label Studio tasks")
    records = [t for t in tasks if isinstance(t, dict)]
    if records and not any("annotations" in t or "data" in t for t in records):  # JSON-MIN: flat records
        return _from_json_min(tasks, round_, users)
    return _from_json(tasks, round_, users)
