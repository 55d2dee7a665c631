"""Secrets and PII: find them, replace each with a typed placeholder, count them.

Detection = detect-secrets' regex detectors (their ``denylist`` patterns, used directly so we get match spans
for redaction) plus our own patterns for what it misses or reports only partly (GitHub fine-grained PATs,
``sk-``/``sk-ant-`` keys, Google/HF/npm tokens, PEM blocks spanning lines, passwords in URLs, ``password = ...``
assignments, .pgpass lines, Discord bot tokens by shape, e-mail addresses). Running ~60 patterns over every line is
slow, so each detector has literal triggers found with ``str.find``: a detector runs only on the lines where one of
its triggers occurs (a few read on to the next lines: an AWS secret in the table row after its key id, aider's
``api-key:`` list). A long value wrapped onto the next line loses its continuation lines too.

Placeholders look like ``[REDACTED:aws_access_key]`` so analysts still see that a key was there and of what kind.
E-mail addresses of roles (noreply@, support@, git@, ...) and placeholder domains are not personal data and are kept.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from aac.core.secret_shapes import DISCORD_ID_SHAPE, PRIVATE_KEY_HEADER, TOKEN_SHAPES, redaction_pattern

# Own detectors: (type, pattern, group to redact (0 = whole match), lowercase literal triggers). Token shapes come
# from the one table in aac.core.secret_shapes, which the publish gate checks too.
_shape = redaction_pattern
# A detector runs only on the lines where one of its triggers occurs (found with str.find, which is fast);
# patterns start with literals where possible and word boundaries are checked after matching, for speed.
_OWN: tuple[tuple[str, str, int, tuple[str, ...]], ...] = (
    ("aws_access_key", _shape("aws_access_key"), 0,
     ("akia", "asia", "agpa", "aida", "aroa", "anpa", "anva", "aipa")),
    ("aws_secret_key", r"(?i)(?:aws.{0,20}?(?:secret|key)|secret_?access_?key).{0,20}?[\"'=:\s]\s*[\"']?"
                       r"([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])", 1, ("aws", "secretaccesskey", "secret_access_key")),
    ("aws_session_token", r"(?i)session_?token[\"']?\s*[:=]\s*[\"']?([A-Za-z0-9/+=]{100,})", 1,
     ("sessiontoken", "session_token")),
    ("github_token", _shape("github_token"), 0,
     ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_")),
    ("gitlab_token", _shape("gitlab_token"), 0, ("glpat-",)),
    ("anthropic_key", _shape("anthropic_key"), 0, ("sk-ant-",)),
    ("openai_key", _shape("openai_key"), 0, ("sk-",)),
    ("stripe_key", _shape("stripe_key"), 0, ("k_live_", "k_test_")),
    ("slack_token", _shape("slack_token"), 0, ("xox",)),
    ("slack_webhook", r"https://hooks\.slack\.com/services/[A-Za-z0-9/_-]{20,}", 0, ("hooks.slack",)),
    ("google_api_key", _shape("google_api_key"), 0, ("aiza",)),
    ("huggingface_token", _shape("huggingface_token"), 0, ("hf_",)),
    ("npm_token", _shape("npm_token"), 0, ("npm_",)),
    ("pypi_token", r"pypi-AgE[A-Za-z0-9_-]{50,}", 0, ("pypi-",)),
    ("jwt", r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}", 0, ("eyj",)),
    # services whose tokens carry a prefix (vendors' documented formats)
    ("databricks_token", _shape("databricks_token"), 0, ("dapi",)),
    ("shopify_token", _shape("shopify_token"), 0, ("shpat_", "shpss_", "shpca_", "shppa_")),
    ("digitalocean_token", _shape("digitalocean_token"), 0, ("_v1_",)),
    ("slack_app_token", _shape("slack_app_token"), 0, ("xapp-",)),
    ("supabase_token", _shape("supabase_token"), 0, ("sbp_",)),
    ("groq_key", _shape("groq_key"), 0, ("gsk_",)),
    ("xai_key", r"xai-[A-Za-z0-9]{40,}", 0, ("xai-",)),
    ("linear_key", r"lin_api_[A-Za-z0-9]{30,}", 0, ("lin_api_",)),
    ("replicate_token", r"r8_[A-Za-z0-9]{30,}", 0, ("r8_",)),
    ("age_secret_key", _shape("age_secret_key"), 0, ("age-secret-key-1",)),
    ("mailgun_key", r"key-[0-9a-f]{32}(?![0-9a-f])", 0, ("key-",)),
    ("discord_webhook", _shape("discord_webhook"), 0,
     ("discord",)),
    # Twilio's auth token is 32 hex digits with no prefix: taken after an "auth token"/"secret" word or right after
    # the account SID (AC + 32 hex) it pairs with, on a line that names Twilio
    ("twilio_auth_token", r"(?:(?i:auth[_ -]?token|secret)[\"']?(?:\s*[:=]\s*|\s+is\s+|\s+)[\"']?"
                          r"|\bAC[0-9a-f]{32}\b[^\n]{0,20}?)\b([0-9a-f]{32})\b", 1, ("twilio",)),
    # a .pgpass line, hostname:port:database:username:password (a port number in field 2), on its own line or quoted;
    # the pattern starts at the port's colon (fast on whole texts), _PGPASS_HOST checks the hostname before it
    ("pgpass_password", r":\d{2,5}:[^\s:\"'`]+:[^\s:\"'`]+:([^\s:\"'`]+)(?=[\"'`]|[ \t\r]*(?:\n|$))", 1, ("",)),
    ("azure_client_secret", _shape("azure_client_secret"), 0, ("q~",)),
    ("azure_shared_key", r"(?i)(?:SharedAccessKey|AccountKey)=([A-Za-z0-9+/=]{20,})", 1,
     ("sharedaccesskey=", "accountkey=")),
    ("azure_sas_signature", r"[?&]sig=([A-Za-z0-9%+/=]{20,})", 1, ("sig=",)),
    # credentials written in a header or a registry config: "auth": "<base64>", _auth=..., Authorization: Basic ...
    ("auth_header", r"(?i)(?:\"auth\"\s*:\s*\"|_auth\s*=\s*|authorization:\s*(?:basic|bearer|token)\s+)"
                    r"([A-Za-z0-9+/=._~-]{16,})", 1, ("auth",)),
    # an environment-style name that says secret: DATABRICKS_TOKEN=..., AZURE_STORAGE_KEY=..., BOT_TOKEN: ...
    # passwords on command lines: mysql -pSECRET, --password SECRET, curl -u user:SECRET
    ("cli_password", r"(?:--password[= ]|\bmysql(?:dump|admin)?\b[^\n]{0,80}?\s-p|\bcurl\b[^\n]{0,120}?\s-u\s*[^\s:'\"]+:)"
                     r"[\"']?([^\s'\"]{4,})", 1, ("--password", "mysql", "curl")),
    ("env_secret", r"\b[A-Z][A-Z0-9_]*(?:TOKEN|_KEY|SECRET|_PAT|PASSWORD|_PASS|PASSPHRASE)(?:_BASE)?[\"']?\s*[:=]\s*[\"']?"
                   r"([^\s\"'`,;]{8,})", 1, ("token", "_key", "secret", "_pat", "password", "_pass", "passphrase")),
    ("password_in_url", r"[a-zA-Z][a-zA-Z0-9+.-]{1,20}://[^\s:/@'\"<>]{0,64}:([^\s@/'\"<>]{3,128})@[A-Za-z0-9.-]+", 1, ("://",)),
    ("password", r"(?i)(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token|\btoken|client[_-]?secret|"
                 r"private[_-]?key(?:[_-]?id)?|secret[_-]?key)[\"']?\s*[:=]\s*[\"']?([A-Za-z0-9_\-+/=.!@#$%^&*~]{8,})[\"']?", 1,
     ("pass", "pwd", "secret", "key", "token")),
)
# Detectors that read on past their trigger's line: (type, pattern, group, triggers, lines after the trigger's line).
_AWS_KEY_ID = r"(?:AKIA|ASIA)[0-9A-Z]{16}(?![0-9A-Za-z])"
_AWS_SECRET_VALUE = r"(?<![A-Za-z0-9/+=])([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"
_OWN_MULTILINE: tuple[tuple[str, str, int, tuple[str, ...], int], ...] = (
    # a 40-character secret access key beside its key id with no "aws" word: a table row, or the row after the id's
    ("aws_secret_key", _AWS_KEY_ID + r"[^\n]{0,160}?(?:\n[^\n]{0,160}?)?" + _AWS_SECRET_VALUE, 1, ("akia", "asia"), 1),
    ("aws_secret_key", _AWS_SECRET_VALUE + r"[^\n]{0,160}?" + _AWS_KEY_ID, 1, ("akia", "asia"), 1),
    # aider's api-key setting, a YAML list of provider=key under it ("api-key:\n  - mistral=...") or inline
    ("aider_api_key", r"(?m)^[ \t]*api-key:[ \t]*(?:\r?\n[ \t]*-[^\n]*){0,7}?(?:\r?\n)?[ \t]*-[ \t]*"
                      r"[a-z][a-z0-9_.-]{1,30}=[\"']?([^\s\"'#,\]]{8,})", 1, ("api-key",), 8),
)
_NEAR_KEY_ID = {p for k, p, *_ in _OWN_MULTILINE if k == "aws_secret_key"}
_PGPASS_HOST = re.compile(r"(?m)(?:^[ \t]*|[\"'`])(?:\*|[A-Za-z0-9-]*[A-Za-z.][A-Za-z0-9.-]*)\Z")
_OWN_URL_PASSWORD = re.compile(next(p for k, p, _, _ in _OWN if k == "password_in_url"))
# rules by the name a value is given, not by its shape
_GENERIC = {"password", "env_secret", "auth_header", "cli_password", "aider_api_key"}
_BOUNDED = {k for k, shape in TOKEN_SHAPES.items() if shape.bounded} | {
    "pypi_token", "jwt", "xai_key", "linear_key", "replicate_token", "mailgun_key"}
# A key block: the header through its END line when one follows within 16 KB (whatever lies between: escaped
# "\n" in JSON or .env values, quoting, string concatenation); without one, the header and the base64 lines that
# follow it, with the body's shorter last line. Prose that merely names the header ("files starting with
# -----BEGIN RSA PRIVATE KEY-----") loses the header only, never the rest of the file.
_PEM = re.compile(PRIVATE_KEY_HEADER +
                  r"(?:(?s:.){0,16384}?-----END \1-----"
                  r"|(?:(?:[ \t]*(?:\r?\n|\\n)[ \t>]*[A-Za-z0-9+/=]{16,}[ \t]*)+"  # full base64 lines (also quoted: "> "),
                  r"(?:\r?\n[ \t>]*(?=[A-Za-z]*[0-9+/=])[A-Za-z0-9+/]{1,15}={0,2}[ \t]*(?![^\r\n]))?)?)")  # the
                  # body's shorter last line: base64 with a digit, "+", "/" or "=" padding; a word alone is prose
# A Discord bot token, found by its shape alone: base64url of the bot's numeric id, a 6-character timestamp, an HMAC.
# Base64 of ASCII digits has its own few characters at each of the 4 places of a group (groups of 4 for 3 digits, then
# 2 or 3 characters for the last 1 or 2), so the shape is rare; the id must also decode to 17-20 digits. The scan
# starts at the dotted tail (a literal, fast on whole texts) and then checks the id before it.
_DISCORD_TAIL = re.compile(r"\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}(?![A-Za-z0-9_-])")
_DISCORD_ID = re.compile(r"(?<![A-Za-z0-9_-])" + DISCORD_ID_SHAPE + r"\Z")
# a PuTTY key file: the header and the "Key: value" / base64 lines that follow it, through its Private-MAC line
_PUTTY = re.compile(r"PuTTY-User-Key-File-\d+:[^\n]*(?:\r?\n(?:[A-Za-z-]+: [^\n]*|[A-Za-z0-9+/=]{8,}[ \t]*))*")
_URL_USERINFO = re.compile(r"(?:[a-zA-Z][a-zA-Z0-9+.-]*://[^\s/@]*:?|/)\Z")  # what precedes a URL's user or password
_EMAIL_AT = re.compile(r"@([A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,24})(?![A-Za-z0-9-])")
_EMAIL_LOCAL = re.compile(r"[A-Za-z0-9._%+-]{1,64}\Z")
# a Google Cloud service account (name@project.iam.gserviceaccount.com, n-compute@developer.gserviceaccount.com)
_SERVICE_ACCOUNT_DOMAIN = re.compile(r"(?:^|\.)gserviceaccount\.com$", re.I)

# Lowercase triggers of detect-secrets' detectors (by their typed name); a detector not listed runs on every line
# that any trigger selected, plus the whole text when it is cheap.
_LIBRARY_TRIGGERS: dict[str, tuple[str, ...]] = {
    "aws_access_key": ("akia", "asia", "a3t", "abia", "acca", "aws"),
    "artifactory_credentials": ("akc", "artifactory", "jfrog"),
    "azure_storage_account_access_key": ("accountkey=",),
    "basic_auth_credentials": ("://",),
    "cloudant_credentials": ("cloudant",),
    "discord_bot_token": ("discord",),
    "github_token": ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
    "gitlab_token": ("glpat-", "gldt-", "glft-", "glsoat-", "glrt-", "gr1348941", "glcbt-", "glimt-", "glptt-", "glagent-", "gloas-"),
    "ibm_cos_hmac_credentials": ("ibm", "cos_", "cos-", "hmac"),
    "ibm_cloud_iam_key": ("ibm", "iam"),
    "json_web_token": ("eyj",),
    "mailchimp_access_key": ("-us",),
    "npm_tokens": ("_authtoken",),
    "openai_token": ("sk-",),
    "private_key": ("begin", "putty"),
    "pypi_token": ("pypi-",),
    "sendgrid_api_key": ("sg.",),
    "slack_token": ("xox", "hooks.slack"),
    "softlayer_credentials": ("softlayer",),
    "square_oauth_secret": ("sq0csp-",),
    "stripe_access_key": ("k_live_",),
    "telegram_bot_token": ("telegram", "bot"),
    "twilio_api_key": ("",),  # cheap literal-led patterns: whole text
}

_ROLE_LOCALS = {"noreply", "no-reply", "donotreply", "support", "info", "contact", "hello", "security", "admin",
                "team", "help", "sales", "privacy", "abuse", "webmaster", "postmaster", "git", "user", "you", "name",
                "email", "someone", "example", "test", "foo"}
# Placeholder domains; example.com is NOT among them: "jane.doe@example.com" is shaped like personal data, redact it.
_EXAMPLE_DOMAINS = re.compile(r"(?:^|\.)(?:localhost|invalid|local|test|example|localdomain|domain\.com|email\.com|"
                              r"yourdomain\.com|company\.com)$", re.I)  # reserved / dev-only TLDs: seed accounts
# "password = settings.SECRET_KEY_V2", "apiKey: config.apiKey2", "pwd = os.getcwd()": code naming a value, not one
_CODE_REFERENCE = re.compile(r"(?i)^(?:os|process|config|cfg|conf|settings|env|environ|self|this|app|options|opts|"
                             r"args|params|props|window|ctx|context|secrets|vault|keyring)\.[A-Za-z_]")
_PLACEHOLDER_VALUE = re.compile(r"(?i)^(?:your|my[_-]?(?:pass|pw|secret|key|token|api)|<|\$(?:\{|(?-i:[A-Z_][A-Z0-9_]*)$)|"
                                r"\{|%(?:s|d|\(|(?-i:[A-Z_]+)%)|xxx|\*\*\*|changeme|example|placeholder|dummy|sample|test|"
                                r"process\.env|os\.environ|env\.|secrets\.|true|false|null|none|required|optional|string)|"
                                r"your[_-]|_here$|\.\.\.$")
# "PWD=/workspace/app1", "private_key: ./keys/id_ed25519", "secret: projects/p-42/secrets/db/versions/3": where a
# secret lives, not the secret
_PATH_OR_NAME = re.compile(r"^(?:\.{0,2}/|~/|[A-Za-z]:\\|[\w.-]+(?:/[\w.-]+){2,}$)")
_VERSION = re.compile(r"\d+(?:\.\d+)+")  # "docker://alpine:3.19@sha256:...": an image version, not a password
_FILE_EXT = re.compile(r"\.(?:png|jpe?g|gif|svg|webp|md|js|ts|py|css|html|json|ya?ml)$", re.I)

# a value that runs on: the rest of its line is at most a closing quote and a concatenation (+) or continuation (\\)
_VALUE_RUNS_ON = re.compile(r"[\"']?[ \t]*[+\\]?[ \t]*\r?\n")
_CONTINUED_LINE = re.compile(r"[ \t]*[\"']?([A-Za-z0-9+/_-]{8,}={0,2})[\"']?[ \t]*[;,)+\\]*[ \t]*\r?(?:\n|$)")
_HEX_RUN = re.compile(r"[0-9a-fA-F]+")
_BASE64_RUN = re.compile(r"[A-Za-z0-9+/_-]+={0,2}")
_NOT_WRAPPED = {"email", "gcp_service_account", "private_key", "password_in_url"}  # never run onto the next line
_MAX_WRAPPED_LINES = 16

_MAX_LINE = 4096  # scan window after a trigger (minified blobs: never a whole huge line per trigger)
_LOOKBEHIND = 256  # ... and before it (a keyword such as "aws" may precede its secret)


@dataclass(frozen=True)
class Finding:
    kind: str
    start: int
    end: int
    library: bool = False  # found by a detect-secrets pattern (ours win ties: their names are more specific)


@dataclass(frozen=True)
class Scrubbed:
    text: str
    found: int
    kinds: tuple[str, ...]


def _slug(secret_type: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", secret_type.lower()).strip("_")


@lru_cache(maxsize=1)
def _detectors() -> tuple[tuple[tuple[str, ...], int, tuple[tuple[str, re.Pattern, int], ...]], ...]:
    """Our detectors plus every regex detector of detect-secrets, grouped by triggers and by how many lines after the
    trigger's they read: (triggers, lines after, ((name, pattern, group), ...))."""
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class

    out = [(k, re.compile(p), g, (t, 0)) for k, p, g, t in _OWN]
    out += [(k, re.compile(p), g, (t, after)) for k, p, g, t, after in _OWN_MULTILINE]
    for secret_type, cls in sorted(get_mapping_from_secret_type_to_class().items()):
        denylist = getattr(cls, "denylist", None)
        if not denylist or cls.__name__ in {"IPPublicDetector"}:
            continue  # public IPs in docs are not secrets
        kind = _slug(secret_type)
        triggers = _LIBRARY_TRIGGERS.get(kind, ("",))  # "" matches every line: unknown detectors always run
        for pat in denylist:
            out.append((kind, pat if isinstance(pat, re.Pattern) else re.compile(pat), -1, (triggers, 0)))
    groups: dict[tuple[tuple[str, ...], int], list] = {}
    for kind, pat, group, key in out:
        groups.setdefault(key, []).append((kind, pat, group))
    return tuple((t, after, tuple(d)) for (t, after), d in groups.items())


