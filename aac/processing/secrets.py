"""Secrets and PII: find them, replace each with a typed placeholder, count them.

Detection = detect-secrets' regex detectors (their ``denylist`` patterns, used directly so we get match spans
for redaction) plus our own patterns for what it misses or reports only partly (GitHub fine-grained PATs,
``sk-``/``sk-ant-`` keys, Google/HF/npm tokens, PEM blocks spanning lines, passwords in URLs, ``password = ...``
assignments, e-mail addresses). detect-secrets is slow per line, so a cheap prefilter regex picks the few
candidate lines first; most agent files have none and cost one regex search.

Placeholders look like ``[REDACTED:aws_access_key]`` so analysts still see that a key was there and of what kind.
E-mail addresses of roles (noreply@, support@, ...) and example domains are not personal data and are kept.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

# Own detectors: (type, pattern, group to redact: 0 = whole match).
_OWN: tuple[tuple[str, str, int], ...] = (
    ("aws_access_key", r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16}\b", 0),
    ("aws_secret_key", r"(?i)aws.{0,20}?(?:secret|key).{0,20}?[\"'=:\s]\s*[\"']?([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])", 1),
    ("github_token", r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})", 0),
    ("gitlab_token", r"\bglpat-[A-Za-z0-9_-]{20,}", 0),
    ("anthropic_key", r"\bsk-ant-[A-Za-z0-9_-]{20,}", 0),
    ("openai_key", r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}", 0),
    ("stripe_key", r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}", 0),
    ("slack_token", r"\bxox[abposre]-[A-Za-z0-9-]{10,}", 0),
    ("slack_webhook", r"https://hooks\.slack\.com/services/[A-Za-z0-9/_-]{20,}", 0),
    ("google_api_key", r"\bAIza[0-9A-Za-z_-]{35}", 0),
    ("huggingface_token", r"\bhf_[A-Za-z0-9]{30,}", 0),
    ("npm_token", r"\bnpm_[A-Za-z0-9]{36}", 0),
    ("pypi_token", r"\bpypi-AgE[A-Za-z0-9_-]{50,}", 0),
    ("jwt", r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}", 0),
    ("password_in_url", r"\b[a-zA-Z][a-zA-Z0-9+.-]{1,20}://[^\s:/@'\"<>]{1,64}:([^\s@/'\"<>]{3,128})@[A-Za-z0-9.-]+", 1),
    ("password", r"(?i)\b(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token|client[_-]?secret|"
                 r"private[_-]?key|secret[_-]?key)\b[\"']?\s*[:=]\s*[\"']?([A-Za-z0-9_\-+/=.!@#$%^&*]{8,})[\"']?", 1),
    ("email", r"(?<![:/\w.%+-])([A-Za-z0-9._%+-]+)@([A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,24})\b", 0),
)
_PEM = re.compile(r"-----BEGIN ((?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?)-----.*?(?:-----END \1-----|\Z)", re.S)

# Anything that can start a secret (one alternative per detector family); lines without a hit skip every detector.
PREFILTER = re.compile(
    r"AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA|A3T|ABIA|ACCA|gh[pousr]_|github_pat_|gl[a-z]{2,6}-|GR1348941|sk-|[sr]k_|xox|"
    r"hooks\.slack|AIza|hf_|npm_|pypi-|eyJ|SG\.|sq0csp-|AKC|\bAP[\dA-F]|AccountKey=|PuTTY|BEGIN|"
    r"[A-Za-z0-9._%+-]@[A-Za-z0-9-]+\.[A-Za-z]|://[^\s/@]*:[^\s/@]*@|\d{8,10}:[0-9A-Za-z_-]{35}|\b(?:AC|SK)[a-z0-9]{32}|"
    r"[0-9a-z]{32}-us\d|\b[MNO][a-zA-Z\d_-]{23,25}\.|"
    r"(?i:pass|pwd|secret|token|key|auth|cos|iam|softlayer|cloudant|aws)[\w\"'\]-]{0,30}\s*(?:[:=]|!=)"
)

_ROLE_LOCALS = {"noreply", "no-reply", "donotreply", "support", "info", "contact", "hello", "security", "admin",
                "team", "help", "sales", "privacy", "abuse", "webmaster", "postmaster", "git", "user", "you", "name",
                "email", "someone", "example", "test", "foo", "me"}
_EXAMPLE_DOMAINS = re.compile(r"(?:^|\.)(?:example\.(?:com|org|net)|example|localhost|test|invalid|domain\.com|email\.com|"
                              r"company\.com|yourdomain\.com|anthropic\.com|openai\.com|github\.com)$", re.I)
_PLACEHOLDER_VALUE = re.compile(r"(?i)^(?:your|my|<|\$|\{|%|xxx|\*\*\*|changeme|example|placeholder|dummy|sample|test|"
                                r"process\.env|os\.environ|env\.|secrets\.|true|false|null|none|required|optional|string)|"
                                r"your[_-]|_here$|\.\.\.$")
_FILE_EXT = re.compile(r"\.(?:png|jpe?g|gif|svg|webp|md|js|ts|py|css|html|json|ya?ml)$", re.I)

_MAX_LINE = 4096  # minified blobs: scan only the head of very long lines


@dataclass(frozen=True)
class Finding:
    kind: str
    start: int
    end: int


@dataclass(frozen=True)
class Scrubbed:
    text: str
    found: int
    kinds: tuple[str, ...]


def _slug(secret_type: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", secret_type.lower()).strip("_")


@lru_cache(maxsize=1)
def _detect_secrets_patterns() -> tuple[tuple[str, re.Pattern], ...]:
    """Every regex detector of detect-secrets, as (typed name, compiled pattern)."""
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class

    out = []
    for secret_type, cls in sorted(get_mapping_from_secret_type_to_class().items()):
        denylist = getattr(cls, "denylist", None)
        if not denylist or cls.__name__ in {"IPPublicDetector"}:
            continue  # public IPs in docs are not secrets
        for pat in denylist:
            out.append((_slug(secret_type), pat if isinstance(pat, re.Pattern) else re.compile(pat)))
    return tuple(out)


_OWN_COMPILED = tuple((k, re.compile(p), g) for k, p, g in _OWN)


def _email_is_personal(m: re.Match) -> bool:
    local, domain = m.group(1), m.group(2)
    if local.lower() in _ROLE_LOCALS or _EXAMPLE_DOMAINS.search(domain) or _FILE_EXT.search(domain):
        return False
    if re.fullmatch(r"\d+(?:\.\d+)*", domain.split(".")[0]):  # package@1.2.3 style version pins
        return False
    return True


def _own_findings(line: str, offset: int) -> list[Finding]:
    found = []
    for kind, pat, group in _OWN_COMPILED:
        for m in pat.finditer(line):
            if kind == "email":
                if not _email_is_personal(m):
                    continue
            elif kind == "password":
                value = m.group(1)
                if _PLACEHOLDER_VALUE.search(value) or not (re.search(r"\d", value) and re.search(r"[A-Za-z]", value)):
                    continue
            elif kind == "password_in_url" and _PLACEHOLDER_VALUE.search(m.group(1)):
                continue
            s, e = m.span(group)
            found.append(Finding(kind, offset + s, offset + e))
    return found


def _library_findings(line: str, offset: int) -> list[Finding]:
    found = []
    for kind, pat in _detect_secrets_patterns():
        for m in pat.finditer(line):
            groups = [i for i in range(1, (pat.groups or 0) + 1) if m.group(i)]
            longest = max(groups, key=lambda i: len(m.group(i)), default=0)
            g = longest if longest and len(m.group(longest)) >= 8 else 0
            s, e = m.span(g)
            if e > s:
                found.append(Finding(kind, offset + s, offset + e))
    return found


def find_secrets(text: str) -> list[Finding]:
    """Non-overlapping findings in text order (on overlap the earlier, then longer, finding wins)."""
    found = [Finding("private_key", m.start(), m.end()) for m in _PEM.finditer(text)]
    last_line = -1
    for m in PREFILTER.finditer(text):
        start = text.rfind("\n", 0, m.start()) + 1
        if start <= last_line:
            continue
        last_line = start
        end = text.find("\n", m.start())
        line = text[start:(len(text) if end < 0 else end)][:_MAX_LINE]
        found += _own_findings(line, start)
        found += _library_findings(line, start)
    found.sort(key=lambda f: (f.start, -(f.end - f.start)))
    merged: list[Finding] = []
    for f in found:
        if merged and f.start < merged[-1].end:
            continue
        merged.append(f)
    return merged


def scrub(text: str) -> Scrubbed:
    """``text`` with every finding replaced by ``[REDACTED:<kind>]``; the count and kinds found."""
    findings = find_secrets(text)
    if not findings:
        return Scrubbed(text, 0, ())
    parts, pos = [], 0
    for f in findings:
        parts.append(text[pos:f.start])
        parts.append(f"[REDACTED:{f.kind}]")
        pos = f.end
    parts.append(text[pos:])
    return Scrubbed("".join(parts), len(findings), tuple(sorted({f.kind for f in findings})))
