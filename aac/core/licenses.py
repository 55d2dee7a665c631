"""Licence filter: only files from permissively licensed repositories are publishable.

The repository's SPDX id comes from GitHub's metadata (``license.spdx_id``); when GitHub has none, the licence
file's text is recognised by its characteristic phrases. Unknown is not permissive: a file we may not
redistribute stays out of the publishable set (status ``private``), with the reason as data.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

PERMISSIVE: frozenset[str] = frozenset({
    "MIT", "MIT-0", "Apache-2.0", "BSD-2-Clause", "BSD-3-Clause", "ISC", "0BSD", "Unlicense", "CC0-1.0", "Zlib",
    "BSL-1.0", "CC-BY-4.0", "WTFPL", "PSF-2.0", "Python-2.0", "UPL-1.0", "BlueOak-1.0.0",
})

# GitHub reports "NOASSERTION" for a licence file it could not match ("Other").
_UNKNOWN = {"NOASSERTION", "OTHER", "LICENSEREF-OTHER"}


@dataclass(frozen=True)
class Verdict:
    keep: bool
    reason: str | None  # "license:<spdx>" | "license:none" | "license:unknown" when not kept


def parse_allowlist(text: str | None) -> frozenset[str]:
    """A comma-separated allowlist from the command line; empty means the default ``PERMISSIVE``."""
    if not text:
        return PERMISSIVE
    return frozenset(s.strip() for s in text.split(",") if s.strip())


def license_verdict(spdx: str | None, allow: frozenset[str] = PERMISSIVE) -> Verdict:
    """Publishable only under an allow-listed SPDX id (case-insensitive); no licence and unknown are not permissive."""
    if spdx is None or not spdx.strip():
        return Verdict(False, "license:none")
    spdx = spdx.strip()
    if spdx.upper() in _UNKNOWN:
        return Verdict(False, "license:unknown")
    allowed = {a.upper() for a in allow}
    if spdx.upper() in allowed:
        return Verdict(True, None)
    return Verdict(False, f"license:{spdx}")


# Characteristic phrases; whitespace, case and curly quotes are normalised first. A licence text names others in
# passing (GPL-3.0's section on the Affero licence, MPL-2.0's secondary licences), so the rule whose first phrase
# (the title, for the GNU and Mozilla licences) comes first in the text wins; among rules whose first phrase sits
# at the same place, the earlier rule here (the more specific) does.
_TEXT_RULES: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (
    ("AGPL-3.0", ("gnu affero general public license",), ()),
    ("LGPL-3.0", ("gnu lesser general public license", "version 3"), ()),
    ("LGPL-2.1", ("gnu lesser general public license", "version 2.1"), ()),
    ("LGPL-2.0", ("gnu library general public license",), ()),
    ("GPL-3.0", ("gnu general public license", "version 3"), ()),
    ("GPL-2.0", ("gnu general public license", "version 2"), ()),
    ("MPL-2.0", ("mozilla public license", "2.0"), ()),
    ("Apache-2.0", ("apache license", "version 2.0"), ()),
    ("Unlicense", ("this is free and unencumbered software released into the public domain",), ()),
    ("CC0-1.0", ("cc0 1.0 universal",), ()),
    ("BSL-1.0", ("boost software license",), ()),
    ("Zlib", ("provided 'as-is', without any express or implied warranty", "altered source versions must be plainly marked"), ()),
    ("0BSD", ("permission to use, copy, modify, and/or distribute this software for any purpose with or without fee is hereby granted",),
     ("provided that the above copyright notice",)),
    ("ISC", ("permission to use, copy, modify, and/or distribute this software for any purpose",), ()),
    ("ISC", ("permission to use, copy, modify, and distribute this software for any purpose with or without fee",),
     ()),  # OpenBSD's wording
    ("MIT", ("permission is hereby granted, free of charge, to any person obtaining a copy",), ()),
    ("BSD-3-Clause", ("redistribution and use in source and binary forms", "neither the name"), ()),
    ("BSD-2-Clause", ("redistribution and use in source and binary forms",), ()),
    ("CC-BY-NC-4.0", ("attribution-noncommercial 4.0 international",), ()),
    ("CC-BY-4.0", ("attribution 4.0 international",), ()),
)

_WS = re.compile(r"\s+")
_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})


def detect_license(text: str | None) -> str | None:
    """The SPDX id of a licence file's text, or None when no known licence is recognised."""
    if not text:
        return None
    t = _WS.sub(" ", text.lower()).translate(_QUOTES)
    found = [(t.index(needles[0]), order, spdx) for order, (spdx, needles, absent) in enumerate(_TEXT_RULES)
             if all(n in t for n in needles) and not any(a in t for a in absent)]
    return min(found)[2] if found else None


def resolve_spdx(artifact_spdx: str | None, repo_spdx: str | None = None, license_text: str | None = None) -> str | None:
    """The best licence id we have: the artifact row's, else the repository's, else the licence file's text."""
    for candidate in (artifact_spdx, repo_spdx):
        if candidate and candidate.strip() and candidate.strip().upper() not in _UNKNOWN:
            return candidate.strip()
    detected = detect_license(license_text)
    if detected:
        return detected
    return artifact_spdx or repo_spdx
