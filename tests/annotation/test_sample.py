"""Stratified sampling of repositories (star band x language) and of their items."""

from __future__ import annotations

import pyarrow as pa

from aac.annotation.sample import allocate, sample_items, sample_repos, star_band
from aac.core.schema import ARTIFACTS, ITEMS, REPOS


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


def test_boundary_sample_takes_items_nearest_the_threshold_capped_per_repo_and_skips_settled_ones(corpus):
    from aac.annotation.sample import boundary_items
    from aac.annotation.store import save

    arts = [{"artifact_id": f"a{i}", "repo": f"o/r{i}", "path": "AGENTS.md"} for i in range(2)]
    p_c = [0.36, 0.40, 0.30, 0.05, 0.99, 0.37, 0.50]  # item a0-k in repo 0 has P(C) p_c[k]; a1-0 in repo 1 has 0.2
    items = [{"item_id": f"a0-{k}", "artifact_id": "a0", "text": f"line {k}", "type_proba": [p, 0.1, 0.1, 0.1, 0.1]}
             for k, p in enumerate(p_c)]
    items += [{"item_id": "a1-0", "artifact_id": "a1", "text": "other", "type_proba": [0.2, 0.2, 0.2, 0.2, 0.2]},
              {"item_id": "a1-1", "artifact_id": "a1", "text": "untyped"}]
    corpus.write_part("artifacts", "p", _table(ARTIFACTS, arts))
    corpus.write_part("items", "p", _table(ITEMS, items))
    got = boundary_items(corpus, n_items=5, threshold=0.36, per_repo=3)
    assert [g["item_id"] for g in got] == ["a0-0", "a0-5", "a0-1", "a1-0"]  # repo 0 capped at 3; untyped left out
    # a0-0 settled by two agreeing annotators leaves; a0-5 labelled once stays for its second vote
    save(corpus, [{"item_id": "a0-0", "annotator": w, "label": "C", "round": 1} for w in ("x", "y")]
         + [{"item_id": "a0-5", "annotator": "x", "label": "F", "round": 1}])
    got = boundary_items(corpus, n_items=5, threshold=0.36, per_repo=3)
    assert [g["item_id"] for g in got] == ["a0-5", "a0-1", "a0-2", "a1-0"]
