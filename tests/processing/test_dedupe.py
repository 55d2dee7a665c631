import random
from datetime import datetime, timezone

import numpy as np
import pyarrow as pa

from aac.processing.dedupe import NearDupConfig, content_sha256, dedupe, near_components, shingle_hashes

CFG = NearDupConfig()
BASE = " ".join(f"- rule {i}: always run the linter on module{i} before you commit changes" for i in range(40))


def _meta(rows):
    ts = pa.timestamp("us", tz="UTC")
    return pa.table({
        "artifact_id": [r["id"] for r in rows],
        "repo": [r["repo"] for r in rows],
        "path": [r.get("path", "AGENTS.md") for r in rows],
        "stars": pa.array([r.get("stars") for r in rows], pa.int64()),
        "pushed_at": pa.array([r.get("pushed_at") for r in rows], ts),
        "collected_at": pa.array([datetime(2026, 1, 1, tzinfo=timezone.utc)] * len(rows), ts),
        "publishable": [r.get("publishable", True) for r in rows],
        "content_sha256": [content_sha256(r["text"]) for r in rows],
    })


def _run(rows):
    sigs = {content_sha256(r["text"]): CFG.signature(r["text"]) for r in rows}
    return {d["artifact_id"]: d for d in dedupe(_meta(rows), sigs, CFG).to_pylist()}


def test_whitespace_only_differences_are_exact_duplicates():
    assert content_sha256("a  b\r\n\tc\n") == content_sha256("a b c")
    assert content_sha256("a b c") != content_sha256("a b d")


def test_exact_duplicates_keep_the_copy_with_most_stars():
    out = _run([
        {"id": "x", "repo": "a/one", "text": BASE, "stars": 5},
        {"id": "y", "repo": "b/two", "text": BASE + "\n", "stars": 50},
    ])
    assert not out["y"]["exact_duplicate"] and out["x"]["exact_duplicate"]
    assert out["x"]["near_dup_of"] == "y" and out["y"]["near_dup_of"] is None
    assert out["x"]["dup_cluster_size"] == 2 and out["x"]["dup_cluster_repos"] == 2


def test_ties_on_stars_go_to_the_oldest_push_then_repo_and_path():
    old = datetime(2020, 1, 1, tzinfo=timezone.utc)
    new = datetime(2024, 1, 1, tzinfo=timezone.utc)
    out = _run([
        {"id": "x", "repo": "a/one", "text": BASE, "stars": 1, "pushed_at": new},
        {"id": "y", "repo": "z/two", "text": BASE, "stars": 1, "pushed_at": old},
    ])
    assert out["x"]["exact_duplicate"] and not out["y"]["exact_duplicate"]
    out = _run([{"id": "x", "repo": "b/r", "text": BASE}, {"id": "y", "repo": "a/r", "text": BASE}])
    assert out["x"]["exact_duplicate"] and not out["y"]["exact_duplicate"]


def test_a_publishable_copy_beats_a_more_starred_private_one():
    out = _run([
        {"id": "gpl", "repo": "a/big", "text": BASE, "stars": 1000, "publishable": False},
        {"id": "mit", "repo": "b/small", "text": BASE, "stars": 1, "publishable": True},
    ])
    assert out["gpl"]["exact_duplicate"] and not out["mit"]["exact_duplicate"]


def test_near_duplicates_are_clustered_but_kept():
    edited = BASE.replace("rule 7:", "rule seven:")
    other = " ".join(f"* prefer composition over inheritance in package{i} and keep functions small" for i in range(40))
    out = _run([
        {"id": "a", "repo": "o/a", "text": BASE, "stars": 10},
        {"id": "b", "repo": "o/b", "text": edited, "stars": 1},
        {"id": "c", "repo": "o/c", "text": other, "stars": 1},
    ])
    assert out["b"]["near_dup_of"] == "a" and not out["b"]["exact_duplicate"]
    assert out["a"]["dup_cluster_size"] == 2
    assert out["c"]["near_dup_of"] is None and out["c"]["dup_cluster_size"] == 1


def test_threshold_is_configurable():
    edited = BASE.replace("linter", "formatter", 8)  # Jaccard ~0.6-0.7: near at 0.5, distinct at the default 0.85
    loose = NearDupConfig(threshold=0.5)
    sigs = {content_sha256(t): loose.signature(t) for t in (BASE, edited)}
    rows = [{"id": "a", "repo": "o/a", "text": BASE, "stars": 2}, {"id": "b", "repo": "o/b", "text": edited}]
    loose_out = {d["artifact_id"]: d for d in dedupe(_meta(rows), sigs, loose).to_pylist()}
    assert loose_out["b"]["near_dup_of"] == "a"
    assert _run(rows)["b"]["near_dup_of"] is None


def test_decisions_do_not_depend_on_row_order():
    rows = []
    for i in range(60):
        text = BASE.replace("rule 3:", f"rule 3 v{i % 4}:") if i % 3 else f"unique file {i} " * 30
        rows.append({"id": f"id{i}", "repo": f"o{i % 7}/r{i}", "text": text, "stars": i % 5})
    first = _run(rows)
    random.Random(4).shuffle(rows)
    assert _run(rows) == first


def test_a_huge_template_cluster_is_one_component_in_linear_time():
    rng = np.random.default_rng(0)
    sig = np.repeat(rng.integers(0, 2**32, size=(1, CFG.num_perm), dtype=np.uint64).astype(np.uint32), 50_000, axis=0)
    comp = near_components(sig, 0.85, *CFG.bands)
    assert (comp == 0).all()


def test_shingles_of_short_and_empty_texts():
    assert len(shingle_hashes("one two")) == 1
    assert len(shingle_hashes("")) == 1
    assert len(shingle_hashes(BASE)) > 100
