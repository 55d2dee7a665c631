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


def test_sample_leaves_out_holdout_repos_and_labelled_items_and_leans_to_preferred_ones(corpus, tmp_path):
    import hashlib
    import json

    from typer.testing import CliRunner

    from aac.cli import app

    arts = [{"artifact_id": f"a{i}", "repo": f"o/r{i}", "path": "AGENTS.md", "platform": "universal"} for i in range(3)]
    items = []
    for i in range(3):
        for j in range(30):
            heading = ["Forbidden"] if j < 3 else ["Setup"]
            text = f"Não faça isso {j}" if j in (3, 4) else f"line {j}"
            items.append({"item_id": f"a{i}-{j}", "artifact_id": f"a{i}", "ordinal": j, "text": text,
                          "section_path": heading})
    items.append({"item_id": "a0-30", "artifact_id": "a0", "ordinal": 30, "text": "Never:", "section_path": ["Git"]})
    items.append({"item_id": "a0-31", "artifact_id": "a0", "ordinal": 31, "text": "force-push", "section_path": ["Git"]})
    corpus.write_part("artifacts", "p", _table(ARTIFACTS, arts))
    corpus.write_part("items", "p", _table(ITEMS, items))
    holdout = tmp_path / "holdout.sha256"
    holdout.write_text(hashlib.sha256(b"o/r2").hexdigest() + "\n")  # digests are of the lower-case name
    gold = tmp_path / "gold.jsonl"
    gold.write_text(json.dumps({"id": "g", "repo": "o/r1", "text": "line 5", "label": "B"}) + "\n")
    out = tmp_path / "round"
    res = CliRunner().invoke(app, ["annotate", "sample", "--corpus", str(corpus.root), "--repos", "3", "--items", "12",
                                   "--exclude", str(gold), "--holdout", str(holdout), "--prefer", "non-english",
                                   "--prefer", "governed", "--prefer-share", "0.75", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "30 items (holdout repository), 1 items (already labelled)" in " ".join(res.output.split())
    rows = [json.loads(line) for line in (out / "sample.jsonl").read_text().splitlines()]
    assert len(rows) == 12 and {r["repo"] for r in rows} == {"o/r0", "o/r1"}
    assert not any(r["repo"] == "o/r1" and r["text"] == "line 5" for r in rows)
    preferred = [r for r in rows if r["section_path"] == ["Forbidden"] or r["text"].startswith("Não")
                 or r.get("lead_in") == "Never:"]
    assert len(preferred) == 9  # 75% of 12; o/r0 has 6 such items (one under the "Never:" lead-in), o/r1 has 5
    task = json.loads((out / "tasks.json").read_text())[0]["data"]
    assert (task["path"], task["platform"]) == ("AGENTS.md", "universal")
    bad = CliRunner().invoke(app, ["annotate", "sample", "--corpus", str(corpus.root), "--prefer", "short"])
    assert bad.exit_code == 2 and "--prefer takes" in bad.output
