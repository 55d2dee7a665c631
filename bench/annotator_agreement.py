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
The second round on the train files (aac/classifiers/data/annotated_train.jsonl): every other distinct item of
agent_configs_train.jsonl labelled blind by two annotators (round 1 and round 2, eight each, whole repositories per
annotator), 32 gold_train items a batch set slipped in blind (bench/data/annotated_train_gold_checks.jsonl); printed:
each round against gold_train, the two rounds' agreement, and how the constraint lean (an item is C when either
annotator labelled it C or hesitated towards C) moves constraint recall and precision on the blind checks.
The annotated sample's third pass (every item read again blind under the same guidance as the train round, with 32
gold_train items an annotator slipped in as whole-file groups; bench/data/annotated_sample_pass3_gold_checks.jsonl)
is reported against gold_train the same way.
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


def constraint_lean_on_checks(checks: list[dict], gold: dict[str, str]) -> None:
    """C recall / precision on the blind gold checks of each round, of 'either round says C' and of the constraint
    lean the round settles its items with (either round says C or hesitated towards C)."""
    by_item: dict[str, list[dict]] = defaultdict(list)
    for c in checks:
        by_item[c["gold_id"]].append(c)
    rules = {
        "round 1": lambda cs: cs[0]["label"] == "C",
        "round 2": lambda cs: cs[-1]["label"] == "C",
        "either says C": lambda cs: any(c["label"] == "C" for c in cs),
        "constraint lean": lambda cs: any(c["label"] == "C" or c.get("unsure") == "C" for c in cs),
    }
    both = {g: cs for g, cs in by_item.items() if len(cs) >= 2}
    for name, says_c in rules.items():
        tp = sum(says_c(cs) and gold[g] == "C" for g, cs in both.items())
        fn = sum(not says_c(cs) and gold[g] == "C" for g, cs in both.items())
        fp = sum(says_c(cs) and gold[g] != "C" for g, cs in both.items())
        print(f"  {name:<16} C recall {tp / max(1, tp + fn):.2f} precision {tp / max(1, tp + fp):.2f} "
              f"({len(both)} checks, {tp + fn} gold C)")


def train_round(shared: Path) -> None:
    """The rounds checked against gold_train: the train files' two passes and the constraint lean on their blind
    checks, the annotated sample's third pass, then the train files' two passes against each other."""
    from aac.classifiers.datasets import packaged_train_annotations

    path = Path(__file__).parent / "data" / "annotated_train_gold_checks.jsonl"
    gold = {r["id"]: r["label"] for r in map(json.loads, open(shared / "gold_train.jsonl", encoding="utf-8"))}
    checks = [json.loads(line) for line in open(path, encoding="utf-8")]
    print("== second round on the train files")
    for round_ in (1, 2):
        against_gold([c for c in checks if c["round"] == round_], gold, f"train round {round_}")
    constraint_lean_on_checks(checks, gold)
    third = [json.loads(line) for line in open(path.parent / "annotated_sample_pass3_gold_checks.jsonl", encoding="utf-8")]
    against_gold(third, gold, "annotated sample, third pass")
    lean = sum(gold[c["gold_id"]] == "C" and (c["label"] == "C" or c.get("unsure") == "C") for c in third)
    print(f"  with its hesitations towards C: C recall {lean / max(1, sum(gold[c['gold_id']] == 'C' for c in third)):.2f}")
    rows = [json.loads(line) for line in packaged_train_annotations().read_text(encoding="utf-8").splitlines()]
    rep = agreement_report([r["votes"][0] for r in rows], [r["votes"][1] for r in rows])
    settled: dict[str, int] = defaultdict(int)
    for r in rows:
        settled[r["provenance"]] += 1
    print(f"round 1 vs round 2 on {rep['n']} items: observed {rep['observed']:.3f}, kappa five-class "
          f"{rep['kappa_5']:.3f}, constraint-vs-rest {rep['kappa_c']:.3f}; settled: "
          + ", ".join(f"{k} {v}" for k, v in sorted(settled.items()))
          + f"; C {sum(r['label'] == 'C' for r in rows)} of {len(rows)}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_write_docs_flag(ap)
    ap.parse_args()
    gold = {r["id"]: r["label"] for r in map(json.loads, open(shared_data() / "gold_dev.jsonl", encoding="utf-8"))}
    checks = [json.loads(line) for line in open(Path(__file__).parent / "data" / "annotated_gold_checks.jsonl")]
    for round_ in sorted({c.get("round", 1) for c in checks}):
        against_gold([c for c in checks if c.get("round", 1) == round_], gold, f"round {round_}")
    between_annotators()
    if (shared_data() / "gold_train.jsonl").exists():
        train_round(shared_data())


if __name__ == "__main__":
    run_with_docs(main)
