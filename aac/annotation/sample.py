"""Annotation samples. The first round: repositories by star band x language, then items spread evenly over those
repos (an equal share each, what a small repository lacks going to the others), sized like the paper (200
repositories -> 2,000 items) or as asked; strata are sampled in proportion to their size with at least one
repository each (largest remainder), so rare languages and star bands are not lost.
Later rounds: the typed items nearest the constraint boundary (:func:`boundary_items`).
"""

from __future__ import annotations

import hashlib
import math
import random
import re
from collections import defaultdict
from pathlib import Path
from typing import Callable, Iterable

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


# Where a sample may lean (``--prefer``): where the classifier is weakest on repositories never seen (issue 24).
# Letters outside ASCII (accented Latin, Cyrillic, CJK, ...) mark an item in another language than English.
_NON_ENGLISH = re.compile(r"[^\W\d_a-zA-Z]")
# A heading or lead-in line whose words carry a rule's force, in the languages the corpus has (words, not a model).
FORCE_HEADING = re.compile(
    r"\b(?:never|don'?t|do\s+not|must|forbidden|prohibited|not\s+allowed|rules?|restrictions?|constraints?|"
    r"critical|important|required|mandatory|always|avoid|guardrails?|security|safety|"
    r"n[ãa]o|nunca|proibid\w*|regras?|obrigat[óo]ri\w*|prohibid\w*|reglas?|jam[aá]is|interdit\w*|r[èe]gles?|"
    r"verboten|niemals|regeln|pflicht\w*|vietat\w*|regole|asla|yasak\w*|kurallar\w*|kh[ôo]ng\s+đư[ợo]c|c[ấa]m|"
    r"никогда|запрещ\w*|нельзя|правила|обязательн\w*)\b"
    r"|禁止|不要|必须|必須|严禁|規則|规则|不得|切勿|务必|しない|してはいけない|厳守|ルール|금지|반드시|규칙|[❌🚫⛔🛑⚠]",
    re.IGNORECASE)


def is_non_english(item: dict) -> bool:
    """The item's text has letters outside ASCII (accents, other scripts)."""
    return bool(_NON_ENGLISH.search(item.get("text") or ""))


def is_governed(item: dict) -> bool:
    """A heading over the item, or the lead-in line before it (``lead_in``), says the rules' force ("## Forbidden",
    "Never:", "禁止事项", "Não faça"): the items whose force sits outside their own words."""
    heads = list(item.get("section_path") or [])[-2:]
    lead = item.get("lead_in") or ""
    return any(FORCE_HEADING.search(h or "") for h in heads) or bool(lead and FORCE_HEADING.search(lead))


PREFER = {"non-english": is_non_english, "governed": is_governed}


def read_holdout(path: str | Path) -> set[str]:
    """SHA-256 hex digests of lower-case ``owner/name``, one a line (holdout_repos.sha256)."""
    return {line.strip().lower() for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()}


def repo_digest(repo: str) -> str:
    return hashlib.sha256(repo.lower().encode("utf-8")).hexdigest()


def labelled_keys(rows: Iterable[dict]) -> set[tuple[str, str]]:
    """(repo, text) of already labelled items (gold_dev.jsonl format): a sample leaves them out."""
    return {(str(r.get("repo") or ""), str(r.get("text") or "").strip()) for r in rows}


def _with_lead_ins(items: list[dict]) -> list[dict]:
    """Give each item the text of the item before it in its file when that one ends with a colon (a lead-in)."""
    by_art: dict[str, list[dict]] = defaultdict(list)
    for it in items:
        by_art[it.get("artifact_id") or ""].append(it)
    for group in by_art.values():
        group.sort(key=lambda it: it.get("ordinal") or 0)
        for prev, it in zip(group, group[1:]):
            text = (prev.get("text") or "").rstrip()
            if text.endswith((":", "：")) and prev.get("section_path") == it.get("section_path"):
                it["lead_in"] = text.splitlines()[-1][-200:]
    return items


def sample_items(corpus: Corpus, n_repos: int = 200, n_items: int = 2000, seed: int = 0,
                 skip: Callable[[dict], bool] | None = None, prefer: Callable[[dict], bool] | None = None,
                 prefer_share: float = 0.0) -> list[dict]:
    """Items (with repo, section, kind) from a stratified repository sample, spread evenly over repositories.

    ``skip`` leaves items out before anything is drawn (holdout repositories, items already labelled); then up to
    ``prefer_share`` of the items are drawn from those ``prefer`` accepts, the rest from all the others, each part
    spread evenly over the sampled repositories.
    """
    repos = corpus.read("repos", columns=["full_name", "stars", "language"]).to_pylist() if corpus.exists("repos") else []
    items = corpus.sql("SELECT i.item_id, i.artifact_id, i.ordinal, i.text, i.section_path, i.kind, a.repo, a.path, "
                       "a.platform FROM items i JOIN artifacts a USING (artifact_id) "
                       "WHERE i.text IS NOT NULL AND length(trim(i.text)) > 0").to_pylist()
    items = _with_lead_ins(items)
    if skip is not None:
        items = [it for it in items if not skip(it)]
    by_repo: dict[str, list[dict]] = defaultdict(list)
    for it in items:
        by_repo[it["repo"]].append(it)
    known = {r["full_name"] for r in repos}
    repos += [{"full_name": name, "stars": None, "language": None} for name in by_repo if name not in known]
    repos = [r for r in repos if r["full_name"] in by_repo]
    chosen = sample_repos(repos, n_repos, seed)
    rng = random.Random(seed + 1)
    pools = {r["full_name"]: sorted(by_repo[r["full_name"]], key=lambda it: it["item_id"]) for r in chosen}
    picked: dict[str, list[dict]] = {name: [] for name in pools}
    if prefer is not None and prefer_share > 0:
        liked = {name: [it for it in pool if prefer(it)] for name, pool in pools.items()}
        alloc = allocate_even({k: len(v) for k, v in liked.items()}, round(n_items * prefer_share))
        for name, pool in liked.items():
            picked[name] = rng.sample(pool, alloc[name])
    taken = {it["item_id"] for got in picked.values() for it in got}
    rest = {name: [it for it in pool if it["item_id"] not in taken] for name, pool in pools.items()}
    alloc = allocate_even({k: len(v) for k, v in rest.items()}, n_items - len(taken))
    out = []
    for r in chosen:
        name = r["full_name"]
        for it in picked[name] + rng.sample(rest[name], alloc[name]):
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
    rows = corpus.sql("SELECT i.item_id, i.text, i.section_path, i.kind, a.repo, a.path, a.platform, i.type, "
                      "i.type_proba[1] AS p_c "
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
