"""Crawled rows from plain records, as a crawl writes them: the input of ``aac demo``, the tests and the benches."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timezone

import pyarrow as pa

from aac.core import licenses
from aac.core.ids import artifact_id as make_artifact_id
from aac.core.platforms import platform_of
from aac.core.schema import ARTIFACTS, REPOS
from aac.core.store import Corpus


def _ts(value) -> datetime | None:
    if value is None or isinstance(value, datetime):
        return value
    try:
        return datetime.fromisoformat(str(value).replace("Z", "+00:00")).astimezone(timezone.utc)
    except ValueError:
        return None


def _as_text(content) -> str | None:
    """Arrow strings must be UTF-8: raw bytes are decoded with replacement (normalize judges the damage)."""
    if content is None or isinstance(content, str):
        return content
    return bytes(content).decode("utf-8", errors="replace")


def artifacts_from_records(records: Iterable[dict], collected_at: datetime | None = None) -> tuple[pa.Table, pa.Table]:
    """``artifacts`` rows (status ``collected``) and ``repos`` rows from snapshot-style records, as a crawl writes them.

    Records: {repo, path, content, license_spdx?, license_text?, stars?, language?, commit?, pushed_at?}.
    """
    collected_at = collected_at or datetime(2026, 1, 1, tzinfo=timezone.utc)
    arts: dict[str, dict] = {}
    repos: dict[str, dict] = {}
    for r in records:
        repo, path = r["repo"], r["path"]
        text = _as_text(r.get("content"))
        spdx = r.get("license_spdx")
        source = "api" if spdx else "none"
        if not spdx and r.get("license_text"):
            spdx = licenses.detect_license(r["license_text"])
            source = "license_file" if spdx else "none"
        aid = make_artifact_id(repo, path)
        arts[aid] = {
            "artifact_id": aid, "repo": repo, "path": path, "platform": platform_of(path),
            "size_bytes": len(text.encode("utf-8")) if text is not None else None,
            "commit_sha": r.get("commit"), "html_url": f"https://github.com/{repo}/blob/{r.get('commit') or 'HEAD'}/{path}",
            "license_spdx": spdx, "content": text, "status": "collected", "collected_at": collected_at,
        }
        repos[repo] = {
            "full_name": repo, "stars": r.get("stars"), "language": r.get("language"), "license_spdx": spdx,
            "license_source": source, "pushed_at": _ts(r.get("pushed_at")), "fetched_at": collected_at,
        }
    art_cols = {f.name: [a.get(f.name) for a in arts.values()] for f in ARTIFACTS}
    repo_cols = {f.name: [x.get(f.name) for x in repos.values()] for f in REPOS}
    return pa.Table.from_pydict(art_cols, schema=ARTIFACTS), pa.Table.from_pydict(repo_cols, schema=REPOS)


def load_records(corpus: Corpus, records: Iterable[dict], collected_at: datetime | None = None) -> int:
    """Write records into ``artifacts``/``repos`` as a crawl would (upsert by key); returns artifacts written."""
    arts, repos = artifacts_from_records(records, collected_at)
    corpus.upsert("repos", repos)
    corpus.upsert("artifacts", arts)
    return arts.num_rows
