"""``aac publish`` as one pure step: corpus -> validated Hub folder (layout + card), ready to upload.

The folder is AAC's to rewrite (its ``README.md`` and ``data/`` are replaced whole), so it must be empty, new or
one an earlier publish wrote (``.aac-publish.json`` marks it); any other folder is refused before anything is
written (``force`` overrides), so a user's own README or Parquet files are never replaced or deleted. Only the
published configs are written: ``raw_artifacts`` (the crawled files unredacted) never reaches the folder.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from pathlib import Path

from aac.hub.card import render_card
from aac.hub.layout import CONFIGS, LayoutReport, summarize, write_layout
from aac.hub.policy import OptOut
from aac.hub.validate import HubFolderInvalid, validate_folder
from aac.core.store import Corpus

PUBLISH_MARKER = ".aac-publish.json"  # written into every folder `aac publish` built
CARD_TITLE = "# AgentArtifactCorpus (AAC)"  # the card's first heading: how a folder of an earlier release is known
# What a publish folder holds besides the marker: the card, the shards, the staging folder of a killed run, and
# what `huggingface_hub` leaves in a folder it uploaded or downloaded.
_OURS = {"README.md", "data", ".data-staging", ".gitattributes", ".cache", ".huggingface"}


class NotAPublishFolder(ValueError):
    """``--out`` names a folder holding files no earlier publish wrote."""


@dataclass
class PublishResult:
    folder: Path
    report: LayoutReport
    summary: dict
    validated_rows: dict[str, int]
    raw_kept: bool = False  # the corpus holds raw_artifacts (unredacted, never published): say so to the user


def _earlier_publish(out: Path) -> bool:
    """Whether ``out`` holds only what an AAC publish writes: its marker, or (folders written before the marker
    existed) the card and ``data/<config>/*.parquet`` shards alone."""
    if (out / PUBLISH_MARKER).is_file():
        return True
    names = {p.name for p in out.iterdir()}
    if not names <= _OURS:
        return False
    readme = out / "README.md"
    if readme.exists():
        try:
            if CARD_TITLE not in readme.read_text(encoding="utf-8", errors="replace"):
                return False
        except OSError:
            return False
    data = out / "data"
    if data.exists():
        if not data.is_dir():
            return False
        for entry in data.iterdir():
            if entry.name not in CONFIGS or not entry.is_dir():
                return False
            if any(not f.is_file() or f.suffix != ".parquet" for f in entry.iterdir()):
                return False
    return True


def check_out_folder(out: Path, force: bool = False) -> None:
    """Refuse a non-empty ``out`` that no earlier publish wrote (``force``: replace its README.md and data/)."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise NotAPublishFolder(f"--out {out} is a file, not a folder")
    if force or not out.exists() or not any(out.iterdir()) or _earlier_publish(out):
        return
    held = sorted(p.name + ("/" if p.is_dir() else "") for p in out.iterdir())
    shown = ", ".join(held[:5]) + (f" and {len(held) - 5} more" if len(held) > 5 else "")
    raise NotAPublishFolder(f"--out {out} is not empty and no earlier `aac publish` wrote it (it holds {shown}): "
                            "publishing replaces its README.md and data/ whole; choose a new or empty folder, or "
                            "pass --force to overwrite")


def build_hub_folder(corpus: Corpus, out: Path, repo_id: str | None = None, optout: OptOut | None = None,
                     validate: bool = True, force: bool = False) -> PublishResult:
    """Write ``out/README.md`` and ``out/data/**`` from the publishable rows, then load it back with ``datasets``.
    Holds the corpus lock while it reads (no `aac process` rewrites the tables meanwhile)."""
    from aac.core.corpus_lock import corpus_lock

    out = Path(out)
    check_out_folder(out, force)
    with corpus_lock(corpus.root, "aac publish", create=False):
        out.mkdir(parents=True, exist_ok=True)
        report = write_layout(corpus, out, optout)
        raw_kept = corpus.exists("raw_artifacts")
    if report.rows.get("artifacts", 0) == 0:
        held = ", ".join(f"{k}={v}" for k, v in sorted(report.held_back.items())) or "the corpus has no artifacts"
        raise HubFolderInvalid(f"nothing to publish: no publishable artifacts (held back: {held})")
    summary = summarize(out)
    (out / "README.md").write_text(render_card(summary, report, repo_id), encoding="utf-8")
    (out / PUBLISH_MARKER).write_text(json.dumps({
        "written_by": "aac publish", "at": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "rows": report.rows}), encoding="utf-8")
    rows = validate_folder(out, expected_rows=report.rows) if validate else {}
    return PublishResult(out, report, summary, rows, raw_kept)
