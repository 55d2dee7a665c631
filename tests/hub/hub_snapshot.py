"""Emulator snapshots for end-to-end tests: permissive files, a GPL-licensed file and a planted secret, and a
second snapshot with one file edited, one deleted and one added (synthetic text only)."""

from __future__ import annotations

PLANTED_KEY = "AKIA" + "Q7PLANTEDTESTKEY"  # assembled so no real-looking key sits in the repository
GPL_TEXT = "GPL project rule that must not be published"

V1 = [
    dict(repo="acme/web", path="CLAUDE.md", license_spdx="MIT", stars=10,
         content="# Rules\n\n- Never commit to main.\n- Run `make test` before pushing.\n"),
    dict(repo="acme/web", path="AGENTS.md", license_spdx="MIT", stars=10,
         content=f"# Deploy\n\n- Use the key {PLANTED_KEY} for staging.\n- Prefer small pull requests.\n"),
    dict(repo="copyleft/app", path="CLAUDE.md", license_spdx="GPL-3.0-only", stars=5,
         content=f"# Rules\n\n- {GPL_TEXT}.\n"),
    dict(repo="zed/tool", path=".cursorrules", license_spdx="Apache-2.0", stars=3,
         content="- Prefer small functions.\n- Last week we moved the build to uv.\n"),
]


def v2() -> list[dict]:
    """V1 with acme/web CLAUDE.md edited, zed/tool .cursorrules deleted, and new/repo AGENTS.md added."""
    recs = [dict(r) for r in V1 if r["repo"] != "zed/tool"]
    recs[0]["content"] += "- Always run the linter before committing.\n"
    recs.append(dict(repo="new/repo", path="AGENTS.md", license_spdx="MIT", stars=1,
                     content="# Build\n\n- Use pnpm, never npm.\n"))
    return recs
