"""Repository metadata in one shape, from a REST or a GraphQL answer: one field table for both, so the GraphQL
payload equals the REST one, key for key."""

from __future__ import annotations

from typing import Any

# The GraphQL fields behind every key of the REST payload (see REPO_FIELDS).
GRAPHQL_REPO_FIELDS = ("nameWithOwner stargazerCount forkCount primaryLanguage { name } licenseInfo { spdxId } "
                       "defaultBranchRef { name } pushedAt isFork isArchived")
# payload key -> (REST field, GraphQL field); a dotted name reads a nested object. One table for both answers
# keeps the GraphQL payload equal to the REST one, key for key (GRAPHQL_REPO_FIELDS asks the GraphQL side).
REST, GRAPHQL = 0, 1
REPO_FIELDS = {
    "stars": ("stargazers_count", "stargazerCount"),
    "forks": ("forks_count", "forkCount"),
    "language": ("language", "primaryLanguage.name"),
    "license_spdx": ("license.spdx_id", "licenseInfo.spdxId"),
    "default_branch": ("default_branch", "defaultBranchRef.name"),
    "pushed_at": ("pushed_at", "pushedAt"),
    "is_fork": ("fork", "isFork"),
    "archived": ("archived", "isArchived"),
}


def _field(data: dict, dotted: str) -> Any:
    for name in dotted.split("."):
        data = data.get(name) if isinstance(data, dict) else None
    return data


def repo_payload(data: dict, full_name: str, api: int) -> dict:
    """Repository metadata from a REST (``api=REST``) or GraphQL (``api=GRAPHQL``) answer, in one shape. Keyed
    by the name asked (``full_name``: search's, which ``artifacts.repo`` holds), not the answer's: REST follows a
    rename's redirect and GraphQL resolves it, so the answer can name the repository's new name."""
    out = {"full_name": full_name, "current_name": _field(data, ("full_name", "nameWithOwner")[api]) or None}
    out.update((key, _field(data, names[api])) for key, names in REPO_FIELDS.items())
    out["license_source"] = "api" if data.get(("license", "licenseInfo")[api]) else "none"
    out["is_fork"], out["archived"] = bool(out["is_fork"]), bool(out["archived"])
    return out
