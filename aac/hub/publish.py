"""``aac publish`` as one pure step: corpus -> validated Hub folder (layout + card), ready to upload."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from aac.hub.card import render_card
from aac.hub.layout import LayoutReport, summarize, write_layout
from aac.hub.policy import OptOut
from aac.hub.validate import HubFolderInvalid, validate_folder
from aac.core.store import Corpus


@dataclass
class PublishResult:
    folder: Path
    report: LayoutReport
    summary: dict
    validated_rows: dict[str, int]


def build_hub_folder(corpus: Corpus, out: Path, repo_id: str | None = None, optout: OptOut | None = None,
                     validate: bool = True) -> PublishResult:
    """Write ``out/README.md`` and ``out/data/**`` from the publishable rows, then load it back with ``datasets``."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    report = write_layout(corpus, out, optout)
    if report.rows.get("artifacts", 0) == 0:
        held = ", ".join(f"{k}={v}" for k, v in sorted(report.held_back.items())) or "the corpus has no artifacts"
        raise HubFolderInvalid(f"nothing to publish: no publishable artifacts (held back: {held})")
    summary = summarize(out)
    (out / "README.md").write_text(render_card(summary, report, repo_id), encoding="utf-8")
    rows = validate_folder(out, expected_rows=report.rows) if validate else {}
    return PublishResult(out, report, summary, rows)
