"""What may leave the machine: the publish policy as data (license allowlist, secret shapes, opt-outs).

Publishing is the one step whose mistakes cannot be taken back, so it re-checks what processing already decided
(defence in depth): a row reaches the Hub only if processing kept it, its license is on the permissive allowlist,
no well-known secret shape survives in its text, and its repository has not opted out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from aac.processing.secrets import DISCORD_ID_SHAPE


def _default_allowlist() -> frozenset[str]:
    """The processing step's allowlist when it exists, so both steps agree; otherwise the same well-known ids."""
    try:  # the process area owns the canonical list
        from aac.core.licenses import PERMISSIVE  # type: ignore[attr-defined]

        return frozenset(PERMISSIVE)
    except Exception:
        return frozenset(
            {
                "MIT", "MIT-0", "Apache-2.0", "BSD-2-Clause", "BSD-3-Clause", "ISC", "0BSD", "Unlicense",
                "CC0-1.0", "Zlib", "BSL-1.0", "CC-BY-4.0", "PSF-2.0", "UPL-1.0", "WTFPL",
            }
        )


PERMISSIVE: frozenset[str] = _default_allowlist()

# Token shapes that are unambiguous enough to refuse a row outright. RE2-compatible (run inside DuckDB) and
# Python-compatible (run on single strings). Typed placeholders such as ``[REDACTED:aws_access_key]`` never match.
SECRET_PATTERNS: dict[str, str] = {
    "aws_access_key": r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b",
    "github_token": r"\bgh[pousr]_[A-Za-z0-9]{36,}",
    "github_fine_grained_pat": r"\bgithub_pat_[A-Za-z0-9_]{22,}",
    "slack_token": r"\bxox[abprs]-[A-Za-z0-9-]{10,}",
    "private_key": r"-----BEGIN (?:RSA |EC |DSA |OPENSSH |PGP |ENCRYPTED )?PRIVATE KEY-----",
    "openai_key": r"\bsk-(?:proj-)?[A-Za-z0-9_-]{32,}",
    "anthropic_key": r"\bsk-ant-[A-Za-z0-9_-]{20,}",
    "google_api_key": r"\bAIza[0-9A-Za-z_-]{35}",
    "stripe_live_key": r"\b[sr]k_live_[0-9A-Za-z]{20,}",
    "huggingface_token": r"\bhf_[A-Za-z]{30,}",
    "gitlab_pat": r"\bglpat-[A-Za-z0-9_-]{20,}",
    "npm_token": r"\bnpm_[A-Za-z0-9]{36}\b",
    # the user may be empty (redis://:pw@); a placeholder (${VAR}, <password>, {{pw}}, %s) is no secret, nor is an
    # image version (docker://alpine:3.19@sha256:...): a password holds a character that is no digit or dot
    "url_password": r"[a-zA-Z][a-zA-Z0-9+.-]*://[^/\s:@]*:(?:[^/\s:@$<{%*0-9.][^/\s:@]{2,}|"
                    r"[0-9.][^/\s:@]*[^/\s:@0-9.][^/\s:@]*)@[^\s/]+",
    "putty_private_key": r"PuTTY-User-Key-File-[0-9]+:",
    "databricks_token": r"\bdapi[0-9a-f]{32}",
    "shopify_token": r"\bshp(?:at|ss|ca|pa)_[0-9a-fA-F]{32}",
    "digitalocean_token": r"\bdo[opr]_v1_[0-9a-f]{64}",
    "slack_app_token": r"\bxapp-\d-[A-Za-z0-9-]{20,}",
    "supabase_token": r"\bsbp_[0-9a-f]{40}",
    "groq_key": r"\bgsk_[A-Za-z0-9]{40,}",
    "age_secret_key": r"AGE-SECRET-KEY-1[0-9A-Z]{50,}",
    "discord_webhook": r"discord(?:app)?\.com/api/webhooks/[0-9]+/[A-Za-z0-9_-]{40,}",
    "azure_client_secret": r"[A-Za-z0-9_~.-]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34}",
    # id.timestamp.hmac, the id a 17-20 digit number in base64url (the shape aac.processing.secrets redacts, which
    # also decodes the id), bounded like there so that a longer run of the same characters is not one
    "discord_bot_token": r"(?:^|[^A-Za-z0-9_-])" + DISCORD_ID_SHAPE + r"\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}"
                         r"(?:[^A-Za-z0-9_-]|$)",
    "gcp_private_key_id": r"private_key_id[\"']?\s*[:=]\s*[\"']?[0-9a-f]{40}\b",
}

SECRETS_RE_SQL: str = "|".join(f"(?:{p})" for p in SECRET_PATTERNS.values())
_SECRETS_RE = re.compile(SECRETS_RE_SQL)


def find_secret_kinds(text: str | None) -> list[str]:
    """The secret kinds whose shape appears in ``text`` (empty when clean)."""
    if not text or not _SECRETS_RE.search(text):
        return []
    return [name for name, pat in SECRET_PATTERNS.items() if re.search(pat, text)]


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
