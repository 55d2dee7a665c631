"""Licence rule, the one source: detection of a licence file's text, the permissive allowlist, the verdict, and
the verdict's SQL rendering for the publish views and checks.

The repository's SPDX id comes from GitHub's metadata (``license.spdx_id``); when GitHub has none (or for a local
checkout), the licence file's text is recognised by its characteristic phrases. Unknown is not permissive: a file
we may not redistribute stays out of the publishable set (status ``private``), with the reason as data. The crawl,
the local collector, processing and publishing all call this module, so they cannot disagree on a text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from aac.core.drop_reasons import license_reason

PERMISSIVE: frozenset[str] = frozenset({
    "MIT", "MIT-0", "Apache-2.0", "BSD-2-Clause", "BSD-3-Clause", "ISC", "0BSD", "Unlicense", "CC0-1.0", "Zlib",
    "BSL-1.0", "CC-BY-4.0", "WTFPL", "PSF-2.0", "Python-2.0", "UPL-1.0", "BlueOak-1.0.0",
})

# GitHub reports "NOASSERTION" for a licence file it could not match ("Other"); so does the local collector.
NOASSERTION = "NOASSERTION"
_UNKNOWN = {NOASSERTION, "OTHER", "LICENSEREF-OTHER"}


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
        return Verdict(False, license_reason(None))
    spdx = spdx.strip()
    if spdx.upper() in _UNKNOWN:
        return Verdict(False, license_reason("unknown"))
    allowed = {a.upper() for a in allow}
    if spdx.upper() in allowed:
        return Verdict(True, None)
    return Verdict(False, license_reason(spdx))


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
    # MIT without the notice clause: the grant ends "furnished to do so." where MIT's goes on "..., subject to"
    ("MIT-0", ("permission is hereby granted, free of charge, to any person obtaining a copy", "furnished to do so."),
     ("above copyright notice",)),
    ("MIT", ("permission is hereby granted, free of charge, to any person obtaining a copy",), ()),
    ("BSD-3-Clause", ("redistribution and use in source and binary forms", "neither the name"), ()),
    ("BSD-3-Clause", ("redistribution and use in source and binary forms", "may not be used to endorse or promote"),
     ()),  # "The name of the author may not be used...": the third clause worded as the original BSD licence did
    ("BSD-2-Clause", ("redistribution and use in source and binary forms",), ()),
    # CPython's licence stack (history, then the PSF, BeOpen, CNRI and CWI licences) names the GPL in its history
    # before its own title, so its first sentence is the rule's first phrase
    ("Python-2.0", ("python was created in the early 1990s", "python software foundation license version 2"), ()),
    ("PSF-2.0", ("python software foundation license version 2",), ()),
    ("UPL-1.0", ("universal permissive license",), ()),
    ("BlueOak-1.0.0", ("blue oak model license",), ()),
    ("WTFPL", ("do what the fuck you want to public license",), ()),
    ("CC-BY-NC-4.0", ("attribution-noncommercial 4.0 international",), ()),
    ("CC-BY-4.0", ("attribution 4.0 international",), ()),
)

# The ids a licence text can be recognised as.
DETECTABLE: frozenset[str] = frozenset(spdx for spdx, _, _ in _TEXT_RULES)

_WS = re.compile(r"\s+")
_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})


# An author's own statement of one licence (not an expression such as "MIT OR Apache-2.0") at the head of the file
# wins over phrases; further down it tags a bundled part (a font's licence inside matplotlib's LICENSE).
_SPDX_HEAD_CHARS = 300
_SPDX_LINE = re.compile(r"SPDX-License-Identifier:[ \t]*([A-Za-z0-9.+-]+)[ \t]*(?:\*/|-->)?[ \t]*$", re.MULTILINE)


def detect_license(text: str | None) -> str | None:
    """The SPDX id of a licence file's text, or None when no known licence is recognised."""
    if not text:
        return None
    line = _SPDX_LINE.search(text[:_SPDX_HEAD_CHARS])
    if line:
        return line.group(1)
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


def license_of_file(text: str | None) -> str:
    """A licence file's id for a repository row: the detected SPDX id, or ``NOASSERTION`` (as GitHub says) when the
    text is no licence we know."""
    return detect_license(text) or NOASSERTION


# ---- SQL rendering (DuckDB), for the publishable views and the publish checks ------------------------------------

def _sql_str(s: str) -> str:
    return "'" + s.replace("'", "''") + "'"


def known_spdx_sql(expr: str) -> str:
    """SQL: ``expr`` trimmed, NULL when empty or unknown (``NOASSERTION``...), as :func:`resolve_spdx` reads it."""
    unknown = ", ".join(_sql_str(u) for u in sorted(_UNKNOWN))
    return f"(CASE WHEN trim({expr}) = '' OR upper(trim({expr})) IN ({unknown}) THEN NULL ELSE trim({expr}) END)"


def resolved_spdx_sql(artifact_expr: str, repo_expr: str) -> str:
    """SQL of :func:`resolve_spdx` without a licence text: the artifact's known id, else the repository's."""
    return f"coalesce({known_spdx_sql(artifact_expr)}, {known_spdx_sql(repo_expr)})"


def allowed_sql(expr: str, allow: frozenset[str] = PERMISSIVE) -> str:
    """SQL: ``expr`` is on the allowlist, case-insensitively as :func:`license_verdict` compares (NULL is not)."""
    listed = ", ".join(_sql_str(a.upper()) for a in sorted(allow)) or "NULL"
    return f"(coalesce(upper({expr}) IN ({listed}), false))"
