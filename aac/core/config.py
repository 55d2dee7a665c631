"""One settings object read from the environment (AAC_*, GITHUB_TOKEN(S), HF_TOKEN, OPENAI_API_KEY): the only
module that reads it, so every setting is declared (and documented) here once.

Secrets are wrapped in :class:`Secret` so that printing, logging or serialising a Settings object never
reveals them; code that needs the value calls ``.reveal()`` at the last moment.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path


class Secret:
    """A string that refuses to show itself in repr/str/format."""

    __slots__ = ("_value",)

    def __init__(self, value: str):
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "Secret('***')"

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        return "***"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(("Secret", self._value))

    def __bool__(self) -> bool:
        return bool(self._value)


def _tokens_from_env(env: dict[str, str]) -> tuple[Secret, ...]:
    raw = env.get("GITHUB_TOKENS", "")
    tokens = [t.strip() for t in raw.replace("\n", ",").split(",") if t.strip()]
    single = env.get("GITHUB_TOKEN", "").strip()
    if single and single not in tokens:
        tokens.append(single)
    return tuple(Secret(t) for t in tokens)


DEFAULT_GITHUB_API = "https://api.github.com"
_SECRET_VARIABLES = {"AAC_LLM_API_KEY"}  # held as a Secret, never in ``extra`` (whose values show in a repr)
DEFAULT_FETCH_WORKERS = 8  # parallel raw-content downloads per partition (no API quota; latency-bound)


def _positive_int(env: dict[str, str], name: str, default: int) -> int:
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ValueError(f"{name} must be a whole number >= 1, got {raw!r}") from None
    if value < 1:
        raise ValueError(f"{name} must be a whole number >= 1, got {raw!r}")
    return value


def _whole_number(env: dict[str, str], name: str) -> int | None:
    """A count of processes: at least 1 (0 or less asks for one), None when unset."""
    raw = env.get(name, "").strip()
    if not raw:
        return None
    try:
        return max(1, int(raw))
    except ValueError:
        raise ValueError(f"{name} must be a whole number of processes, got {raw!r}") from None


def _seconds(raw: str | None) -> float | None:
    """A wait in seconds, at least 0; None when unset or not a number (the caller's default applies)."""
    try:
        return max(0.0, float(raw)) if raw is not None and raw.strip() else None
    except ValueError:
        return None


@dataclass(frozen=True)
class Settings:
    corpus: Path = Path("data")
    github_api_url: str = DEFAULT_GITHUB_API
    github_tokens: tuple[Secret, ...] = ()
    hf_token: Secret | None = None
    hf_endpoint: str | None = None
    hf_repo_id: str | None = None  # no default repository: `aac pull` and uploads name theirs
    fetch_workers: int = DEFAULT_FETCH_WORKERS
    hf_repo_id_set: str | None = None  # AAC_HF_REPO_ID as given (None: unset; the flows upload only when set)
    debug: bool = False  # AAC_DEBUG: the CLI re-raises errors with their traceback
    shared_data: Path | None = None  # AAC_SHARED_DATA: the shared dev data (default ../shared/data)
    classifier_model: str | None = None  # AAC_CLASSIFIER_MODEL: a trained model file or folder
    classify_workers: int | None = None  # AAC_CLASSIFY_WORKERS: processes to score a big batch (None: the CPUs)
    llm_base_url: str | None = None  # AAC_LLM_BASE_URL: an OpenAI-compatible endpoint
    llm_model: str | None = None  # AAC_LLM_MODEL
    llm_api_key: Secret | None = None  # AAC_LLM_API_KEY, else OPENAI_API_KEY
    llm_cache: Path | None = None  # AAC_LLM_CACHE: the replies' cache (default ~/.cache/aac/llm_cache.duckdb)
    lock_wait_s: float | None = None  # AAC_LOCK_WAIT: seconds a writer waits for a busy corpus (None: the default)
    hooks_cache: Path | None = None  # AAC_HOOKS_CACHE: the agent hooks' cache folder
    xdg_cache_home: str | None = None  # XDG_CACHE_HOME: the user's cache root (hooks cache under it by default)
    extra: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> "Settings":
        env = dict(os.environ if env is None else env)
        hf = env.get("HF_TOKEN", "").strip()
        llm_key = env.get("AAC_LLM_API_KEY") or env.get("OPENAI_API_KEY")
        return cls(
            corpus=Path(env.get("AAC_CORPUS", "data")),
            github_api_url=env.get("AAC_GITHUB_API_URL", DEFAULT_GITHUB_API),
            github_tokens=_tokens_from_env(env),
            hf_token=Secret(hf) if hf else None,
            hf_endpoint=env.get("HF_ENDPOINT") or None,
            hf_repo_id=env.get("AAC_HF_REPO_ID") or None,
            fetch_workers=_positive_int(env, "AAC_FETCH_WORKERS", DEFAULT_FETCH_WORKERS),
            hf_repo_id_set=env.get("AAC_HF_REPO_ID") or None,
            debug=bool(env.get("AAC_DEBUG")),
            shared_data=Path(env["AAC_SHARED_DATA"]) if env.get("AAC_SHARED_DATA") else None,
            classifier_model=env.get("AAC_CLASSIFIER_MODEL") or None,
            classify_workers=_whole_number(env, "AAC_CLASSIFY_WORKERS"),
            llm_base_url=env.get("AAC_LLM_BASE_URL") or None,
            llm_model=env.get("AAC_LLM_MODEL") or None,
            llm_api_key=Secret(llm_key) if llm_key else None,
            llm_cache=Path(env["AAC_LLM_CACHE"]) if env.get("AAC_LLM_CACHE") else None,
            lock_wait_s=_seconds(env.get("AAC_LOCK_WAIT")),
            hooks_cache=Path(env["AAC_HOOKS_CACHE"]) if env.get("AAC_HOOKS_CACHE") else None,
            xdg_cache_home=env.get("XDG_CACHE_HOME") or None,
            extra={k: v for k, v in env.items() if k.startswith("AAC_") and k not in _SECRET_VARIABLES},
        )

    def secret_values(self) -> list[str]:
        """Every secret value in force, for scrubbing text that might leave the process."""
        vals = [t.reveal() for t in self.github_tokens]
        for secret in (self.hf_token, self.llm_api_key):
            if secret:
                vals.append(secret.reveal())
        return [v for v in vals if v]


def scrub(text: str, settings: Settings | None = None) -> str:
    """Replace every known secret value in ``text`` with ``***`` (for error messages and logs)."""
    settings = settings or Settings.from_env()
    for value in settings.secret_values():
        text = text.replace(value, "***")
    return text
