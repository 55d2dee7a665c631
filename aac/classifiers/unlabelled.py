"""The unlabelled items of the real files: material for a teacher's pseudo-labels (issue 24).

Both real file sets (agent_configs_sample.jsonl and agent_configs_train.jsonl) are segmented with the package's
segmenter and lead-ins; an item is kept once per repository and text, and left out when it is labelled already
(a gold item, an annotated sample item: their labels train the model themselves) or when its repository is in
holdout_repos.sha256. Items are named by (repo, path, id = hash of the text, :func:`annotated_item_id`), so the
package stores labels without third-party text and joins them back by segmenting the files again.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from aac.classifiers.base import ItemInput
from aac.core.ids import annotated_item_id


@dataclass(frozen=True)
class PoolItem:
    item: ItemInput
    repo: str
    path: str
    id: str  # annotated_item_id(item.text)


def segmented_files(paths: Iterable[str | Path]) -> Iterable[tuple[str, str, list[ItemInput]]]:
    """(repo, path, items with their lead-ins) for every file record of agent_configs_*.jsonl files that exist."""
    from aac.classifiers.context import with_lead_ins
    from aac.core.segment import segment

    for p in paths:
        if not Path(p).exists():
            continue
        with open(p, encoding="utf-8") as f:
            for line in f:
                if not line.strip():
                    continue
                r = json.loads(line)
                segs = segment(str(r.get("content", "")), str(r.get("path", "")))
                items = with_lead_ins([ItemInput(s.text, tuple(s.section_path), s.kind) for s in segs])
                yield str(r.get("repo", "")), str(r.get("path", "")), items


def unlabelled_pool(paths: Iterable[str | Path], labelled: set[tuple[str, str]], holdout: frozenset[str],
                    skipped: dict[str, int] | None = None) -> list[PoolItem]:
    """Unlabelled items of ``paths``, once per (repo, text id). ``labelled``: (repo, id) of every labelled item
    (left out); ``holdout``: repository digests never to train on. ``skipped`` counts what was left out and why."""
    from aac.classifiers.datasets import repo_digest

    counts = {"labelled": 0, "holdout": 0, "duplicate": 0, "empty": 0}
    seen: set[tuple[str, str]] = set()
    out: list[PoolItem] = []
    digests: dict[str, bool] = {}
    for repo, path, items in segmented_files(paths):
        if repo not in digests:
            digests[repo] = repo_digest(repo) in holdout
        for it in items:
            if not (it.text or "").strip():
                counts["empty"] += 1
                continue
            key = (repo, annotated_item_id(it.text))
            if digests[repo]:
                counts["holdout"] += 1
            elif key in labelled:
                counts["labelled"] += 1
            elif key in seen:
                counts["duplicate"] += 1
            else:
                seen.add(key)
                out.append(PoolItem(it, repo, path, key[1]))
    if skipped is not None:
        skipped.update(counts)
    return out


def labelled_keys(data) -> set[tuple[str, str]]:
    """(repo, text id) of labelled items (gold and annotated sources; others have no repository)."""
    return {(d.group, annotated_item_id(d.item.text)) for d in data if d.source in ("gold", "annotated")}
