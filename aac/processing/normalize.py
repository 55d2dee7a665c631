"""Bad input first: decode, normalise or drop every crawled file with a reason from a small fixed vocabulary.

Why a vocabulary: drop reasons are data (``artifacts.drop_reason``) that analysts group by, so they must be few
and stable. Normalisation fixes (BOM, CRLF, replaced bytes, malformed front matter) are kept too, in
``artifacts.input_fixes``, so nothing is changed silently.

Drop reasons: :class:`aac.core.drop_reasons.DropReason` (this module produces ``empty``, ``binary``,
``invalid_utf8``, ``too_large`` and ``symlink``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import yaml

from aac.core.drop_reasons import DropReason
from aac.core.segment import SAFE_LOADER

MAX_BYTES = 384 * 1024
MAX_CONTROL_RATIO = 0.10  # share of control characters (besides \t \n \r \f \v \b) that makes a file binary
MAX_REPLACED_RATIO = 0.01  # share of U+FFFD replacements above which the text is too damaged to keep
BINARY_PROBE = 8192

# A symbolic link's blob: one relative path, no whitespace, no newline (git stores no trailing one). "@AGENTS.md"
# is Claude's import syntax, written by hand: an instruction, kept.
_LINK_TARGET = re.compile(r"(?:\.{1,2}/)*[\w.+-]+(?:/[\w.+-]+)*")
MAX_LINK_BYTES = 255
# ... naming a file a link would point at: a folder path, a name with an extension ("AGENTS.md") or a dotfile
# (".cursorrules"), not a one-word note ("TODO.", "v1.2.3")
_LINK_NAME = re.compile(r"/|[A-Za-z0-9_-]\.[A-Za-z][A-Za-z0-9]{0,9}\Z|\A\.[A-Za-z][\w.-]*\Z")  # or a dotfile
_SURROGATE = re.compile("[\ud800-\udfff]")
_CONTROL = re.compile(r"[\x00-\x07\x0e-\x1f\x7f]")
_FRONT_MATTER = re.compile(r"\A---[ \t]*\n(.*?)(?:^(?:---|\.\.\.)[ \t]*$)", re.S | re.M)


@dataclass(frozen=True)
class Normalized:
    """The decoded, normalised text (None when dropped), the drop reason, and the fixes applied."""

    text: str | None
    drop_reason: DropReason | None = None
    fixes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def kept(self) -> bool:
        return self.drop_reason is None


def _looks_binary(sample: str) -> bool:
    if "\x00" in sample:
        return True
    if not sample:
        return False
    return len(_CONTROL.findall(sample)) / len(sample) > MAX_CONTROL_RATIO


def _decode(raw: bytes) -> tuple[str, list[str]]:
    fixes: list[str] = []
    if raw.startswith(b"\xff\xfe") or raw.startswith(b"\xfe\xff"):
        fixes.append("utf16")
        return raw.decode("utf-16", errors="replace"), fixes
    try:
        return raw.decode("utf-8"), fixes
    except UnicodeDecodeError:
        fixes.append("replaced_invalid_utf8")
        return raw.decode("utf-8", errors="replace"), fixes


def front_matter_ok(text: str) -> bool | None:
    """None when there is no YAML front matter; else whether it parses as a YAML mapping (or is empty)."""
    if not text.startswith("---"):
        return None
    first = text.split("\n", 1)[0].strip()
    if first != "---":
        return None
    m = _FRONT_MATTER.match(text)
    if not m:
        return False  # opened, never closed
    try:
        data = yaml.load(m.group(1), Loader=SAFE_LOADER)
    except Exception:  # noqa: BLE001 - YAMLError, bad dates (ValueError), deep nesting: all mean "not YAML"
        return False
    return data is None or isinstance(data, dict)


def normalize(raw: bytes | str | None, max_bytes: int = MAX_BYTES) -> Normalized:
    """Decode ``raw`` (bytes or already-decoded text), strip the BOM, turn CRLF/CR into LF, or drop with a reason.

    Malformed YAML front matter does not drop a file (its body is still instructions); it is recorded as the
    fix ``front_matter_invalid`` so the segmenter treats the block as text.
    """
    if raw is None:
        return Normalized(None, DropReason.EMPTY)
    fixes: list[str] = []
    if isinstance(raw, (bytes, bytearray, memoryview)):
        raw = bytes(raw)
        if len(raw) > max_bytes:
            return Normalized(None, DropReason.TOO_LARGE)
        if b"\x00" in raw[:BINARY_PROBE] and not (raw.startswith(b"\xff\xfe") or raw.startswith(b"\xfe\xff")):
            return Normalized(None, DropReason.BINARY)
        text, fixes = _decode(raw)
    else:
        text = raw
        if len(text) > max_bytes or len(text.encode("utf-8", errors="replace")) > max_bytes:
            return Normalized(None, DropReason.TOO_LARGE)
        if "\ufffd" in text:
            fixes.append("replaced_invalid_utf8")
    if _SURROGATE.search(text):  # lone surrogates (surrogateescape-decoded bytes) cannot be stored as UTF-8
        text = _SURROGATE.sub("\ufffd", text)
        if "replaced_invalid_utf8" not in fixes:
            fixes.append("replaced_invalid_utf8")
    if _looks_binary(text[:BINARY_PROBE]):
        return Normalized(None, DropReason.BINARY, tuple(fixes))
    if "replaced_invalid_utf8" in fixes and text and text.count("\ufffd") / len(text) > MAX_REPLACED_RATIO:
        return Normalized(None, DropReason.INVALID_UTF8, tuple(fixes))
    if text.startswith("\ufeff"):
        text = text.lstrip("\ufeff")
        fixes.append("bom")
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        fixes.append("newlines")
    if not text.strip():
        return Normalized(None, DropReason.EMPTY, tuple(fixes))
    if len(text) <= MAX_LINK_BYTES and _LINK_TARGET.fullmatch(text) and _LINK_NAME.search(text):
        return Normalized(None, DropReason.SYMLINK, tuple(fixes))
    if front_matter_ok(text) is False:
        fixes.append("front_matter_invalid")
    return Normalized(text, None, tuple(fixes))
