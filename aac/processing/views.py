"""Derived DuckDB views of the processed corpus (registered in every catalog by ``aac.store``)."""

from __future__ import annotations

from aac.store import register_view

# Kept = permissive licence, not an exact duplicate, decoded fine, secrets already redacted in ``content``.
PUBLISHABLE_ARTIFACTS = "SELECT * EXCLUDE (drop_reason, removed_at) FROM artifacts WHERE status = 'kept'"
PUBLISHABLE_ITEMS = "SELECT i.* FROM items i JOIN artifacts a USING (artifact_id) WHERE a.status = 'kept'"

register_view("publishable_artifacts", PUBLISHABLE_ARTIFACTS)
register_view("publishable_items", PUBLISHABLE_ITEMS)