def _email_is_personal(local: str, domain: str) -> bool:
    if local.lower() in _ROLE_LOCALS or _EXAMPLE_DOMAINS.search(domain) or _FILE_EXT.search(domain):
        return False
    if re.fullmatch(r"\d+(?:\.\d+)*", domain.split(".")[0]):  # package@1.2.3 style version pins
        return False
    return True


def _trie_pattern(words: list[str]) -> str:
    """One regex for many literals, factored as a trie: Python's re tries alternatives one by one, a trie does not."""
    root: dict = {}
    for w in words:
        node = root
        for ch in w:
            node = node.setdefault(ch, {})
        node[""] = {}

    def emit(node: dict) -> str:
        alts = [re.escape(ch) + emit(sub) for ch, sub in sorted(node.items()) if ch]
        if not alts:
            return ""
        body = "(?:" + "|".join(alts) + ")"
        return body + "?" if "" in node else body

    return emit(root)


@lru_cache(maxsize=1)
def _trigger_index() -> tuple[re.Pattern, dict[str, list[int]], list[int]]:
    """The trie regex of all triggers, trigger -> detector groups it selects, and the groups that always run."""
    by_trigger: dict[str, list[int]] = {}
    always: list[int] = []
    for i, (triggers, _, _) in enumerate(_detectors()):
        for t in triggers:
            if t:
                by_trigger.setdefault(t, []).append(i)
            else:
                always.append(i)
    # the trie reports the longest trigger at a position and matches do not overlap: let a trigger select the groups
    # of every trigger inside it too ("sk-ant-" -> "sk-", "_pass" -> "pass")
    closed = {t: sorted({i for p, gs in by_trigger.items() if p in t for i in gs}) for t in by_trigger}
    return re.compile("(?=(" + _trie_pattern(sorted(by_trigger, key=len, reverse=True)) + "))"), closed, always


