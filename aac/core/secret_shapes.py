r"""Secret shapes, the one table: processing redacts them (``aac.processing.secrets``) and publishing refuses any
text where one survives (:data:`SECRETS_RE_SQL`, run by DuckDB in ``aac.core.publishable`` and on single strings
by :func:`find_secret_kinds`). One table, so the publish gate can never ask for a longer or shorter token than
redaction removes (they once disagreed: ``ghp_`` 30 vs 36 characters, ``sk-`` 20 vs 32, ``hf_`` with or without
digits).

Every pattern here is both Python- and RE2-compatible (no lookarounds, no backreferences; ``\d`` and ``\w`` are
ASCII in RE2, so the gate is never wider than redaction) and carries no boundary anchor: each user adds its own (redaction checks the character before a match in Python, where Unicode letters
count; the gate wraps a ``bounded`` shape in ``\b``). Typed placeholders such as ``[REDACTED:aws_access_key]``
never match.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Shape:
    pattern: str
    bounded: bool = True  # no letter, digit or "_" right before it (and, with ``end_bounded``, right after it)
    end_bounded: bool = False


# Tokens whose prefix and length tell them apart (vendors' documented formats): redacted and refused.
TOKEN_SHAPES: dict[str, Shape] = {
    "aws_access_key": Shape(r"(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16}", end_bounded=True),
    "github_token": Shape(r"(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})"),
    "gitlab_token": Shape(r"glpat-[A-Za-z0-9_-]{20,}"),
    "anthropic_key": Shape(r"sk-ant-[A-Za-z0-9_-]{20,}"),
    "openai_key": Shape(r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}"),
    "stripe_key": Shape(r"(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}"),
    "slack_token": Shape(r"xox[abposre]-[A-Za-z0-9-]{10,}"),
    "google_api_key": Shape(r"AIza[0-9A-Za-z_-]{35}"),
    "huggingface_token": Shape(r"hf_[A-Za-z0-9]{30,}"),
    "npm_token": Shape(r"npm_[A-Za-z0-9]{36}"),
    "databricks_token": Shape(r"dapi[0-9a-f]{32}(?:-\d)?"),
    "shopify_token": Shape(r"shp(?:at|ss|ca|pa)_[0-9a-fA-F]{32}"),
    "digitalocean_token": Shape(r"do[opr]_v1_[0-9a-f]{64}"),
    "slack_app_token": Shape(r"xapp-\d-[A-Za-z0-9-]{20,}"),
    "supabase_token": Shape(r"sbp_[0-9a-f]{40}"),
    "groq_key": Shape(r"gsk_[A-Za-z0-9]{40,}"),
    "age_secret_key": Shape(r"AGE-SECRET-KEY-1[0-9A-Z]{50,}"),
    "discord_webhook": Shape(r"https://(?:canary\.|ptb\.)?discord(?:app)?\.com/api/webhooks/\d+/[\w-]{40,}",
                             bounded=False),
    "azure_client_secret": Shape(r"[\w~.-]{3}\dQ~[\w~.-]{31,34}", bounded=False),
}

# A Discord bot token's id part: base64 of 17-20 ASCII digits. Base64 of digits has its own few characters at each
# of the 4 places of a group (groups of 4 for 3 digits, then 2 or 3 characters for the last 1 or 2): 5 groups and
# 3 characters (17 digits), or 6 groups and 0, 2 or 3 characters (18-20).
_DIGITS3, _DIGITS2, _DIGITS1 = "[MNO][DTjz][AEIMQUYcgk][w-z0-5]", "[MNO][DTjz][AEIMQUYcgk]", "[MNO][AQgw]"
DISCORD_ID_SHAPE = f"(?:(?:{_DIGITS3}){{5}}{_DIGITS2}|(?:{_DIGITS3}){{6}}(?:{_DIGITS2}|{_DIGITS1})?)"

# A private key block's header, its type captured (redaction takes the block through the END line of that type; the
# gate needs only the header).
PRIVATE_KEY_HEADER = r"-----BEGIN ((?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?)-----"

# Shapes the gate checks as written here while redaction finds the same secrets by richer Python rules (the PEM or
# PuTTY block, a URL password less placeholders and versions, a Discord id that decodes to digits, the ``password``
# rule): each is no wider than what those rules redact (tests/hub pin it).
GATE_ONLY_SHAPES: dict[str, str] = {
    "private_key": r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----",
    # the user may be empty (redis://:pw@); a placeholder (${VAR}, <password>, {{pw}}, %s) is no secret, nor is an
    # image version (docker://alpine:3.19@sha256:...): a password holds a character that is no digit or dot
    "url_password": r"[a-zA-Z][a-zA-Z0-9+.-]*://[^/\s:@]*:(?:[^/\s:@$<{%*0-9.][^/\s:@]{2,}|"
                    r"[0-9.][^/\s:@]*[^/\s:@0-9.][^/\s:@]*)@[^\s/]+",
    "putty_private_key": r"PuTTY-User-Key-File-[0-9]+:",
    # id.timestamp.hmac, bounded like redaction's so that a longer run of the same characters is not one
    "discord_bot_token": r"(?:^|[^A-Za-z0-9_-])" + DISCORD_ID_SHAPE + r"\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}"
                         r"(?:[^A-Za-z0-9_-]|$)",
    "gcp_private_key_id": r"private_key_id[\"']?\s*[:=]\s*[\"']?[0-9a-f]{40}\b",
}


def _gate_pattern(shape: Shape) -> str:
    return (r"\b" if shape.bounded else "") + shape.pattern + (r"\b" if shape.end_bounded else "")


# What publishing refuses: kind -> RE2/Python pattern.
SECRET_PATTERNS: dict[str, str] = {**{k: _gate_pattern(s) for k, s in TOKEN_SHAPES.items()}, **GATE_ONLY_SHAPES}
SECRETS_RE_SQL: str = "|".join(f"(?:{p})" for p in SECRET_PATTERNS.values())
_SECRETS_RE = re.compile(SECRETS_RE_SQL)


def redaction_pattern(kind: str) -> str:
    """The token shape as redaction compiles it (Python ``re``): a shape bounded at its end may not run on."""
    shape = TOKEN_SHAPES[kind]
    return shape.pattern + ("(?![0-9A-Za-z])" if shape.end_bounded else "")


def find_secret_kinds(text: str | None) -> list[str]:
    """The secret kinds whose shape appears in ``text`` (empty when clean)."""
    if not text or not _SECRETS_RE.search(text):
        return []
    return [name for name, pat in SECRET_PATTERNS.items() if re.search(pat, text)]
