"""Publish throughput on a synthetic processed corpus: rows/s and peak RSS of `build_hub_folder`.

    python bench/publish.py --artifacts 50000 --items-per 25
Generated text is synthetic (no third-party content). Prints one line per phase.
"""

from __future__ import annotations

import argparse
import datetime as dt
import random
import sys
import tempfile
import time
from pathlib import Path

import psutil
import pyarrow as pa

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench._report import add_write_docs_flag, run_with_docs  # noqa: E402

from aac.hub.publish import build_hub_folder  # noqa: E402
from aac.core.ids import artifact_id, item_id  # noqa: E402
from aac.core.schema import ARTIFACTS, ITEMS, REPOS, TYPES  # noqa: E402
from aac.core.store import Corpus  # noqa: E402

PLATFORMS = ["claude", "agents", "cursor", "copilot", "windsurf", "gemini", "cline"]
WORDS = "run test build lint never always prefer use avoid commit deploy module api schema docs".split()


def generate(corpus: Corpus, n_art: int, items_per: int, seed: int = 0) -> None:
    rng = random.Random(seed)
    t0 = dt.datetime(2026, 11, 30, tzinfo=dt.timezone.utc)
    chunk = 20_000
    arts_w = items_w = 0
    for start in range(0, n_art, chunk):
        arts, items = [], []
        for k in range(start, min(n_art, start + chunk)):
            repo = f"owner{k % 5000}/repo{k}"
            path = "CLAUDE.md"
            aid = artifact_id(repo, path)
            lines = [" ".join(rng.choices(WORDS, k=12)) for _ in range(items_per)]
            arts.append(dict(artifact_id=aid, repo=repo, path=path, platform=PLATFORMS[k % len(PLATFORMS)],
                             license_spdx="MIT" if k % 10 else "GPL-3.0-only", status="kept" if k % 7 else "dropped",
                             content="\n".join(f"- {line}" for line in lines), collected_at=t0))
            items += [dict(item_id=item_id(aid, i), artifact_id=aid, ordinal=i, text=line, kind="bullet",
                           section_path=["Rules"], type=TYPES[(k + i) % 5], n_tokens=12) for i, line in enumerate(lines)]
        corpus.write_part("artifacts", f"p{start:09d}", pa.Table.from_pylist(arts, schema=ARTIFACTS))
        corpus.write_part("items", f"p{start:09d}", pa.Table.from_pylist(items, schema=ITEMS))
        arts_w += len(arts)
        items_w += len(items)
    repos = [dict(full_name=f"owner{k % 5000}/repo{k}", license_spdx="MIT", stars=k % 100) for k in range(n_art)]
    corpus.replace("repos", pa.Table.from_pylist(repos, schema=REPOS))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--artifacts", type=int, default=20_000)
    ap.add_argument("--items-per", type=int, default=25)
    add_write_docs_flag(ap)
    args = ap.parse_args()
    proc = psutil.Process()
    with tempfile.TemporaryDirectory() as tmp:
        corpus = Corpus(Path(tmp) / "corpus")
        t = time.perf_counter()
        generate(corpus, args.artifacts, args.items_per)
        print(f"generate: {args.artifacts} artifacts, {args.artifacts * args.items_per} items in {time.perf_counter() - t:.1f}s")
        t = time.perf_counter()
        result = build_hub_folder(corpus, Path(tmp) / "hub")
        dt_s = time.perf_counter() - t
        rows = result.report.rows
        size = sum(p.stat().st_size for p in (Path(tmp) / "hub" / "data").rglob("*.parquet"))
        rss = proc.memory_info().rss if not hasattr(proc.memory_info(), "peak_wset") else proc.memory_info().peak_wset
        try:
            import resource

            rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        except ImportError:
            pass
        print(f"publish: {rows} in {dt_s:.1f}s = {(rows['artifacts'] + rows['items']) / dt_s:,.0f} rows/s; "
              f"shards {size / 2**20:.1f} MiB; held back {result.report.held_back}; peak RSS {rss / 2**20:.0f} MiB")


if __name__ == "__main__":
    run_with_docs(main)
