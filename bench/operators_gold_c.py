#!/usr/bin/env python3
"""TypeCompact against GOLD constraints: feasible share and verbatim recall of gold C at 50/25/10 % budgets.

`aac eval operators` scores constraint recall against the classifier's own C items; this asks the question that
matters for safety: of the real constraints (gold_dev's adjudicated C items, matched by text to the items of their
files in agent_configs_sample.jsonl), how many reach the hard lane, and how many survive compaction verbatim.
Configurations where TypeCompact is Unsafe (its hard lane alone exceeds the budget) escalate to decompose +
retrieve; they are counted, and their gold C are reported apart.
usage: python bench/operators_gold_c.py [--classifier default]   (AAC_CLASSIFIER_MODEL selects a model)
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench._report import add_write_docs_flag, run_with_docs  # noqa: E402

from aac.classifiers.paths import shared_data  # noqa: E402
from aac.operators.compact import THETA_C, hard_lane_of, type_compact  # noqa: E402
from aac.operators.evaluate import load_configs  # noqa: E402
from aac.operators.verify import norm_ws  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--classifier", default="default")
    add_write_docs_flag(ap)
    args = ap.parse_args()
    gold: dict[str, set[str]] = {}
    for line in open(shared_data() / "gold_dev.jsonl", encoding="utf-8"):
        r = json.loads(line)
        if r["label"] == "C":
            gold.setdefault(f"{r['repo']}/{r['path']}", set()).add(norm_ws(r["text"]))
    configs = load_configs(shared_data() / "agent_configs_sample.jsonl", args.classifier)
    matched = in_hard = 0
    items = hard_items = 0
    per_budget = {b: {"feasible": 0, "kept": 0, "gold": 0, "unsafe_gold": 0} for b in (0.5, 0.25, 0.1)}
    for cfg in configs:
        items += len(cfg.kb.items)
        hard_items += sum(hard_lane_of(i) == "C" for i in cfg.kb.items)
        want = gold.get(cfg.name, set())
        golds = [i for i in cfg.kb.items if norm_ws(i.text) in want]
        matched += len(golds)
        in_hard += sum(hard_lane_of(i) == "C" for i in golds)
        for b, acc in per_budget.items():
            res = type_compact(cfg.kb, b)
            if res.unsafe:
                acc["unsafe_gold"] += len(golds)
                continue
            acc["feasible"] += 1
            out = norm_ws(res.text)
            acc["gold"] += len(golds)
            acc["kept"] += sum(norm_ws(i.text) in out for i in golds)
    print(f"{len(configs)} configurations, {items} items; hard lane (risk >= THETA_C {THETA_C}) holds {hard_items} "
          f"({hard_items / max(1, items):.2f} of items); gold C matched to items: {matched} "
          f"of {sum(map(len, gold.values()))}, in the hard lane: {in_hard} ({in_hard / max(1, matched):.2f})")
    for b, acc in per_budget.items():
        print(f"budget {int(b * 100):>2}%: feasible {acc['feasible']}/{len(configs)} ({acc['feasible'] / len(configs):.2f}); "
              f"gold C kept verbatim {acc['kept']}/{acc['gold']} "
              f"({acc['kept'] / max(1, acc['gold']):.2f}) in feasible configs; {acc['unsafe_gold']} gold C in "
              f"Unsafe (escalated) configs")


if __name__ == "__main__":
    run_with_docs(main)
