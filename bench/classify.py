#!/usr/bin/env python3
"""Throughput of every no-LLM classifier variant: items/s over N items (default 100,000) and load time.

Items are the shared dev items (gold_dev + phrasing_dev) cycled to N and numbered so each text is distinct,
read at run time, never copied.
usage: python bench/classify.py [--n 100000] [--variants regex,encoder,trained,cascade] [--workers N]
Target: the default classifier >= 10,000 items/s on the project's 2-core machine. The trained model (and the
cascade built on it) scores a big batch on every core (aac.classifiers.parallel); ``--workers 1`` measures one
process (it sets AAC_CLASSIFY_WORKERS).
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench._report import add_write_docs_flag, run_with_docs  # noqa: E402

from aac.classifiers.base import DEFAULT, NO_LLM, ItemInput, get_classifier  # noqa: E402
from aac.classifiers.datasets import load_gold, load_phrasing  # noqa: E402
from aac.classifiers.paths import shared_data  # noqa: E402

TARGET = 10_000


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--variants", default=",".join(NO_LLM))
    ap.add_argument("--batch", type=int, default=4096)
    ap.add_argument("--workers", type=int, default=None, help="processes for a big batch (default: every usable CPU)")
    add_write_docs_flag(ap)
    args = ap.parse_args()
    if args.workers is not None:
        os.environ["AAC_CLASSIFY_WORKERS"] = str(args.workers)
    base = [d.item for d in load_gold(shared_data() / "gold_dev.jsonl") + load_phrasing(shared_data() / "phrasing_dev.jsonl")]
    # every item made distinct (a numbered suffix), so no per-text cache can flatter the figures
    items = [replace(it, text=f"{it.text} (#{n})")
             for n, it in enumerate(itertools.islice(itertools.cycle(base), args.n))]
    from aac.classifiers.parallel import worker_count

    print(f"{args.n} items; default = {DEFAULT}; target for the default: >= {TARGET} items/s; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (other processes share them); "
          f"trained/cascade batches of {args.batch} on {worker_count()} process(es)")
    from aac.classifiers import features

    # the worker pool starts once per process: started here and reported, not charged to whichever variant is first
    t0 = time.perf_counter()
    warm = [replace(it, text=f"{it.text} (warm-up #{n})") for n, it in enumerate(items[:args.batch])]
    get_classifier(DEFAULT).predict(warm)
    print(f"worker pool and default model started in {time.perf_counter() - t0:.2f} s (not in the figures below)")
    print(f"{'variant':10} {'load s':>8} {'items/s':>10} {'x target':>9}")

    for name in args.variants.split(","):
        features.clear_caches()  # each variant starts cold, as in a fresh process
        t0 = time.perf_counter()
        clf = get_classifier(name)
        load = time.perf_counter() - t0
        t0 = time.perf_counter()
        for i in range(0, len(items), args.batch):
            clf.predict(items[i:i + args.batch])
        rate = len(items) / (time.perf_counter() - t0)
        flag = " (default)" if name == DEFAULT else ""
        print(f"{name:10} {load:8.2f} {rate:10.0f} {rate / TARGET:9.2f}{flag}")
    cold_stream()


def cold_stream(path: str = "agent_configs_train.jsonl") -> None:
    """The default on real items it has never seen, each distinct text once, caches cleared, in this one process.

    The table above cycles the dev items, so after the first few hundred the per-word caches (cue and risk families,
    hashes) are warm; a corpus brings new words all the time, so this line shows the other end of the range."""
    import json

    from aac.classifiers import features
    from aac.classifiers.parallel import set_worker_count, worker_count
    from aac.core.segment import segment

    src = shared_data() / path
    if not src.exists():
        print(f"cold stream: skipped ({src} absent)")
        return
    seen: set[str] = set()
    stream: list[ItemInput] = []
    with open(src, encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            for s in segment(str(r.get("content", "")), str(r.get("path", ""))):
                if s.text not in seen:
                    seen.add(s.text)
                    stream.append(ItemInput(s.text, tuple(s.section_path), s.kind))
    before = worker_count()
    set_worker_count(1)
    try:
        features.clear_caches()
        clf = get_classifier(DEFAULT)
        t0 = time.perf_counter()
        for i in range(0, len(stream), 4096):
            clf.predict(stream[i:i + 4096])
        rate = len(stream) / (time.perf_counter() - t0)
    finally:
        set_worker_count(before)
    print(f"cold stream: {DEFAULT} on the {len(stream):,} distinct segmented items of {path} (never seen by this "
          f"process, caches cleared, 1 process): {rate:,.0f} items/s")


if __name__ == "__main__":
    run_with_docs(main)
