"""The ``publish`` job: write the Hub folder of the publishable rows, validate it offline, optionally upload it.

``aac publish`` and the Prefect flow ``publish-corpus`` both call :func:`publish`; the flow passes its retried
upload task through :class:`PublishStages`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable

from aac.core.errors import RunError
from aac.core.config import Settings
from aac.jobs.options import corpus_option, option


@dataclass(frozen=True)
class PublishOptions:
    """What a publish may be told; the CLI options and the flow parameters are these fields."""

    corpus: str | Path = corpus_option()
    out: str | Path = option("hub", "Hub folder to write (README.md + data/<config>/*.parquet).", "--out")
    repo_id: str | None = option(None, "Dataset repo ORG/NAME: named in the card, and where an upload goes.",
                                 "--repo-id", envvar="AAC_HF_REPO_ID")
    optout: str | Path | None = option(None, "Opt-out list (owner/name or owner/* per line). Default: "
                                             "<corpus>/optout.txt, then ./optout.txt, if present.", "--optout")
    # the CLI uploads when given --repo-id without --dry-run
    upload: bool = option(False, "Upload the folder to the Hub repo (needs HF_TOKEN).", in_cli=False)
    private: bool = option(False, "Create the Hub repo as private.", "--private")
    force: bool = option(False, "Write into a non-empty --out folder that no earlier publish wrote (its README.md and "
                                "data/ are replaced).", "--force")


class MissingHubToken(RunError, RuntimeError):
    """An upload was asked for without HF_TOKEN in the environment."""


@dataclass
class PublishReport:
    """What one publish wrote (and uploaded); ``to_dict()`` is what the flow returns."""

    rows: dict[str, int]  # rows per config
    held_back: dict[str, int]  # artifacts held back, per reason
    per_platform: list[list]
    per_type: list[list]
    labels_of_changed_text: int = 0  # labels held back: their item's text changed since it was labelled
    optout_path: str | None = None
    optout_entries: int = 0
    raw_kept: bool = False  # the corpus holds raw_artifacts (unredacted, never published): front ends say so
    uploaded_files: int | None = None  # None: nothing uploaded
    commit: str | None = None  # the upload's commit URL (or the repo id when the Hub gave none)

    def to_dict(self) -> dict:
        return asdict(self)


def build_stage(corpus: str, out: str, repo_id: str | None, optout: str | None, force: bool = False) -> dict:
    """Build and validate the Hub folder; a dict of the :class:`PublishReport` fields it fills. ``out`` must be
    new, empty or an earlier publish's (``force``: any folder), see :func:`aac.hub.publish.check_out_folder`."""
    from aac.core.store import Corpus
    from aac.hub.policy import OptOut
    from aac.hub.publish import build_hub_folder

    optout_path = optout or OptOut.default_path(corpus)
    opt = OptOut.load(optout_path)
    result = build_hub_folder(Corpus(corpus), Path(out), repo_id=repo_id, optout=opt, force=force)
    return {"rows": dict(result.report.rows), "held_back": dict(result.report.held_back),
            "per_platform": [list(r) for r in result.summary["per_platform"]],
            "per_type": [list(r) for r in result.summary["per_type"]],
            "labels_of_changed_text": result.report.labels_of_changed_text,
            "optout_path": str(optout_path) if optout_path else None, "optout_entries": len(opt),
            "raw_kept": result.raw_kept}


def upload_stage(out: str, repo_id: str, private: bool = False) -> dict:
    """Upload the Hub folder with the environment's HF_TOKEN: {"uploaded_files", "commit"}."""
    from aac.hub.upload import upload_hub_folder

    settings = Settings.from_env()
    if not settings.hf_token:
        raise MissingHubToken("HF_TOKEN is not set: export a token with write access to upload")
    up = upload_hub_folder(Path(out), repo_id, settings.hf_token, endpoint=settings.hf_endpoint, private=private)
    return {"uploaded_files": len(up.files), "commit": up.commit_url or repo_id}


@dataclass(frozen=True)
class PublishStages:
    """The two stages; the flow swaps in its Prefect tasks (the upload retried)."""

    build: Callable[[str, str, str | None, str | None, bool], dict] = build_stage
    upload: Callable[[str, str, bool], dict] = upload_stage


def publish(options: PublishOptions, stages: PublishStages = PublishStages()) -> PublishReport:
    """Build, validate and (when ``options.upload``) upload. Raises ValueError for an upload without a repo id,
    the build's errors (HubFolderInvalid, ValueError, FileNotFoundError), MissingHubToken and UploadError."""
    if options.upload and not options.repo_id:
        raise ValueError("an upload needs a repo id (--repo-id, or AAC_HF_REPO_ID in the environment)")
    report = PublishReport(**stages.build(str(options.corpus), str(options.out), options.repo_id,
                                          str(options.optout) if options.optout else None, options.force))
    if options.upload:
        up = stages.upload(str(options.out), options.repo_id, options.private)
        report.uploaded_files, report.commit = up["uploaded_files"], up["commit"]
    return report
