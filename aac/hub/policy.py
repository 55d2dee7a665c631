"""What may leave the machine: the publish policy (license allowlist and secret shapes, from their one source in
``aac.core``; the opt-out list, here).

Publishing is the one step whose mistakes cannot be taken back, so it re-checks what processing already decided
(defence in depth): a row reaches the Hub only if processing kept it, its license is on the permissive allowlist,
no well-known secret shape survives in its text, and its repository has not opted out.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class OptOut:
    """Repositories whose owners asked to be left out: exact ``owner/name`` or a whole ``owner/*``."""

    repos: frozenset[str] = frozenset()
    owners: frozenset[str] = frozenset()

    @classmethod
    def parse(cls, lines: Iterable[str]) -> "OptOut":
        repos, owners = set(), set()
        for n, raw in enumerate(lines, 1):
            line = raw.split("#", 1)[0].strip().lower()
            if not line:
                continue
            line = line.removeprefix("https://github.com/").rstrip("/")
            parts = line.split("/")
            if len(parts) != 2 or not parts[0] or not parts[1]:
                raise ValueError(f"opt-out line {n}: expected owner/name or owner/*, got {raw.strip()!r}")
            if parts[1] == "*":
                owners.add(parts[0])
            else:
                repos.add(line)
        return cls(frozenset(repos), frozenset(owners))

    @staticmethod
    def default_path(corpus: str | Path) -> Path | None:
        """Where an opt-out list is looked for when none is named: ``<corpus>/optout.txt``, then ``./optout.txt``."""
        for candidate in (Path(corpus) / "optout.txt", Path("optout.txt")):
            if candidate.exists():
                return candidate
        return None

    @classmethod
    def load(cls, path: str | Path | None) -> "OptOut":
        if path is None:
            return cls()
        p = Path(path)
        if not p.exists():
            raise FileNotFoundError(f"opt-out list not found: {p}")
        return cls.parse(p.read_text(encoding="utf-8").splitlines())

    def excludes(self, full_name: str) -> bool:
        name = full_name.lower()
        return name in self.repos or name.split("/", 1)[0] in self.owners

    def __len__(self) -> int:
        return len(self.repos) + len(self.owners)
