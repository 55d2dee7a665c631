"""Label Studio round trip: tasks JSON + labelling config XML out, its JSON export (several annotators) back in.

Task ``data`` carries the item text, its section path and our item id; choices are the five type codes plus a
``meta`` checkbox (pointer-only items, rubric tie-break). The import reads Label Studio's JSON export format:
a list of tasks, each with ``annotations`` whose ``completed_by`` identifies the annotator.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterable

from aac.labels import parse_type
from aac.schema import TYPES

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


def import_export(path: str | Path, round_: int = 1) -> tuple[list[dict], list[str]]:
    """Annotation rows (item_id, annotator, label, meta, text, section_path, round) + problems found.

    Cancelled annotations and results without a valid type are reported, not silently dropped.
    """
    tasks = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(tasks, list):
        raise ValueError(f"{path}: expected a JSON list of Label Studio tasks")
    rows, problems = [], []
    for task in tasks:
        data = task.get("data", {})
        item_id = data.get("item_id") or str(task.get("id"))
        for ann in task.get("annotations", []):
            who = _annotator(ann)
            if ann.get("was_cancelled"):
                problems.append(f"{item_id}: annotation by {who} was cancelled")
                continue
            label, meta = None, False
            for res in ann.get("result", []):
                choices = (res.get("value") or {}).get("choices") or []
                if res.get("from_name") == "type" and choices:
                    label = parse_type(choices[0])
                elif res.get("from_name") == "meta" and "meta" in choices:
                    meta = True
            if label not in TYPES:
                problems.append(f"{item_id}: annotation by {who} has no valid type")
                continue
            rows.append({"item_id": item_id, "annotator": who, "label": label, "meta": meta, "round": round_,
                         "text": data.get("text"), "section_path": data.get("section_path") or [],
                         "kind": data.get("kind"), "repo": data.get("repo")})
    return rows, problems
