"""Step ``license``: the licence verdict; a file outside the allowlist is ``private`` (kept out of releases)."""

from __future__ import annotations

from aac.core import licenses
from aac.processing.steps.base import RowStep


class LicenseVerdict(RowStep):
    name = "license"

    def __init__(self, allow: frozenset[str] = licenses.PERMISSIVE) -> None:
        self.allow = allow

    @classmethod
    def from_config(cls, cfg) -> "LicenseVerdict":
        return cls(cfg.allow)

    def parameters(self) -> dict:
        return {"allow": sorted(self.allow)}

    def apply(self, row: dict) -> dict:
        spdx = licenses.resolve_spdx(row.get("license_spdx"), row.get("_repo_license"))
        verdict = licenses.license_verdict(spdx, self.allow)
        row.update(license_spdx=spdx, status="kept" if verdict.keep else "private", drop_reason=verdict.reason,
                   _publishable=verdict.keep)
        return row
