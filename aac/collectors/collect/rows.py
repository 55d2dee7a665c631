"""The ``artifacts`` and ``repos`` rows a collector writes: one shape for the GitHub crawl and local checkouts.

A file whose content is gone, or whose path names no agent platform, is kept with its drop reason
(:class:`~aac.core.drop_reasons.DropReason`), so nothing a crawl met is lost silently.
"""

from __future__ import annotations

import hashlib
from datetime import datetime, timezone

from aac.collectors.crawl import Hit
from aac.core import platforms as platform_registry
from aac.core.drop_reasons import DropReason
from aac.core.ids import artifact_id


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


def _ts(value) -> datetime | None:
    if value is None or isinstance(value, datetime):
        return value
    try:
        return datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return None


def decode_content(raw: bytes) -> str:
    """Text as stored: UTF-16 when a UTF-16 BOM says so, else UTF-8 with undecodable bytes replaced (U+FFFD) so
    Arrow can hold it. A UTF-8 BOM is kept: the processing stage strips it and records the fix, as it judges the
    replacement characters; and the text then re-encodes to the file's own bytes (a refresh can reuse it)."""
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        return raw.decode("utf-16", errors="replace")
    return raw.decode("utf-8", errors="replace")


def artifact_row(hit: Hit, raw: bytes | None, repo: dict | None, platform: str | None, when: datetime) -> dict:
    """One ``artifacts`` row; a file whose content is gone is kept with its drop reason."""
    status, reason = "collected", None
    if raw is None:
        status, reason = "dropped", DropReason.CONTENT_UNAVAILABLE
    elif platform is None:
        status, reason = "dropped", DropReason.NOT_AN_AGENT_FILE
    return {
        "artifact_id": artifact_id(hit.repo, hit.path),
        "repo": hit.repo,
        "path": hit.path,
        "platform": platform,
        "function": platform_registry.BY_NAME[platform].function if platform in platform_registry.BY_NAME else None,
        "size_bytes": len(raw) if raw is not None else None,
        "blob_sha": hit.blob_sha,
        "commit_sha": hit.ref,
        "html_url": hit.html_url,
        "license_spdx": (repo or {}).get("license_spdx"),
        "content_sha256": hashlib.sha256(raw).hexdigest() if raw is not None else None,
        "status": status,
        "drop_reason": reason,
        "content": decode_content(raw) if raw is not None else None,
        "collected_at": when,
    }


def repo_row(meta: dict, when: datetime) -> dict:
    return {**meta, "pushed_at": _ts(meta.get("pushed_at")), "fetched_at": when}
