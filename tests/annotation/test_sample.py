"""Stratified sampling of repositories (star band x language) and of their items."""

from __future__ import annotations

import pyarrow as pa

from aac.annotation.sample import allocate, sample_items, sample_repos, star_band
from aac.schema import ARTIFACTS, ITEMS, REPOS


def _table(schema, rows):
    return pa.Table.from_pydict({f.name: [r.get(f.name) for r in rows] for f in schema}, schema=schema)


def test_allocation_is_proportional_with_one_per_stratum():
    alloc = allocate({"big": 90, "mid": 9, "tiny": 1}, 10)
    assert sum(alloc.values()) == 10 and alloc["tiny"] == 1 and alloc["big"] > alloc["mid"]


def test_star_bands():
    assert star_band(None) == "0+" and star_band(150) == "100+" and star_band(50_000) == "10000+"


def test_repo_sample_covers_every_language_and_is_seeded():
    repos = [{"full_name": f"o/py{i}", "stars": i * 10, "language": "Python"} for i in range(40)]
    repos += [{"full_name": "o/rust", "stars": 5, "language": "Rust"}]
    a = sample_repos(repos, 8, seed=1)
    assert len(a) == 8 and "o/rust" in {r["full_name"] for r in a}
    assert a == sample_repos(repos, 8, seed=1)


def test_item_sample_spreads_over_sampled_repositories(corpus):
    repos = [{"full_name": f"o/r{i}", "stars": i, "language": "Go" if i % 2 else "TS"} for i in range(6)]
    arts = [{"artifact_id": f"a{i}", "repo": f"o/r{i}", "path": "AGENTS.md"} for i in range(6)]
    items = [{"item_id": f"a{i}-{j}", "artifact_id": f"a{i}", "ordinal": j, "text": f"line {j}"}
             for i in range(6) for j in range(20)]
    corpus.write_part("repos", "p", _table(REPOS, repos))
    corpus.write_part("artifacts", "p", _table(ARTIFACTS, arts))
    corpus.write_part("items", "p", _table(ITEMS, items))
    got = sample_items(corpus, n_repos=4, n_items=12, seed=0)
    assert len(got) == 12 and len({g["repo"] for g in got}) == 4
    assert all(g["text"].startswith("line") for g in got)
