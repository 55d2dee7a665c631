"""Send a validated Hub folder to a dataset repo with huggingface_hub.

``HfApi.upload_folder`` (huggingface_hub 2.4) is the resumable path: with ``hf_xet`` installed it streams the
files through Xet in adaptive multi-commit batches and a re-run skips what already landed (the old
``upload_large_folder`` was folded into it); without Xet (or ``HF_HUB_DISABLE_XET=1``) it makes one commit
through the LFS protocol. Stale shards of an earlier release are deleted in the same commit, so the configs'
``train-*`` globs never mix releases. The token is passed in, never logged, and scrubbed from any error.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from aac.core.config import Secret


class UploadError(Exception):
    """The upload failed; the message never contains the token."""


@dataclass(frozen=True)
class UploadResult:
    repo_id: str
    commit_url: str | None
    files: tuple[str, ...]


def _scrub(text: str, token: Secret | None) -> str:
    if token and token.reveal():
        text = text.replace(token.reveal(), "***")
    return text


def upload_hub_folder(folder: Path, repo_id: str, token: Secret | None, endpoint: str | None = None,
                      private: bool = False, commit_message: str | None = None) -> UploadResult:
    """Create the dataset repo if needed and upload README.md + data/** (replacing the previous data/)."""
    from huggingface_hub import HfApi, constants

    if constants.is_offline_mode():
        raise UploadError("HF_HUB_OFFLINE is set: unset it (or set HF_HUB_OFFLINE=0) to upload")
    folder = Path(folder)
    shards = [p for p in (folder / "data").rglob("*.parquet")]
    files = tuple(sorted(["README.md"] + [p.relative_to(folder).as_posix() for p in shards]))
    api = HfApi(endpoint=endpoint, token=token.reveal() if token else None)
    try:
        api.create_repo(repo_id, repo_type="dataset", exist_ok=True, private=private)
        info = api.upload_folder(
            repo_id=repo_id,
            repo_type="dataset",
            folder_path=str(folder),
            allow_patterns=["README.md", "data/**/*.parquet"],
            delete_patterns=["data/**"],
            commit_message=commit_message or "AAC release",
        )
    except Exception as exc:  # network/auth/server errors: one clear line, no token, no traceback of headers
        raise UploadError(_scrub(f"upload to {repo_id} failed: {type(exc).__name__}: {exc}", token)) from None
    return UploadResult(repo_id, getattr(info, "commit_url", None), files)
