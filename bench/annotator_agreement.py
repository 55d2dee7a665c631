#!/usr/bin/env python3
"""How well the annotators of aac/classifiers/data/annotated_sample.jsonl agree with gold_dev's adjudicated labels
and with each other.

Round 1: 358 gold_dev items (none of the 40 shown to the annotators as calibration examples) were slipped blind
into the first annotators' batches. Round 2: the 408 items the first round called C and the 392 non-C items the
model scored most C-like were labelled again, blind, by second annotators, with 100 gold_dev items (every gold
constraint outside the calibration set, the rest drawn at random) slipped in; where the two disagreed a third
annotator labelled the item blind and the majority stands (the file keeps every vote). bench/data/
annotated_gold_checks.jsonl keeps the gold checks' labels (gold id, annotator, label, round; no text). Prints, per
round, Cohen's kappa five-class and constraint-vs-rest against gold, per-type precision / recall and accuracy per
batch; then the first and second annotators' agreement on the items both labelled, and how the ties were broken.
usage: python bench/annotator_agreement.py
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench._report import add_write_docs_flag, run_with_docs  # noqa: E402

from aac.annotation.agreement import agreement_report  # noqa: E402
from aac.classifiers.datasets import packaged_annotations  # noqa: E402
from aac.classifiers.metrics import prf  # noqa: E402
from aac.classifiers.paths import shared_data  # noqa: E402
from aac.core.schema import TYPES  # noqa: E402


def against_gold(checks: list[dict], gold: dict[str, str], title: str) -> None:
    adjudicated = [gold[c["gold_id"]] for c in checks]
    theirs = [c["label"] for c in checks]
    rep = agreement_report(adjudicated, theirs)
    print(f"{title}: {rep['n']} blind gold items: observed {rep['observed']:.3f}, kappa five-class "
          f"{rep['kappa_5']:.3f}, constraint-vs-rest {rep['kappa_c']:.3f}")
    for t in TYPES:
        p, r, f = prf(adjudicated, theirs, t)
        print(f"  {t}: precision {p:.2f} recall {r:.2f} F1 {f:.2f} ({adjudicated.count(t)} gold)")
    by = defaultdict(list)
    for c, a in zip(checks, adjudicated):
        by[c["annotator"]].append(c["label"] == a)
    print("  accuracy per batch: " + ", ".join(f"{k[6:]} {sum(v) / len(v):.2f}" for k, v in sorted(by.items())))


def between_annotators() -> None:
    rows = [json.loads(line) for line in packaged_annotations().read_text(encoding="utf-8").splitlines()]
    both = [r for r in rows if len(r.get("votes", [])) >= 2]
    if not both:
        return
    rep = agreement_report([r["votes"][0] for r in both], [r["votes"][1] for r in both])
    tied = [r for r in both if len(r["votes"]) > 2]
    moved = sum(r["label"] != r["votes"][0] for r in both)
    print(f"first vs second annotator on {rep['n']} items labelled twice: observed {rep['observed']:.3f}, kappa "
          f"five-class {rep['kappa_5']:.3f}, constraint-vs-rest {rep['kappa_c']:.3f}; {len(tied)} disagreements "
          f"broken by a third blind vote, {moved} labels changed "
          f"(C {sum(r['votes'][0] == 'C' for r in both)} -> {sum(r['label'] == 'C' for r in both)})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_write_docs_flag(ap)
    ap.parse_args()
    gold = {r["id"]: r["label"] for r in map(json.loads, open(shared_data() / "gold_dev.jsonl", encoding="utf-8"))}
    checks = [json.loads(line) for line in open(Path(__file__).parent / "data" / "annotated_gold_checks.jsonl")]
    for round_ in sorted({c.get("round", 1) for c in checks}):
        against_gold([c for c in checks if c.get("round", 1) == round_], gold, f"round {round_}")
    between_annotators()


if __name__ == "__main__":
    run_with_docs(main)
