"""Where the shared dev data lives (read-only; never copied into the package)."""

from __future__ import annotations

from pathlib import Path

from aac.core.config import Settings


def shared_data() -> Path:
    """$AAC_SHARED_DATA, else ../shared/data next to the project root."""
    configured = Settings.from_env().shared_data
    if configured:
        return configured
    return Path(__file__).resolve().parents[2].parent / "shared" / "data"
