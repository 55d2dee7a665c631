"""Arrow schemas of every corpus table, versioned.

A table's schema is the contract between the steps that write it and the analysts who query it.
Bump ``SCHEMA_VERSION`` when a column changes meaning or type; adding a nullable column is compatible.
"""

from __future__ import annotations

import pyarrow as pa

from aac.core.labels import TYPE_NAMES, TYPES  # noqa: F401  (re-exported: the five types live where no pyarrow is needed)

SCHEMA_VERSION = 1

_ts = pa.timestamp("us", tz="UTC")

REPOS = pa.schema(
    [
        pa.field("full_name", pa.string(), nullable=False),
        pa.field("stars", pa.int64()),
        pa.field("forks", pa.int64()),
        pa.field("language", pa.string()),
        pa.field("license_spdx", pa.string()),
        pa.field("license_source", pa.string()),  # "api" | "license_file" | "none"
        pa.field("default_branch", pa.string()),
        pa.field("pushed_at", _ts),
        pa.field("is_fork", pa.bool_()),
        pa.field("archived", pa.bool_()),
        pa.field("fetched_at", _ts),
        # the name the API answers with now; full_name stays the name search found (what artifacts.repo holds),
        # so a renamed repository still joins its artifacts. NULL when unknown (parts written before it existed)
        pa.field("current_name", pa.string()),
    ]
)

ARTIFACTS = pa.schema(
    [
        pa.field("artifact_id", pa.string(), nullable=False),
        pa.field("repo", pa.string(), nullable=False),
        pa.field("path", pa.string(), nullable=False),
        pa.field("platform", pa.string()),
        pa.field("function", pa.string()),
        pa.field("authorship", pa.string()),
        pa.field("specificity", pa.string()),
        pa.field("size_bytes", pa.int64()),
        pa.field("blob_sha", pa.string()),
        pa.field("commit_sha", pa.string()),
        pa.field("html_url", pa.string()),
        pa.field("license_spdx", pa.string()),
        pa.field("content_sha256", pa.string()),
        pa.field("near_dup_of", pa.string()),
        pa.field("dup_cluster_size", pa.int32()),
        pa.field("dup_cluster_repos", pa.int32()),  # distinct repositories in the dedupe cluster (template signal)
        pa.field("secrets_found", pa.int32()),
        pa.field("secret_kinds", pa.list_(pa.string())),  # typed names of the redacted secrets
        pa.field("input_fixes", pa.string()),  # normalisation applied: bom,newlines,replaced_invalid_utf8,utf16,front_matter_invalid
        pa.field("status", pa.string()),  # "kept" | "dropped" | "private" | "removed"
        pa.field("drop_reason", pa.string()),
        pa.field("content", pa.string()),
        pa.field("collected_at", _ts),
        pa.field("removed_at", _ts),
    ]
)

ITEMS = pa.schema(
    [
        pa.field("item_id", pa.string(), nullable=False),
        pa.field("artifact_id", pa.string(), nullable=False),
        pa.field("ordinal", pa.int32()),
        pa.field("text", pa.string()),
        pa.field("kind", pa.string()),  # bullet | paragraph | code | table_row | front_matter
        pa.field("section_path", pa.list_(pa.string())),
        pa.field("topic", pa.string()),
        pa.field("type", pa.string()),  # one of TYPES
        pa.field("type_proba", pa.list_(pa.float32(), 5)),
        pa.field("classifier", pa.string()),
        pa.field("confidence", pa.float32()),
        pa.field("abstained", pa.bool_()),
        pa.field("hard_lane", pa.bool_()),  # the classifier's hard-lane decision (constraint risk >= its hard-lane threshold)
        pa.field("scope", pa.list_(pa.string())),  # topics; "*" = global; "glob:<pattern>" = file scope
        pa.field("authority", pa.string()),
        pa.field("n_tokens", pa.int32()),
        pa.field("lead_in", pa.string()),  # "**Don't:**" over the item's list: null when none (or written before)
    ]
)

CRAWL_QUERIES = pa.schema(
    [
        pa.field("query_id", pa.string(), nullable=False),
        pa.field("platform", pa.string()),
        pa.field("query", pa.string()),
        pa.field("size_lo", pa.int64()),
        pa.field("size_hi", pa.int64()),  # exclusive
        pa.field("reported_total", pa.int64()),
        pa.field("pages_done", pa.int32()),
        pa.field("fetched", pa.int64()),
        pa.field("state", pa.string()),  # pending | split | done | checked | failed
        pa.field("updated_at", _ts),
        pa.field("lost", pa.int64()),  # verified ranges: files its two halves found that it missed
        pa.field("saturated", pa.bool_()),  # a 1-byte range at the result cap: more files than search can list
        pa.field("incomplete", pa.bool_()),  # a page stayed incomplete_results after its retries: files may be missing
    ]
)

