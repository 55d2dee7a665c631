"""Prove a Hub folder loads before anything is uploaded: ``datasets.load_dataset(folder, config)`` for every
config, offline and with a throw-away cache, exactly as a downloader's machine would read it."""

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


def validate_folder(folder: Path, expected_rows: dict[str, int] | None = None) -> dict[str, int]:
    """Load every config with ``datasets``; returns rows per config, raises HubFolderInvalid on any mismatch."""
    folder = Path(folder)
    meta = card_yaml(folder)
    declared = [c.get("config_name") for c in meta.get("configs", [])]
    if sorted(declared) != sorted(CONFIGS):
        raise HubFolderInvalid(f"card configs {declared} != {list(CONFIGS)}")
    rows: dict[str, int] = {}
    with tempfile.TemporaryDirectory(prefix="aac-validate-") as cache, _offline_env(cache):
        import datasets  # imported here so a first import sees the offline environment

        for config in CONFIGS:
            try:
                ds = datasets.load_dataset(str(folder), config, split="train", cache_dir=cache)
            except Exception as exc:  # any loader failure is a publish blocker, named by config
                raise HubFolderInvalid(f"config {config!r} does not load: {type(exc).__name__}: {exc}") from exc
            rows[config] = ds.num_rows
            del ds
    if expected_rows is not None:
        for config, n in expected_rows.items():
            if rows.get(config) != n:
                raise HubFolderInvalid(f"config {config!r} loads {rows.get(config)} rows, expected {n}")
    return rows
