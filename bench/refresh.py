"""Refresh merge at corpus scale: a crawl with ~1% edited, 0.5% removed and 0.5% new files merged as a version.

    python bench/refresh.py --artifacts 396934
Prints the plan counts, seconds and peak RSS of ``apply_refresh`` (synthetic text only).
"""

from __future__ import annotations

import argparse
import hashlib
import resource
import sys
import tempfile
import time
from pathlib import Path

import pyarrow as pa

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from aac.ids import artifact_id  # noqa: E402
from aac.refresh.versioning import apply_refresh  # noqa: E402
from aac.schema import ARTIFACTS  # noqa: E402
from aac.store import Corpus  # noqa: E402


def rows(n: int, edit_every: int = 0, start: int = 0) -> list[dict]:
    out = []
    for k in range(start, start + n):
        content = f"- rule {k}\n" * 40 + ("- edited\n" if edit_every and k % edit_every == 0 else "")
        out.append(dict(artifact_id=artifact_id(f"o{k % 9000}/r{k}", "CLAUDE.md"), repo=f"o{k % 9000}/r{k}",
                        path="CLAUDE.md", platform="claude", status="kept", content=content,
                        blob_sha=hashlib.sha1(content.encode()).hexdigest()))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--artifacts", type=int, default=50_000)
    n = ap.parse_args().artifacts
    with tempfile.TemporaryDirectory() as tmp:
        corpus = Corpus(Path(tmp) / "c")
        corpus.replace("artifacts", pa.Table.from_pylist(rows(n), schema=ARTIFACTS))
        gone = n // 200
        crawl = rows(n - gone, edit_every=100, start=gone) + rows(n // 200, start=n)  # drop first 0.5%, add 0.5%
        crawled = pa.Table.from_pylist(crawl, schema=ARTIFACTS)
        t = time.perf_counter()
        r = apply_refresh(corpus, crawled)
        secs = time.perf_counter() - t
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"refresh of {n} artifacts: +{r.added} ~{r.changed} -{r.removed} ={r.unchanged} in {secs:.1f}s "
              f"({n / secs:,.0f} artifacts/s); peak RSS {rss:.0f} MiB")


if __name__ == "__main__":
    main()
