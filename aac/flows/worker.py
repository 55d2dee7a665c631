"""A deployment's unset parameters, read from the worker's environment as the CLI reads them (shared by flows)."""

from __future__ import annotations

import os

from aac.core.config import Settings


def worker_defaults(api_url: str | None, repo_id: str | None) -> tuple[str, str | None]:
    """The API from ``AAC_GITHUB_API_URL`` (else api.github.com; a GitHub Enterprise worker sets it), the Hub repo
    from ``AAC_HF_REPO_ID`` (else none: nothing is uploaded by default)."""
    return api_url or Settings.from_env().github_api_url, repo_id or os.environ.get("AAC_HF_REPO_ID") or None
