"""One settings object read from the environment (AAC_*, GITHUB_TOKEN(S), HF_TOKEN).

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


@dataclass(frozen=True)
class Settings:
    corpus: Path = Path("data")
    github_api_url: str = DEFAULT_GITHUB_API
    github_tokens: tuple[Secret, ...] = ()
    hf_token: Secret | None = None
    hf_endpoint: str | None = None
    hf_repo_id: str | None = None  # no default repository: `aac pull` and uploads name theirs
    fetch_workers: int = DEFAULT_FETCH_WORKERS
    extra: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> "Settings":
        env = dict(os.environ if env is None else env)
        hf = env.get("HF_TOKEN", "").strip()
        return cls(
            corpus=Path(env.get("AAC_CORPUS", "data")),
            github_api_url=env.get("AAC_GITHUB_API_URL", DEFAULT_GITHUB_API),
            github_tokens=_tokens_from_env(env),
            hf_token=Secret(hf) if hf else None,
            hf_endpoint=env.get("HF_ENDPOINT") or None,
            hf_repo_id=env.get("AAC_HF_REPO_ID") or None,
            fetch_workers=_positive_int(env, "AAC_FETCH_WORKERS", DEFAULT_FETCH_WORKERS),
            extra={k: v for k, v in env.items() if k.startswith("AAC_")},
        )

    def secret_values(self) -> list[str]:
        """Every secret value in force, for scrubbing text that might leave the process."""
        vals = [t.reveal() for t in self.github_tokens]
        if self.hf_token:
            vals.append(self.hf_token.reveal())
        return [v for v in vals if v]


def scrub(text: str, settings: Settings | None = None) -> str:
    """Replace every known secret value in ``text`` with ``***`` (for error messages and logs)."""
    settings = settings or Settings.from_env()
    for value in settings.secret_values():
        text = text.replace(value, "***")
    return text
