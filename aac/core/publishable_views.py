"""SQL of the derived views of the processed corpus, as data (``aac.core.store`` registers them in every catalog)."""

# Kept = permissive licence, not an exact duplicate, decoded fine, secrets already redacted in ``content``.
PUBLISHABLE_ARTIFACTS = "SELECT * EXCLUDE (drop_reason, removed_at) FROM artifacts WHERE status = 'kept'"
PUBLISHABLE_ITEMS = "SELECT i.* FROM items i JOIN artifacts a USING (artifact_id) WHERE a.status = 'kept'"
