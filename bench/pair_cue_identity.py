#!/usr/bin/env python3
"""Word pairs tested only against the cue branches across their space give the same features as testing them
against whole families: a check on every real item the project has.

Items: every segmented item (with its list lead-in) of agent_configs_sample.jsonl and agent_configs_train.jsonl,
gold_dev, gold_train, phrasing_dev, the package's multilingual phrasing set and own examples, read at run time.
Per item it compares the type features and constraint-stage features (:func:`aac.classifiers.features.item_tokens`
with its risk tokens) and :func:`aac.classifiers.risk.text_families` (the text's own ``\\w+`` split and the
featuriser's) between

- this code, and the reference: this code with pairs tested against the whole families (what it did before
  :mod:`aac.classifiers.spanning`), in the same process, caches cleared in between (the default); or
- with ``--against REV``, the code of git revision REV (its ``aac`` package exported to a temporary directory and
  run in a subprocess), e.g. the commit before the change.

Token lists are compared as sorted lists (they are hashed into a set; a set of cue names may iterate in another
order). Prints the item count and the number of items that differ (0 expected), and exits 1 when any differs.
usage: python bench/pair_cue_identity.py [--against REV]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import pickle
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CONFIG_FILES = ("agent_configs_sample.jsonl", "agent_configs_train.jsonl")


def load_items() -> tuple[list, dict[str, int]]:
    """Every distinct item of the real data sets, in a fixed order, and how many each set brought."""
    from aac.classifiers.base import ItemInput
    from aac.classifiers.context import with_lead_ins
    from aac.classifiers.datasets import (heldout_own, load_gold, load_multilingual_phrasing, load_phrasing,
                                          own_examples)
    from aac.classifiers.paths import shared_data
    from aac.core.segment import segment

    items: list = []
    seen: set = set()
    counts: dict[str, int] = {}

    def add(name: str, new) -> None:
        n = 0
        for it in new:
            if it not in seen:
                seen.add(it)
                items.append(it)
                n += 1
        counts[name] = n

    for name in CONFIG_FILES:
        src = shared_data() / name
        if not src.exists():
            counts[name] = 0
            continue
        segs, files = [], []
        with open(src, encoding="utf-8") as f:
            for n, line in enumerate(f):
                r = json.loads(line)
                for s in segment(str(r.get("content", "")), str(r.get("path", ""))):
                    segs.append(ItemInput(s.text, tuple(s.section_path), s.kind))
                    files.append(n)
        add(name, with_lead_ins(segs, files))
    for name in ("gold_dev.jsonl", "gold_train.jsonl"):
        if (shared_data() / name).exists():
            add(name, [d.item for d in load_gold(shared_data() / name)])
    if (shared_data() / "phrasing_dev.jsonl").exists():
        add("phrasing_dev.jsonl", [d.item for d in load_phrasing(shared_data() / "phrasing_dev.jsonl")])
    add("phrasing_multilingual", [d.item for d in load_multilingual_phrasing()])
    add("own examples", [d.item for d in own_examples() + heldout_own()])
    return items, counts


def item_features(item) -> tuple[list[str], list[str], list[str], list[str]]:
    """Sorted type tokens, risk tokens, and text families (own split, featuriser's split) of one item."""
    from aac.classifiers import features, risk

    risk_toks: list[str] = []
    words: list[list[str]] = []
    toks = features.item_tokens(item, risk=risk_toks, words_out=words)
    return (sorted(toks), sorted(risk_toks), sorted(risk.text_families(item.text or "")),
            sorted(risk.text_families(item.text or "", words[0])))


def digests(items) -> list[str]:
    from aac.classifiers import features

    features.clear_caches()
    return [hashlib.sha1(json.dumps(item_features(it)).encode()).hexdigest() for it in items]


def reference_digests(items) -> list[str]:
    """:func:`digests` with word pairs tested against whole families, as before :mod:`aac.classifiers.spanning`."""
    from aac.classifiers import features, risk

    saved = (features.PAIR_CUES, risk._PAIR_FAMILIES, risk._PAIR_ANY)
    features.PAIR_CUES = features.WORD_CUES
    risk._PAIR_FAMILIES, risk._PAIR_ANY = risk._FAMILIES, risk._ANY
    try:
        return digests(items)
    finally:
        features.PAIR_CUES, risk._PAIR_FAMILIES, risk._PAIR_ANY = saved
        features.clear_caches()


def revision_digests(rev: str) -> list[str]:
    """:func:`digests` computed by the ``aac`` package of git revision ``rev`` (in a subprocess, reading the same
    shared data)."""
    from aac.classifiers.paths import shared_data

    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "archive", rev, "aac"], cwd=REPO, check=True, capture_output=True).stdout
        tar = Path(tmp) / "aac.tar"
        tar.write_bytes(archive)
        with tarfile.open(tar) as t:
            t.extractall(tmp, filter="data")
        out = Path(tmp) / "digests.pkl"
        subprocess.run([sys.executable, __file__, "--dump", str(out), "--code", tmp], check=True,
                       env={**os.environ, "PYTHONPATH": tmp, "AAC_SHARED_DATA": str(shared_data())})
        return pickle.loads(out.read_bytes())


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--against", metavar="REV", help="compare with the aac package of this git revision")
    ap.add_argument("--dump", help=argparse.SUPPRESS)  # internal: write this code's digests to a file
    ap.add_argument("--code", help=argparse.SUPPRESS)  # internal: the directory whose aac package to import
    args = ap.parse_args()
    sys.path.insert(0, args.code or str(REPO))
    items, counts = load_items()
    if args.dump:
        import aac

        print(f"reference: the aac package in {Path(aac.__file__).parent}", flush=True)
        Path(args.dump).write_bytes(pickle.dumps(digests(items)))
        return
    import aac

    print(f"{len(items):,} distinct items: " + ", ".join(f"{k} {v:,}" for k, v in counts.items()))
    t0 = time.perf_counter()
    new = digests(items)
    t_new = time.perf_counter() - t0
    t0 = time.perf_counter()
    old = revision_digests(args.against) if args.against else reference_digests(items)
    t_old = time.perf_counter() - t0
    what = f"the aac package of {args.against}" if args.against else "pairs tested against whole families"
    diff = [i for i, (a, b) in enumerate(zip(new, old)) if a != b]
    if len(new) != len(old):
        raise SystemExit(f"item counts differ: {len(new)} here, {len(old)} in the reference")
    print(f"compared with {what} ({Path(aac.__file__).parent} vs reference): {len(items):,} items, "
          f"{len(diff)} differ (features.item_tokens with risk tokens, risk.text_families); "
          f"cold featurisation {t_new:.1f} s here, {t_old:.1f} s reference")
    for i in diff[:10]:
        print("  differs:", json.dumps(items[i].text[:200], ensure_ascii=False))
    if diff:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