ANNOTATIONS = pa.schema(
    [
        pa.field("item_id", pa.string(), nullable=False),
        pa.field("annotator", pa.string(), nullable=False),
        pa.field("label", pa.string()),
        pa.field("round", pa.int32()),
        pa.field("meta", pa.bool_()),
        pa.field("text", pa.string()),
        pa.field("section_path", pa.list_(pa.string())),
        pa.field("kind", pa.string()),  # item kind, so gold items can be re-classified without the items table
        pa.field("repo", pa.string()),  # repository, the grouping unit of cross-validation
        pa.field("path", pa.string()),  # where the item sits (gold_dev.jsonl's path, platform, line), kept for export
        pa.field("platform", pa.string()),
        pa.field("line", pa.int32()),
        # the annotator chose another type but was unsure it is not a constraint (Label Studio's "leans C"): the
        # constraint lean (``aac annotate lean-c``) counts it as a C vote; parts written before it read NULL
        pa.field("leans_c", pa.bool_()),
    ]
)

# One row per artifact that changed in a corpus version (refresh): what changed, where, and the hashes either side.
CHANGELOG = pa.schema(
    [
        pa.field("version", pa.int64(), nullable=False),
        pa.field("artifact_id", pa.string(), nullable=False),
        pa.field("repo", pa.string()),
        pa.field("path", pa.string()),
        pa.field("platform", pa.string()),
        pa.field("change", pa.string()),  # added | changed | removed
        pa.field("old_hash", pa.string()),  # blob sha (or content sha256) before
        pa.field("new_hash", pa.string()),  # ... and after
        pa.field("at", _ts),
    ]
)

# One row per corpus version: when it was made, from what, and its counts.
VERSIONS = pa.schema(
    [
        pa.field("version", pa.int64(), nullable=False),
        pa.field("created_at", _ts),
        pa.field("source", pa.string()),
        pa.field("added", pa.int64()),
        pa.field("changed", pa.int64()),
        pa.field("removed", pa.int64()),
        pa.field("unchanged", pa.int64()),
        pa.field("live_artifacts", pa.int64()),
    ]
)

# Validators of API answers (conditional requests): a re-crawl sends ``If-None-Match`` / ``If-Modified-Since``
# and, on a 304, reuses ``payload`` (the parsed answer, JSON). Keyed by a hash of the request (path + parameters);
# never holds a token or any request header.
HTTP_CACHE = pa.schema(
    [
        pa.field("key", pa.string(), nullable=False),
        pa.field("resource", pa.string()),  # core | search
        pa.field("etag", pa.string()),
        pa.field("last_modified", pa.string()),
        pa.field("payload", pa.string()),
        pa.field("fetched_at", _ts),
    ]
)

# The crawler's rows as collected (original content), kept so that ``process`` can be re-run from scratch:
# ``artifacts`` holds the processed (redacted, filtered) rows. Never published.
RAW_ARTIFACTS = ARTIFACTS

SCHEMAS: dict[str, pa.Schema] = {
    "repos": REPOS,
    "artifacts": ARTIFACTS,
    "raw_artifacts": RAW_ARTIFACTS,
    "items": ITEMS,
    "crawl_queries": CRAWL_QUERIES,
    "annotations": ANNOTATIONS,
    "changelog": CHANGELOG,
    "versions": VERSIONS,
    "http_cache": HTTP_CACHE,
}

KEYS: dict[str, tuple[str, ...]] = {
    "repos": ("full_name",),
    "artifacts": ("artifact_id",),
    "raw_artifacts": ("artifact_id",),
    "items": ("item_id",),
    "crawl_queries": ("query_id",),
    "annotations": ("item_id", "annotator", "round"),
    "changelog": ("version", "artifact_id"),
    "versions": ("version",),
    "http_cache": ("key",),
}


def conform(table: pa.Table, schema: pa.Schema) -> pa.Table:
    """Reorder/cast ``table`` to ``schema``, adding missing nullable columns as nulls; extra columns are an error."""
    extra = set(table.column_names) - set(schema.names)
    if extra:
        raise ValueError(f"columns not in schema: {sorted(extra)}")
    cols = []
    for f in schema:
        if f.name in table.column_names:
            cols.append(table.column(f.name).cast(f.type))
        else:
            if not f.nullable:
                raise ValueError(f"required column missing: {f.name}")
            cols.append(pa.nulls(table.num_rows, f.type))
    return pa.Table.from_arrays(cols, schema=schema)
