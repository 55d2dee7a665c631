"""Segmentation speed and agreement with the annotators' gold items, on the real sample.

usage (from the project root): python -m bench.segment [--repeat N] [--itemize]
Prints files/s, MB/s and items/s for segment() (and for itemize() with the default classifier if asked),
and the share of the 400 gold dev items that are one of our items (text / text+section / line).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from aac.core.segment import comparable_text, segment

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: bench._report
from bench._report import add_write_docs_flag, run_with_docs  # noqa: E402

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"




def gold_agreement(files: dict) -> str:
    path = DATA / "gold_dev_items.jsonl"
    if not path.exists():
        return "gold: gold_dev_items.jsonl not found"
    gold = [json.loads(line) for line in path.open(encoding="utf-8")]
    cache: dict = {}
    text = section = line = inside = 0
    for g in gold:
        key = (g["repo"], g["path"])
        segs = cache.setdefault(key, segment(files[key]["content"], g["path"]))
        want = comparable_text(g["text"])
        hits = [s for s in segs if comparable_text(s.text) == want]
        text += bool(hits)
        section += any(list(s.section_path) == g["section"] for s in hits)
        line += any(s.line == g["line"] for s in hits)
        inside += not hits and any(want in comparable_text(s.text) for s in segs)
    n = len(gold)
    return (f"gold items ({n}): same text {text / n:.3f}, same text+section {section / n:.3f}, "
            f"same text+line {line / n:.3f}, inside a longer item {inside / n:.3f}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--itemize", action="store_true", help="also time itemize_many with the default classifier")
    add_write_docs_flag(ap)
    args = ap.parse_args()
    rows = [json.loads(line) for line in (DATA / "agent_configs_sample.jsonl").open(encoding="utf-8")]
    files = {(r["repo"], r["path"]): r for r in rows}
    mb = sum(len(r["content"].encode()) for r in rows) / 1e6
    segment(rows[0]["content"], rows[0]["path"])  # warm-up
    t0 = time.perf_counter()
    n_items = 0
    for _ in range(args.repeat):
        for r in rows:
            n_items += len(segment(r["content"], r["path"]))
    dt = time.perf_counter() - t0
    nf = len(rows) * args.repeat
    print(f"segment: {nf} files, {n_items} items in {dt:.2f} s: {nf / dt:,.0f} files/s, "
          f"{mb * args.repeat / dt:.2f} MB/s, {n_items / dt:,.0f} items/s (one core)")
    # The paper's corpus: 396,934 files, median ~1.2 KB. Time the sample's 1.2 KB prefixes to extrapolate.
    small = [(r["path"], r["content"][:1200]) for r in rows]
    t0 = time.perf_counter()
    n_small = sum(len(segment(c, p)) for _ in range(args.repeat) for p, c in small)
    dt = time.perf_counter() - t0
    rate = len(small) * args.repeat / dt
    print(f"segment 1.2 KB prefixes: {rate:,.0f} files/s, {n_small / dt:,.0f} items/s; "
          f"396,934 such files ~ {396934 / rate:.0f} s on one core")
    if args.itemize:
        from aac.processing.item_batches import itemize_many

        t0 = time.perf_counter()
        n = sum(b.num_rows for b in itemize_many((str(i), r["path"], r["content"]) for i, r in enumerate(rows)))
        dt = time.perf_counter() - t0
        print(f"itemize_many (default classifier): {n} items in {dt:.2f} s: {n / dt:,.0f} items/s")
    print(gold_agreement(files))


if __name__ == "__main__":
    run_with_docs(main)
