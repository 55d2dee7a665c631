"""The emulator's in-memory view of a snapshot: repositories, files, and the code-search index.

Repository and blob identities are derived deterministically from the data (ids from a hash of the name,
blob shas as real git blob sha1s), so the same snapshot always serves the same JSON.
"""

from __future__ import annotations

import hashlib
import posixpath
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timezone

from .query import Query


def h64(*parts: object) -> int:
    """A stable 64-bit hash of ``parts`` (Python's ``hash`` is salted per process)."""
    data = "\x1f".join(map(str, parts)).encode("utf-8", "surrogatepass")
    return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "big")


_M64 = (1 << 64) - 1


def mix(a: int, b: int) -> int:
    """splitmix64 of ``a ^ b``: a cheap per-(file, query) pseudo-random 64-bit value."""
    z = (a ^ b) & _M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
    return z ^ (z >> 31)


def unit(x: int) -> float:
    """Map a 64-bit value to [0, 1)."""
    return (x >> 11) / float(1 << 53)


def blob_sha(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


@dataclass
class Repo:
    full_name: str
    id: int
    owner_id: int
    commit: str
    stars: int = 0
    language: str | None = None
    license_spdx: str | None = None
    license_file: str | None = None
    pushed_at: str = ""

    @property
    def owner(self) -> str:
        return self.full_name.split("/", 1)[0]

    @property
    def name(self) -> str:
        return self.full_name.split("/", 1)[1]


@dataclass(eq=False)
class File:
    repo: Repo
    path: str
    data: bytes
    commit: str
    language: str | None
    fid: int  # stable 64-bit identity of (repo, path)
    size: int = 0
    sha: str = ""
    name: str = ""  # lower-cased basename
    ext: str = ""  # lower-cased extension without the dot ("" for dotfiles such as .cursorrules)
    dirs: tuple[str, ...] = field(default=())  # lower-cased directory segments
    path_lower: str = ""
    repo_lower: str = ""
    owner_lower: str = ""

    def __post_init__(self) -> None:
        self.size = len(self.data)
        self.sha = blob_sha(self.data)
        base = posixpath.basename(self.path)
        self.name = base.lower()
        self.ext = posixpath.splitext(base)[1][1:].lower()
        self.path_lower = self.path.lower()
        self.dirs = tuple(self.path_lower.split("/")[:-1])
        self.repo_lower = self.repo.full_name.lower()
        self.owner_lower = self.repo.owner.lower()

    @property
    def content_lower(self) -> str:
        return self.data.decode("utf-8", "replace").lower()


def _pushed_at(name: str) -> str:
    epoch = 1_640_995_200 + h64("pushed", name) % (4 * 365 * 86400)  # 2022..2025
    return datetime.fromtimestamp(epoch, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


class Index:
    """Repositories by name and id, files by (repo, path), and the searchable files (< max_bytes)."""

    def __init__(self, records: Iterable[dict], max_bytes: int):
        by_repo: dict[str, list[dict]] = defaultdict(list)
        for rec in records:
            by_repo[rec["repo"]].append(rec)
        self.repos: dict[str, Repo] = {}
        self.repos_by_id: dict[int, Repo] = {}
        self.files: dict[tuple[str, str], File] = {}
        self.searchable: list[File] = []
        self.by_name: dict[str, list[File]] = defaultdict(list)
        self.by_ext: dict[str, list[File]] = defaultdict(list)
        for full_name, recs in by_repo.items():
            repo = self._repo(full_name, recs)
            self.repos[full_name.lower()] = repo
            self.repos_by_id[repo.id] = repo
            for rec in recs:
                f = File(repo, rec["path"], rec["content"].encode("utf-8", "surrogatepass"),
                         rec.get("commit") or repo.commit, rec.get("language") or repo.language,
                         h64("file", full_name, rec["path"]))
                self.files[(full_name.lower(), rec["path"])] = f
                if f.size < max_bytes:
                    self.searchable.append(f)
                    self.by_name[f.name].append(f)
                    self.by_ext[f.ext].append(f)

    @staticmethod
    def _repo(full_name: str, recs: list[dict]) -> Repo:
        def first(key: str):
            return next((r[key] for r in recs if r.get(key) is not None), None)

        commits = Counter(r["commit"] for r in recs if r.get("commit"))
        commit = commits.most_common(1)[0][0] if commits else hashlib.sha1(full_name.encode()).hexdigest()
        owner = full_name.split("/", 1)[0]
        return Repo(full_name=full_name, id=1 + h64("repo", full_name) % 999_999_999,
                    owner_id=1 + h64("owner", owner) % 99_999_999, commit=commit, stars=first("stars") or 0,
                    language=first("language"), license_spdx=first("license_spdx"),
                    license_file=first("license_file"), pushed_at=first("pushed_at") or _pushed_at(full_name))

    def repo(self, full_name: str) -> Repo | None:
        return self.repos.get(full_name.lower())

    def file(self, repo: Repo, path: str) -> File | None:
        return self.files.get((repo.full_name.lower(), path))

    def match(self, query: Query) -> list[File]:
        """Every searchable file the query matches, in snapshot order (no pathologies here)."""
        name, ext = query.value("filename"), query.value("extension")
        if name is not None:
            candidates = self.by_name.get(name.lower(), [])
        elif ext is not None:
            candidates = self.by_ext.get(ext.lower().lstrip("."), [])
        else:
            candidates = self.searchable
        pred = query.predicate()
        return [f for f in candidates if pred(f)]
