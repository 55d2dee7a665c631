#!/usr/bin/env python3
"""Throughput of every no-LLM classifier variant: items/s over N items (default 100,000) and load time.

Items are the shared dev items (gold_dev + phrasing_dev) cycled to N and numbered so each text is distinct,
read at run time, never copied.
usage: python bench/classify.py [--n 100000] [--variants regex,encoder,trained,cascade] [--workers N]
                                [--teacher PATH] [--cascade-n 2000]
With --teacher (or AAC_TEACHER): the opt-in ``teacher-cascade`` (fast model everywhere, the fine-tuned MiniLM teacher
on the uncertain band) beside the default on the same real items of the cold stream, and the whole stream's time at
each rate (needs the minilm extra).
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
    ap.add_argument("--teacher", default=None, help="teacher weights from `aac classify train-teacher` (default "
                    "$AAC_TEACHER): adds the teacher-cascade's throughput")
    ap.add_argument("--cascade-n", type=int, default=2000, help="real items the teacher-cascade is timed on")
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
    stream = cold_stream()
    teacher = args.teacher or os.environ.get("AAC_TEACHER")
    if not teacher:
        print("teacher-cascade: not measured (no --teacher or AAC_TEACHER; `aac classify train-teacher` writes one)")
    elif stream:
        teacher_cascade_line(stream, teacher, args.cascade_n)


def cold_stream(path: str = "agent_configs_train.jsonl") -> list[ItemInput]:
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
        return []
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
    return stream


def teacher_cascade_line(stream: list[ItemInput], teacher: str, n: int) -> None:
    """The teacher-cascade and the default on the same ``n`` real items (a fixed random sample of the stream), and
    the whole stream's time at each rate: what the slower labels cost a corpus."""
    import random

    from aac.classifiers import features
    from aac.classifiers.teacher_cascade import TeacherCascadeClassifier

    sample = random.Random(0).sample(stream, min(n, len(stream)))
    t0 = time.perf_counter()
    clf = TeacherCascadeClassifier(teacher=teacher)
    load = time.perf_counter() - t0
    rates = {}
    for name, c in ((DEFAULT, get_classifier(DEFAULT)), ("teacher-cascade", clf)):
        features.clear_caches()  # both start cold on these items (the cold stream above warmed them)
        t0 = time.perf_counter()
        for i in range(0, len(sample), 512):
            c.predict(sample[i:i + 512])
        rates[name] = len(sample) / (time.perf_counter() - t0)
    cascade, fast = rates["teacher-cascade"], rates[DEFAULT]
    print(f"teacher-cascade on {len(sample):,} of those items (load {load:.1f} s; teacher on "
          f"{clf.band(sample).mean():.0%} of items, {clf.params}): "
          f"{cascade:,.0f} items/s against {fast:,.0f} for {DEFAULT} (x{cascade / fast:.4f}); the whole stream of "
          f"{len(stream):,} items: {len(stream) / cascade / 60:.1f} min against {len(stream) / fast:.1f} s")


if __name__ == "__main__":
    run_with_docs(main)
