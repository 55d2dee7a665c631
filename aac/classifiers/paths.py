"""Where the shared dev data lives (read-only; never copied into the package)."""

from __future__ import annotations

import os
from pathlib import Path


def shared_data() -> Path:
    """$AAC_SHARED_DATA, else ../shared/data next to the project root."""
    env = os.environ.get("AAC_SHARED_DATA")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[2].parent / "shared" / "data"
