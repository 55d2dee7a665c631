"""What "publishable" means, the one source: the rules an artifact must pass to leave the machine, as SQL.

Processing decides first, in Python, from the same sources (:mod:`aac.core.licenses` for the licence verdict,
:mod:`aac.core.secret_shapes` for redaction) and records it as ``status = 'kept'``; the ``publishable_*`` views
read that. Publishing re-checks every rule on the rows it writes (``aac.hub.layout``) and on the shards it wrote
(``aac.hub.validate``), rendering them from here (defence in depth from one source, so the copies cannot drift).
"""

from __future__ import annotations

from dataclasses import dataclass

from aac.core.licenses import PERMISSIVE, allowed_sql, known_spdx_sql, resolved_spdx_sql
from aac.core.secret_shapes import SECRETS_RE_SQL


def sql_str(s: str) -> str:
    """A SQL string literal."""
    return "'" + s.replace("'", "''") + "'"


def kept_sql(alias: str = "") -> str:
    """SQL: processing kept the artifact (permissive licence, not an exact duplicate, decoded, secrets redacted)."""
    return f"{alias + '.' if alias else ''}status = 'kept'"


# The derived views every catalog registers (``aac.core.store``).
PUBLISHABLE_ARTIFACTS = f"SELECT * EXCLUDE (drop_reason, removed_at) FROM artifacts WHERE {kept_sql()}"
PUBLISHABLE_ITEMS = f"SELECT i.* FROM items i JOIN artifacts a USING (artifact_id) WHERE {kept_sql('a')}"

# One licence per repository (``lic.license_spdx``), joined to artifacts ``a`` on ``lic.full_name = a.repo``.
REPO_LICENSES_SQL = "SELECT full_name, any_value(license_spdx) AS license_spdx FROM repos GROUP BY full_name"



def secret_in_sql(col: str) -> str:
    """SQL: a secret shape survives in the text column ``col``."""
    return f"regexp_matches(coalesce({col}, ''), {sql_str(SECRETS_RE_SQL)})"


@dataclass(frozen=True)
class Rule:
    """One publish rule over ``a`` (an artifacts row) and ``lic`` (its repository's licence row)."""

    reason: str  # SQL expression naming why a row fails (mostly a literal)
    fails: str  # SQL condition true when the row fails the rule
    what: str  # the failing rows, in words (the publish check's message)


def artifact_rules(allow: frozenset[str] = PERMISSIVE) -> dict[str, Rule]:
    """The rules in the order a held-back row is reported by; keyed by their reason."""
    spdx = resolved_spdx_sql("a.license_spdx", "lic.license_spdx")
    repo = known_spdx_sql("lic.license_spdx")
    rules = (
        Rule("'removed_upstream'", "a.removed_at IS NOT NULL", "artifacts removed upstream"),
        Rule("coalesce(a.drop_reason, 'status_' || coalesce(a.status, 'null'))",
             f"NOT coalesce({kept_sql('a')}, false)", "artifacts processing did not keep"),
        Rule("'license_unknown'", f"{spdx} IS NULL", "artifacts without an allowlisted licence (none known)"),
        Rule("'license_not_permissive'", f"NOT {allowed_sql(spdx, allow)}",
             "artifacts without an allowlisted licence (their own or their repository's)"),
        Rule("'repo_license_not_permissive'", f"{repo} IS NOT NULL AND NOT {allowed_sql(repo, allow)}",
             "artifacts without an allowlisted licence (their repository's)"),
        Rule("'secret_in_content'", secret_in_sql("a.content"), "artifacts with a secret in their content"),
    )
    return {r.reason.strip("'") if r.reason.startswith("'") else "not_kept": r for r in rules}
