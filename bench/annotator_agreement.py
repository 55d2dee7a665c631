#!/usr/bin/env python3
"""How well the annotators of aac/classifiers/data/annotated_sample.jsonl agree with gold_dev's adjudicated labels.

358 gold_dev items (none of the 40 shown to the annotators as calibration examples) were slipped blind into their
batches; bench/data/annotated_gold_checks.jsonl keeps their labels (gold id, annotator, label; no text). Prints
Cohen's kappa five-class and constraint-vs-rest, per-type precision / recall, and accuracy per annotator batch.
usage: python bench/annotator_agreement.py
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from aac.annotation.agreement import agreement_report  # noqa: E402
from aac.classifiers.metrics import prf  # noqa: E402
from aac.classifiers.paths import shared_data  # noqa: E402
from aac.schema import TYPES  # noqa: E402


def main() -> None:
    gold = {r["id"]: r["label"] for r in map(json.loads, open(shared_data() / "gold_dev.jsonl", encoding="utf-8"))}
    checks = [json.loads(line) for line in open(Path(__file__).parent / "data" / "annotated_gold_checks.jsonl")]
    adjudicated = [gold[c["gold_id"]] for c in checks]
    theirs = [c["label"] for c in checks]
    rep = agreement_report(adjudicated, theirs)
    print(f"{rep['n']} blind gold items: observed {rep['observed']:.3f}, kappa five-class {rep['kappa_5']:.3f}, "
          f"constraint-vs-rest {rep['kappa_c']:.3f}")
    for t in TYPES:
        p, r, f = prf(adjudicated, theirs, t)
        print(f"  {t}: precision {p:.2f} recall {r:.2f} F1 {f:.2f} ({adjudicated.count(t)} gold)")
    by = defaultdict(list)
    for c, a in zip(checks, adjudicated):
        by[c["annotator"]].append(c["label"] == a)
    print("accuracy per batch: " + ", ".join(f"{k[-2:]} {sum(v) / len(v):.2f}" for k, v in sorted(by.items())))


if __name__ == "__main__":
    main()
