"""The drop-reason vocabulary: why a file is not in the kept set, written to ``artifacts.drop_reason``.

Drop reasons are data that analysts group by, so they are few and stable, and every producer (the crawler, the
processing steps, the executor) names them from here instead of spelling string literals.

==========================  ================================================================================
``empty``                   no content, or whitespace only
``binary``                  NUL bytes or a high ratio of control characters
``invalid_utf8``            decoding needed replacement characters for too much of the text
``too_large``               more than the size limit (GitHub's code-search index limit, 384 KB)
``symlink``                 the file is a symbolic link (GitHub serves the link's target path as its content)
``exact_duplicate``         same normalised content as a canonical copy elsewhere (the dedupe step)
``not_an_agent_file``       the path matches no known agent platform (set by the crawler or the agent_file step)
``content_unavailable``     the crawler could not fetch the file
``processing_error``        a step raised on the file (a bug; logged with repo and path): the run goes on
``license:<spdx>``          not under a permissive licence: status ``private``, not dropped (``license:none``,
                            ``license:unknown``, ``license:GPL-3.0``, ...; :func:`license_reason`)
==========================  ================================================================================

A processing step may declare reasons of its own (``RowStep.reasons``): a new filter is one module.
"""

from __future__ import annotations

from enum import StrEnum


class DropReason(StrEnum):
    EMPTY = "empty"
    BINARY = "binary"
    INVALID_UTF8 = "invalid_utf8"
    TOO_LARGE = "too_large"
    SYMLINK = "symlink"
    EXACT_DUPLICATE = "exact_duplicate"
    NOT_AN_AGENT_FILE = "not_an_agent_file"
    CONTENT_UNAVAILABLE = "content_unavailable"
    PROCESSING_ERROR = "processing_error"


LICENSE_PREFIX = "license:"

# Rows the crawler itself wrote as dropped (the reason comes from the collector): processing passes them through.
CRAWL_DROP_REASONS: tuple[DropReason, ...] = (DropReason.CONTENT_UNAVAILABLE, DropReason.NOT_AN_AGENT_FILE,
                                              DropReason.SYMLINK)  # crawl --local: a symlinked agent file


def license_reason(spdx: str | None) -> str:
    """``license:<spdx>`` (``license:none`` without one): the reason a file is private, not dropped."""
    return f"{LICENSE_PREFIX}{spdx if spdx else 'none'}"
