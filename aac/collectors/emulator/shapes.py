"""JSON bodies in the shapes GitHub's REST API returns (the fields PyGithub and the collector read)."""

from __future__ import annotations

import base64
import textwrap
from urllib.parse import quote

from .index import File, Repo, h64

# SPDX id -> (GitHub license key, display name); anything else is GitHub's "other"/NOASSERTION.
LICENSES: dict[str, tuple[str, str]] = {
    "MIT": ("mit", "MIT License"),
    "Apache-2.0": ("apache-2.0", "Apache License 2.0"),
    "BSD-2-Clause": ("bsd-2-clause", 'BSD 2-Clause "Simplified" License'),
    "BSD-3-Clause": ("bsd-3-clause", 'BSD 3-Clause "New" or "Revised" License'),
    "GPL-2.0": ("gpl-2.0", "GNU General Public License v2.0"),
    "GPL-3.0": ("gpl-3.0", "GNU General Public License v3.0"),
    "LGPL-3.0": ("lgpl-3.0", "GNU Lesser General Public License v3.0"),
    "AGPL-3.0": ("agpl-3.0", "GNU Affero General Public License v3.0"),
    "MPL-2.0": ("mpl-2.0", "Mozilla Public License 2.0"),
    "Unlicense": ("unlicense", "The Unlicense"),
    "ISC": ("isc", "ISC License"),
    "CC0-1.0": ("cc0-1.0", "Creative Commons Zero v1.0 Universal"),
    "CC-BY-4.0": ("cc-by-4.0", "Creative Commons Attribution 4.0 International"),
}


def qpath(path: str) -> str:
    return quote(path, safe="/")


def license_obj(spdx: str | None) -> dict | None:
    if not spdx:
        return None
    key, name = LICENSES.get(spdx, ("other", "Other"))
    spdx_id = spdx if spdx in LICENSES else "NOASSERTION"
    return {"key": key, "name": name, "spdx_id": spdx_id,
            "url": None if key == "other" else f"https://api.github.com/licenses/{key}",
            "node_id": f"MDc6TGljZW5zZ{h64('lic', key) % 10**6}"}


def owner_obj(repo: Repo, base: str) -> dict:
    login = repo.owner
    return {"login": login, "id": repo.owner_id, "node_id": f"MDQ6VXNlcj{repo.owner_id}",
            "type": "Organization" if repo.owner_id % 3 == 0 else "User", "site_admin": False,
            "url": f"{base}/users/{quote(login)}", "html_url": f"https://github.com/{quote(login)}",
            "avatar_url": f"https://avatars.githubusercontent.com/u/{repo.owner_id}?v=4"}


def repo_obj(repo: Repo, base: str, full: bool = True) -> dict:
    url = f"{base}/repos/{repo.full_name}"
    out = {"id": repo.id, "node_id": f"MDEwOlJlcG9zaXRvcnk{repo.id}", "name": repo.name,
           "full_name": repo.full_name, "private": False, "owner": owner_obj(repo, base),
           "html_url": f"https://github.com/{repo.full_name}", "description": None, "fork": False, "url": url,
           "contents_url": url + "/contents/{+path}"}
    if full:
        forks = repo.stars // 7
        out.update({"created_at": "2021-01-01T00:00:00Z", "updated_at": repo.pushed_at, "pushed_at": repo.pushed_at,
                    "homepage": None, "size": 0, "stargazers_count": repo.stars, "watchers_count": repo.stars,
                    "language": repo.language, "forks_count": forks, "forks": forks, "archived": False,
                    "disabled": False, "open_issues_count": 0, "open_issues": 0, "watchers": repo.stars,
                    "license": license_obj(repo.license_spdx), "topics": [], "visibility": "public",
                    "default_branch": "main", "has_issues": True, "is_template": False})
    return out


def file_urls(f: File, base: str, ref: str) -> dict:
    repo, p = f.repo, qpath(f.path)
    return {"url": f"{base}/repositories/{repo.id}/contents/{p}?ref={ref}",
            "git_url": f"{base}/repositories/{repo.id}/git/blobs/{f.sha}",
            "html_url": f"https://github.com/{repo.full_name}/blob/{ref}/{p}",
            "download_url": f"{base}/raw/{repo.full_name}/{ref}/{p}"}


def search_item(f: File, base: str, score: float) -> dict:
    urls = file_urls(f, base, f.commit)
    return {"name": f.path.rsplit("/", 1)[-1], "path": f.path, "sha": f.sha, "url": urls["url"],
            "git_url": urls["git_url"], "html_url": urls["html_url"], "repository": repo_obj(f.repo, base, full=False),
            "score": score}


def b64(data: bytes) -> str:
    """Base64 wrapped at 60 columns with a trailing newline, as the contents API sends it."""
    return "\n".join(textwrap.wrap(base64.b64encode(data).decode("ascii"), 60)) + "\n" if data else ""


def content_obj(f: File, base: str, ref: str) -> dict:
    urls = file_urls(f, base, ref)
    return {"type": "file", "encoding": "base64", "size": f.size, "name": f.path.rsplit("/", 1)[-1], "path": f.path,
            "content": b64(f.data), "sha": f.sha, **urls,
            "_links": {"self": urls["url"], "git": urls["git_url"], "html": urls["html_url"]}}


def license_text(repo: Repo) -> bytes:
    """A short synthetic license file naming the SPDX id (the snapshot carries only the id, not the text)."""
    return (f"SPDX-License-Identifier: {repo.license_spdx}\n\nCopyright (c) the {repo.full_name} authors.\n"
            f"This file stands in for the full {repo.license_spdx} license text.\n").encode()


def license_file_obj(f: File, base: str) -> dict:
    """The ``/repos/{o}/{r}/license`` body: the license file's contents object plus the detected license."""
    return {**content_obj(f, base, f.commit), "license": license_obj(f.repo.license_spdx)}


def rate_obj(usage) -> dict:
    return {"limit": usage.limit, "used": usage.used, "remaining": usage.remaining, "reset": usage.reset}
