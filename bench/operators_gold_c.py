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
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench._report import add_write_docs_flag, run_with_docs  # noqa: E402

from aac.classifiers.paths import shared_data  # noqa: E402
from aac.operators.evaluate import load_configs  # noqa: E402
from aac.operators.gold_recall import format_gold_table, gold_constraint_table, load_gold_constraints  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--classifier", default="default")
    add_write_docs_flag(ap)
    args = ap.parse_args()
    gold = load_gold_constraints(shared_data() / "gold_dev.jsonl")
    configs = load_configs(shared_data() / "agent_configs_sample.jsonl", args.classifier)
    print(f"{len(configs)} configurations of agent_configs_sample.jsonl, classifier {args.classifier!r}; "
          f"gold: gold_dev.jsonl's adjudicated constraints")
    print("\n".join(format_gold_table(gold_constraint_table(configs, gold))))


if __name__ == "__main__":
    run_with_docs(main)
