"""Prove a Hub folder is fit to upload: its rows keep the card's promises (:func:`check_policy`: schema, licence,
status, secrets, parents) and ``datasets.load_dataset(folder, config)`` loads every config, offline and with a
throw-away cache, exactly as a downloader's machine would read it."""

from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager
from pathlib import Path

import yaml

from aac.hub.layout import CONFIGS


class HubFolderInvalid(Exception):
    """The folder would not load on the Hub (or for a downloader); the message says which config and why."""


@contextmanager
def _offline_env(cache: str):
    keys = {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "HF_DATASETS_CACHE": cache, "HF_HOME": cache}
    old = {k: os.environ.get(k) for k in keys}
    os.environ.update(keys)
    try:
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def card_yaml(folder: Path) -> dict:
    text = (Path(folder) / "README.md").read_text(encoding="utf-8")
    if not text.startswith("---\n"):
        raise HubFolderInvalid("README.md has no YAML front matter")
    return yaml.safe_load(text.split("---\n", 2)[1]) or {}


# Above this many bytes of shards, a full load would copy the whole release into a cache: stream a sample instead
# and take the row counts from the Parquet footers.
FULL_LOAD_MAX_BYTES = 512 * 1024 * 1024


def _parquet_rows(folder: Path, config: str) -> int:
    import pyarrow.parquet as pq

    return sum(pq.ParquetFile(f).metadata.num_rows for f in sorted((folder / "data" / config).glob("*.parquet")))


def _load(datasets, folder: Path, config: str, cache: str, stream: bool) -> int:
    if not stream:
        ds = datasets.load_dataset(str(folder), config, split="train", cache_dir=cache)
        return ds.num_rows
    # cache_dir here too: `datasets` reads its default cache folder once, at import, so the environment of
    # _offline_env would redirect only a process's first validation and later ones would leave lock files behind
    ds = datasets.load_dataset(str(folder), config, split="train", streaming=True, cache_dir=cache)
    for _ in zip(range(100), ds):  # decode a first batch of rows through the loader
        pass
    return _parquet_rows(folder, config)


def _shards(folder: Path, config: str) -> list[Path]:
    return sorted((folder / "data" / config).glob("*.parquet"))


def check_policy(folder: Path) -> None:
    """What the card promises of every row, checked on the shards themselves (not on how they were made): the
    schema of each config, only kept and current files under an allowlisted licence (theirs and their repository's),
    no secret shape in any published text, and no item or annotation without its published parent."""
    import duckdb
    import pyarrow.parquet as pq

    from aac.hub.policy import PERMISSIVE, SECRETS_RE_SQL
    from aac.core.schema import SCHEMAS

    folder = Path(folder)
    for config in CONFIGS:
        for shard in _shards(folder, config):
            try:
                got = pq.read_schema(shard).remove_metadata()
            except Exception as exc:  # not Parquet, truncated: named by its path (and so its config)
                raise HubFolderInvalid(f"{shard.relative_to(folder)}: not a readable Parquet file ({exc})") from exc
            want = SCHEMAS[config].remove_metadata()
            if [(f.name, f.type) for f in got] != [(f.name, f.type) for f in want]:
                raise HubFolderInvalid(f"{shard.relative_to(folder)}: schema differs from the {config} table's")
    con = duckdb.connect()
    try:
        for config in CONFIGS:
            files = _shards(folder, config)
            src = (f"read_parquet([{', '.join(repr(str(f)) for f in files)}])" if files
                   else f"(SELECT * FROM arrow_empty_{config})")
            if not files:
                con.register(f"arrow_empty_{config}", SCHEMAS[config].empty_table())
            con.execute(f"CREATE VIEW {config} AS SELECT * FROM {src}")
        allow = ", ".join("'" + x.replace("'", "''") + "'" for x in sorted(PERMISSIVE)) or "NULL"
        secret = "'" + SECRETS_RE_SQL.replace("'", "''") + "'"
        checks = {
            "artifacts not kept or removed upstream": "SELECT count(*) FROM artifacts WHERE status IS DISTINCT FROM "
                                                      "'kept' OR removed_at IS NOT NULL",
            "artifacts without an allowlisted licence (their own or their repository's)":
                "SELECT count(*) FROM artifacts a LEFT JOIN (SELECT full_name, any_value(license_spdx) AS lic FROM repos "
                f"GROUP BY 1) r ON r.full_name = a.repo WHERE coalesce(a.license_spdx, r.lic) IS NULL "
                f"OR coalesce(a.license_spdx, r.lic) NOT IN ({allow}) OR (r.lic IS NOT NULL AND r.lic NOT IN ({allow}))",
            "artifacts with a secret in their content": f"SELECT count(*) FROM artifacts WHERE regexp_matches("
                                                        f"coalesce(content, ''), {secret})",
            "items with a secret in their text": f"SELECT count(*) FROM items WHERE regexp_matches(coalesce(text, ''), "
                                                 f"{secret})",
            "annotations with a secret in their text": f"SELECT count(*) FROM annotations WHERE regexp_matches("
                                                       f"coalesce(text, ''), {secret})",
            "items of no published artifact": "SELECT count(*) FROM items WHERE artifact_id NOT IN "
                                              "(SELECT artifact_id FROM artifacts)",
            "annotations of no published item": "SELECT count(*) FROM annotations WHERE item_id NOT IN "
                                                "(SELECT item_id FROM items)",
            "repositories with no published artifact": "SELECT count(*) FROM repos WHERE full_name NOT IN "
                                                       "(SELECT repo FROM artifacts)",
        }
        for what, sql in checks.items():
            n = con.execute(sql).fetchall()[0][0]
            if n:
                raise HubFolderInvalid(f"{n} {what}")
    finally:
        con.close()


def validate_folder(folder: Path, expected_rows: dict[str, int] | None = None,
                    full_load_max_bytes: int | None = None) -> dict[str, int]:
    """Load every config with ``datasets``; returns rows per config, raises HubFolderInvalid on any mismatch.

    Small releases are loaded whole; big ones are streamed (first rows decoded, counts from the footers)."""
    folder = Path(folder)
    meta = card_yaml(folder)
    declared = [c.get("config_name") for c in meta.get("configs", [])]
    with_shards = [c for c in CONFIGS if any((folder / "data" / c).glob("*.parquet"))]
    if "artifacts" not in declared or sorted(declared) != sorted(with_shards):
        raise HubFolderInvalid(f"card configs {declared} do not match the configs with shards {with_shards}")
    check_policy(folder)
    size = sum(p.stat().st_size for p in (folder / "data").rglob("*.parquet"))
    stream = size > (FULL_LOAD_MAX_BYTES if full_load_max_bytes is None else full_load_max_bytes)
    rows: dict[str, int] = {}
    with tempfile.TemporaryDirectory(prefix="aac-validate-") as cache, _offline_env(cache):
        import datasets  # imported here so a first import sees the offline environment

        for config in declared:
            try:
                rows[config] = _load(datasets, folder, config, cache, stream)
            except Exception as exc:  # any loader failure is a publish blocker, named by config
                root = exc.__cause__ or exc
                raise HubFolderInvalid(f"config {config!r} does not load: {type(exc).__name__}: {exc} "
                                       f"({type(root).__name__}: {root})") from exc
    if expected_rows is not None:
        for config, n in expected_rows.items():
            if rows.get(config, 0) != n:
                raise HubFolderInvalid(f"config {config!r} loads {rows.get(config)} rows, expected {n}")
    return rows
