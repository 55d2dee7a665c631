"""Shared foundations every stage imports: table schemas, the Parquet/DuckDB store, ids, settings, tokens, labels,
code digests, the platform registry, licences, the segmenter and the SQL of the derived views.

The bottom layer: it imports no other ``aac`` package (``lint-imports`` enforces it, see pyproject.toml).
"""
