"""Incremental refresh: merge a fresh crawl into the corpus as a new version (changelog, tombstones)."""
