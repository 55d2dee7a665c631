"""Annotation samples. The first round: repositories by star band x language, then items spread evenly over those
repos (an equal share each, what a small repository lacks going to the others), sized like the paper (200
repositories -> 2,000 items) or as asked; strata are sampled in proportion to their size with at least one
repository each (largest remainder), so rare languages and star bands are not lost.
Later rounds: the typed items nearest the constraint boundary (:func:`boundary_items`).
"""

from __future__ import annotations

import math
import random
from collections import defaultdict

from aac.core.store import Corpus

STAR_BANDS = (0, 10, 100, 1000, 10_000)


def star_band(stars: int | None) -> str:
    s = stars or 0
    lo = max(b for b in STAR_BANDS if s >= b)
    return f"{lo}+"


def allocate(sizes: dict[str, int], total: int) -> dict[str, int]:
    """Proportional allocation with at least one per stratum (while ``total`` allows), capped by stratum size."""
    n_all = sum(sizes.values())
    if n_all <= total:
        return dict(sizes)
    keys = sorted(sizes, key=lambda k: (-sizes[k], k))
    alloc = {k: 0 for k in keys}
    for k in keys[:total]:
        alloc[k] = 1
    left = total - sum(alloc.values())
    quotas = {k: sizes[k] * left / n_all for k in keys}
    for k in keys:
        alloc[k] = min(sizes[k], alloc[k] + math.floor(quotas[k]))
    rest = total - sum(alloc.values())
    order = sorted(keys, key=lambda k: (-(quotas[k] - math.floor(quotas[k])), k))
    while rest > 0:  # largest remainder first; strata at their cap pass their share on (another pass if need be)
        for k in order:
            if rest > 0 and alloc[k] < sizes[k]:
                alloc[k] += 1
                rest -= 1
    return alloc


def allocate_even(sizes: dict[str, int], total: int) -> dict[str, int]:
    """An equal share per key (water-filling): keys with fewer than their share give the rest to the others, so
    no repository's many items crowd out the rest of the sample. Capped by size; ties by key."""
    alloc = {k: 0 for k in sizes}
    open_keys = sorted(k for k in sizes if sizes[k] > 0)
    left = min(total, sum(sizes.values()))
    while left > 0 and open_keys:
        share = max(1, left // len(open_keys))
        for k in list(open_keys):
            take = min(share, sizes[k] - alloc[k], left)
            alloc[k] += take
            left -= take
            if alloc[k] >= sizes[k]:
                open_keys.remove(k)
            if left == 0:
                break
    return alloc


def sample_repos(repos: list[dict], n: int, seed: int = 0) -> list[dict]:
    strata: dict[str, list[dict]] = defaultdict(list)
    for r in repos:
        strata[f"{star_band(r.get('stars'))}|{r.get('language') or 'unknown'}"].append(r)
    rng = random.Random(seed)
    alloc = allocate({k: len(v) for k, v in strata.items()}, n)
    chosen = []
    for k in sorted(strata):
        group = sorted(strata[k], key=lambda r: r["full_name"])
        chosen.extend(rng.sample(group, alloc[k]))
    return chosen


def sample_items(corpus: Corpus, n_repos: int = 200, n_items: int = 2000, seed: int = 0) -> list[dict]:
    """Items (with repo, section, kind) from a stratified repository sample, spread evenly over repositories."""
    repos = corpus.read("repos", columns=["full_name", "stars", "language"]).to_pylist() if corpus.exists("repos") else []
    items = corpus.sql("SELECT i.item_id, i.text, i.section_path, i.kind, a.repo FROM items i "
                       "JOIN artifacts a USING (artifact_id) WHERE i.text IS NOT NULL AND length(trim(i.text)) > 0").to_pylist()
    by_repo: dict[str, list[dict]] = defaultdict(list)
    for it in items:
        by_repo[it["repo"]].append(it)
    known = {r["full_name"] for r in repos}
    repos += [{"full_name": name, "stars": None, "language": None} for name in by_repo if name not in known]
    repos = [r for r in repos if r["full_name"] in by_repo]
    chosen = sample_repos(repos, n_repos, seed)
    rng = random.Random(seed + 1)
    alloc = allocate_even({r["full_name"]: len(by_repo[r["full_name"]]) for r in chosen}, n_items)
    out = []
    for r in chosen:
        pool = sorted(by_repo[r["full_name"]], key=lambda it: it["item_id"])
        for it in rng.sample(pool, alloc[r["full_name"]]):
            out.append({**it, "stars": r.get("stars"), "language": r.get("language")})
    return out


def boundary_items(corpus: Corpus, n_items: int = 800, threshold: float = 0.5, per_repo: int = 20) -> list[dict]:
    """The typed items whose P(Constraint) lies nearest ``threshold`` (in log-odds), at most ``per_repo`` from one
    repository, leaving out items the ``gold`` view has already settled.

    A second annotation round pays where the classifier is least sure and where one annotator's label decides the
    most: the constraint boundary (uncertainty sampling). Items labelled once stay in, so they get their second
    vote. Nearest first; ties by item id, so a sample is reproducible.
    """
    if not corpus.exists("items") or not corpus.exists("artifacts"):
        raise ValueError("boundary sampling needs the corpus's items and artifacts tables")
    settled = "AND i.item_id NOT IN (SELECT item_id FROM gold)" if corpus.exists("annotations") else ""
    rows = corpus.sql("SELECT i.item_id, i.text, i.section_path, i.kind, a.repo, i.type, i.type_proba[1] AS p_c "
                      "FROM items i JOIN artifacts a USING (artifact_id) "
                      f"WHERE i.type_proba IS NOT NULL AND i.text IS NOT NULL AND length(trim(i.text)) > 0 {settled}"
                      ).to_pylist()
    if not rows:
        raise ValueError("no typed items: run `aac classify --corpus` first")

    def logit(p: float) -> float:
        p = min(max(float(p), 1e-6), 1 - 1e-6)
        return math.log(p / (1 - p))

    mid = logit(threshold)
    rows.sort(key=lambda r: (abs(logit(r["p_c"]) - mid), r["item_id"]))
    taken: dict[str, int] = defaultdict(int)
    out = []
    for r in rows:
        if taken[r["repo"]] >= per_repo:
            continue
        taken[r["repo"]] += 1
        out.append({**r, "p_c": round(float(r["p_c"]), 4)})
        if len(out) >= n_items:
            break
    return out
