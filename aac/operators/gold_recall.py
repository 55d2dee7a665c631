"""Constraint recall against GOLD constraints: of the real constraints (adjudicated C labels of a gold file, matched by
text to the items of their configuration files), how many reach the hard lane, and how many TypeCompact keeps verbatim.

Why: the operators' own tables score constraint recall against the classifier's C items, which says nothing about the
constraints the classifier missed. Gold items are matched by whitespace-normalised text within the file they came
from (``repo/path``, the configuration's name), or else to the item that contains them (a gold line of a wrapped
paragraph the segmenter keeps whole); one matched neither way is counted as unmatched, never silently dropped. Configurations where TypeCompact is Unsafe escalate to decompose +
retrieve: their gold constraints are counted apart.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable, Sequence

from aac.core.jsonl import numbered_objects
from aac.operators.compact import THETA_C, hard_lane_of, type_compact
from aac.operators.verify import norm_ws

BUDGETS = (0.5, 0.25, 0.1)


def load_gold_constraints(path: str | Path) -> dict[str, set[str]]:
    """``repo/path`` -> whitespace-normalised texts of the items a gold JSONL file labels C (``label`` field)."""
    gold: dict[str, set[str]] = {}
    for n, r in numbered_objects(path):
        try:
            key, label, text = f"{r['repo']}/{r['path']}", r["label"], r["text"]
        except KeyError as exc:
            raise ValueError(f"{path}:{n}: not a gold record with repo, path, text and label (no {exc})") from None
        if label == "C":
            gold.setdefault(key, set()).add(norm_ws(text))
    return gold


def gold_constraint_table(configs: Sequence, gold: dict[str, set[str]], budgets: Iterable[float] = BUDGETS) -> dict:
    """Hard-lane and verbatim recall of gold constraints over ``configs`` (objects with ``name`` and ``kb``)."""
    budgets = tuple(budgets)
    names = {c.name for c in configs}
    n_gold = sum(len(texts) for key, texts in gold.items() if key in names)
    items = hard_items = matched = inside = in_hard = 0
    rows = {b: {"feasible": 0, "kept": 0, "in_feasible": 0, "in_unsafe": 0} for b in budgets}
    for cfg in configs:
        items += len(cfg.kb.items)
        hard_items += sum(hard_lane_of(i) == "C" for i in cfg.kb.items)
        golds = _match(cfg.kb.items, gold.get(cfg.name, ()))
        matched += len(golds)
        inside += sum(not exact for _, _, exact in golds)
        in_hard += sum(hard_lane_of(item) == "C" for _, item, _ in golds)
        for b, row in rows.items():
            res = type_compact(cfg.kb, b)
            if res.unsafe:
                row["in_unsafe"] += len(golds)
                continue
            row["feasible"] += 1
            out = norm_ws(res.text)
            row["in_feasible"] += len(golds)
            row["kept"] += sum(text in out for text, _, _ in golds)
    return {"theta_c": THETA_C, "n_configs": len(configs), "n_items": items, "hard_lane_items": hard_items,
            "n_gold_in_configs": n_gold, "matched": matched, "matched_inside": inside, "in_hard_lane": in_hard,
            "budgets": {str(b): row for b, row in rows.items()}}


def _match(items: Sequence, want: Iterable[str]) -> list[tuple[str, object, bool]]:
    """(gold text, the item standing for it, matched exactly?) for each gold text found among ``items``."""
    by_text = {}
    for item in items:
        by_text.setdefault(norm_ws(item.text), item)
    out = []
    for text in sorted(want):
        item = by_text.get(text)
        if item is not None:
            out.append((text, item, True))
            continue
        item = next((i for t, i in by_text.items() if text in t), None)
        if item is not None:
            out.append((text, item, False))
    return out


def _ratio(a: int, b: int) -> str:
    return f"{a / b:.2f}" if b else "—"


def format_gold_table(g: dict) -> list[str]:
    """Plain-text lines for :func:`gold_constraint_table`'s result."""
    lines = [f"Gold constraints: {g['matched']} of {g['n_gold_in_configs']} gold C of these files matched to items "
             f"({g['matched_inside']} inside a longer item); "
             f"in the hard lane (risk >= THETA_C {g['theta_c']:.4g}): {g['in_hard_lane']} "
             f"({_ratio(g['in_hard_lane'], g['matched'])}); the hard lane holds {g['hard_lane_items']} of "
             f"{g['n_items']} items ({_ratio(g['hard_lane_items'], g['n_items'])})",
             f"{'budget':<8}{'feasible':>10}{'gold C kept verbatim':>22}{'gold C escalated':>18}"]
    for b, row in g["budgets"].items():
        lines.append(f"{int(float(b) * 100):>3}%    {row['feasible']:>5}/{g['n_configs']:<4}"
                     f"{row['kept']:>11}/{row['in_feasible']:<4}{'(' + _ratio(row['kept'], row['in_feasible']) + ')':>7}"
                     f"{row['in_unsafe']:>12}")
    lines.append("(kept verbatim: gold C of feasible files found whitespace-normalised in TypeCompact's output; "
                 "escalated: gold C of files where TypeCompact is Unsafe and decompose + retrieve take over)")
    return lines