def _line_span(text: str, pos: int, lines_after: int = 0) -> tuple[int, int]:
    """The part of the trigger's line a detector scans: a window around the trigger, so a secret deep in a long
    (minified) line is found too while the scan of such a line stays bounded; plus ``lines_after`` whole lines
    for detectors whose secret may sit on a later line (a table's next row, a YAML list under its key)."""
    start = text.rfind("\n", 0, pos) + 1
    end = text.find("\n", pos)
    for _ in range(lines_after):
        end = -1 if end < 0 else text.find("\n", end + 1)
    end = len(text) if end < 0 else end
    return max(start, pos - _LOOKBEHIND), min(end, pos + _MAX_LINE * (1 + lines_after))


def _merged(spans: set[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[list[int]] = []
    for s, e in sorted(spans):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return [(s, e) for s, e in out]


def _span(m: re.Match, group: int) -> tuple[int, int]:
    if group >= 0:
        return m.span(group)
    # detect-secrets patterns: redact the value group when it is the secret itself, else the whole match
    groups = [i for i in range(1, (m.re.groups or 0) + 1) if m.group(i)]
    longest = max(groups, key=lambda i: len(m.group(i)), default=0)
    return m.span(longest if longest and len(m.group(longest)) >= 8 else 0)


def _keep_match(kind: str, m: re.Match, text: str) -> bool:
    if kind in _BOUNDED and m.start() > 0 and (text[m.start() - 1].isalnum() or text[m.start() - 1] == "_"):
        return False
    if kind == "cli_password":  # a word after --password is prose ("use --password flag"); a password has more
        value = m.group(1)
        return (not _PLACEHOLDER_VALUE.search(value) and not value.startswith("-")
                and bool(re.search(r"[\d\W_]", value) and re.search(r"[A-Za-z]", value)))
    if kind == "auth_header":
        value = m.group(1)
        return not _PLACEHOLDER_VALUE.search(value) and bool(re.search(r"\d", value) and re.search(r"[A-Za-z]", value))
    if kind in ("password", "env_secret", "aider_api_key"):
        value = m.group(1)
        if _CODE_REFERENCE.match(value) or text[m.end(1):m.end(1) + 1] == "(" or _PATH_OR_NAME.match(value):
            return False
        if _PLACEHOLDER_VALUE.search(value):
            return False
        # digits and letters; or, for a password or passphrase, a long mixed-case run with no dot (a token or key
        # named so without a digit is far likelier a name: "token: StreamingResponse", "AppConfig.sonarrApiKey")
        if re.search(r"\d", value) and re.search(r"[A-Za-z]", value):
            return True
        named_password = "pass" in m.group(0)[: m.start(1) - m.start()].lower()
        return named_password and len(value) >= 16 and "." not in value and bool(
            re.search(r"[a-z]", value) and re.search(r"[A-Z]", value))
    if kind == "password_in_url":
        return not _PLACEHOLDER_VALUE.search(m.group(1)) and not _VERSION.fullmatch(m.group(1))
    if kind == "aws_secret_key" and m.re.pattern in _NEAR_KEY_ID:  # no "aws" word said so: 40 random base64
        # characters have both cases and a digit or a sign; a git SHA (40 hex) beside a key id is kept
        value = m.group(1)
        return not _HEX_RUN.fullmatch(value) and bool(
            re.search(r"[A-Z]", value) and re.search(r"[a-z]", value) and re.search(r"[0-9/+]", value))
    if kind == "pgpass_password":  # "*" or a word such as "postgres" is a default or a placeholder, not a password
        value = m.group(1)
        host = _PGPASS_HOST.search(text, max(0, m.start() - 256), m.start())
        if not host or _FILE_EXT.search(host.group(0)):  # "app.py:120:4:W0612:unused-variable", a linter's line
            return False
        return len(value) >= 6 and not _PLACEHOLDER_VALUE.search(value) and bool(re.search(r"\d", value))
    if kind == "basic_auth_credentials" and m.re.groups:
        if "://" in m.group(0) and _OWN_URL_PASSWORD.search(text, max(0, m.start() - 32), m.end() + 256):
            return False  # password_in_url redacts just the password (this match would take the scheme's "://")
        return not _VERSION.fullmatch(max((g for g in m.groups() if g), key=len, default=""))
    return True


def _discord_bot_tokens(text: str) -> list[Finding]:
    found = []
    for tail in _DISCORD_TAIL.finditer(text):
        bot_id = _DISCORD_ID.search(text, max(0, tail.start() - 28), tail.start())
        if bot_id and _is_snowflake_b64(bot_id.group(0)):
            found.append(Finding("discord_bot_token", bot_id.start(), tail.end()))
    return found


def _is_snowflake_b64(first_part: str) -> bool:
    """A Discord id is a 17-20 digit snowflake: decoding tells a token from another dotted string of its shape."""
    import base64
    import binascii

    try:
        decoded = base64.urlsafe_b64decode(first_part + "=" * (-len(first_part) % 4))
    except (binascii.Error, ValueError):
        return False
    return decoded.isdigit() and 17 <= len(decoded) <= 20


def _emails(text: str) -> list[Finding]:
    found = []
    for m in _EMAIL_AT.finditer(text):
        local = _EMAIL_LOCAL.search(text, max(0, m.start() - 64), m.start())
        if not local or _URL_USERINFO.search(text, max(0, local.start() - 128), local.start()):
            continue  # scheme://user:pass@host is a URL credential, handled by password_in_url
        lp = local.group(0).strip(".")
        if lp and _SERVICE_ACCOUNT_DOMAIN.search(m.group(1)):  # names a credential, whatever its local part says
            found.append(Finding("gcp_service_account", local.start(), m.end()))
        elif lp and _email_is_personal(lp, m.group(1)):
            found.append(Finding("email", local.start(), m.end()))
    return found


def find_secrets(text: str) -> list[Finding]:
    """Non-overlapping findings in text order (on overlap the earlier, then longer, finding wins)."""
    found = [Finding("private_key", m.start(), m.end()) for pat in (_PEM, _PUTTY) for m in pat.finditer(text)]
    found += _discord_bot_tokens(text)
    low = text.lower()
    if "@" in text:
        found += _emails(text)
    groups = _detectors()
    trie, by_trigger, always = _trigger_index()
    lines: dict[int, set[tuple[int, int]]] = {i: {(0, len(text))} for i in always}
    for m in trie.finditer(low):  # a lookahead: triggers may overlap ("npm_key": "npm_" and "_key")
        for i in by_trigger.get(m.group(1), ()):
            lines.setdefault(i, set()).add(_line_span(text, m.start(), groups[i][1]))
    for i, spans in lines.items():
        for start, end in _merged(spans):
            for kind, pat, group in groups[i][2]:
                for m in pat.finditer(text, start, end):
                    if _keep_match(kind, m, text):
                        s, e = _span(m, group)
                        if e > s:
                            found.append(Finding(kind, s, e, group < 0))
    found = _non_overlapping(found)
    return _non_overlapping(found + [t for f in found for t in _wrapped_tails(text, f)])


def _non_overlapping(found: list[Finding]) -> list[Finding]:
    # on a tie a vendor's own shape names the finding, not a generic rule that caught the same value
    found = sorted(found, key=lambda f: (f.start, -(f.end - f.start), f.kind in _GENERIC, f.library, f.kind))
    merged: list[Finding] = []
    for f in found:
        if merged and f.start < merged[-1].end:
            continue
        merged.append(f)
    return merged


def _wrapped_tails(text: str, f: Finding) -> list[Finding]:
    """The rest of a long value wrapped onto the next lines (``API_KEY=<half>`` then ``<other half>``; a quoted
    string continued or concatenated: ``"<half>" +`` then ``"<other half>";``): one finding per continued line.
    A value continues only when it runs to its line's end and the next line holds nothing but more of its alphabet."""
    if f.kind in _NOT_WRAPPED or f.end - f.start < 16:
        return []
    alphabet = _HEX_RUN if _HEX_RUN.fullmatch(text, f.start, f.end) else _BASE64_RUN
    tails, end = [], f.end
    while len(tails) < _MAX_WRAPPED_LINES and _VALUE_RUNS_ON.match(text, end):
        line = _CONTINUED_LINE.match(text, text.index("\n", end) + 1)
        if not line or not alphabet.fullmatch(line.group(1)) or not _looks_like_key_part(line.group(1)):
            break
        tails.append(Finding(f.kind, *line.span(1), f.library))
        end = line.end(1)
    return tails


def _looks_like_key_part(run: str) -> bool:
    """Random key material mixes letters with digits or base64 signs; ``NEXT_NAME=`` (an .env line) is no key part,
    nor is a short word with a digit in it (``node18compat``): a short run must be hex or mix both cases."""
    if run.endswith("=") and re.search(r"[_-]", run):
        return False
    if not (re.search(r"[A-Za-z]", run) and re.search(r"[0-9+/]", run)):
        return False
    return len(run) >= 16 or bool(_HEX_RUN.fullmatch(run)) or bool(re.search(r"[a-z]", run) and re.search(r"[A-Z]", run))


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
