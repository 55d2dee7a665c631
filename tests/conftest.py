"""Shared fixtures: paths to the read-only dev data in ../shared/data and an isolated environment."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
# the read-only real data beside the repository (as aac.classifiers.paths.shared_data finds it); a clean clone has
# none, and every test needing it skips with a reason naming the folder
SHARED_DATA = Path(os.environ.get("AAC_SHARED_DATA") or REPO_ROOT.parent / "shared" / "data")

os.environ.setdefault("DO_NOT_TRACK", "1")
os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "120")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")


def _session_dir(variable: str, prefix: str) -> None:
    """A fresh folder for this test session (removed at exit), unless the caller chose one."""
    if variable not in os.environ:
        os.environ[variable] = tempfile.mkdtemp(prefix=prefix)
        atexit.register(shutil.rmtree, os.environ[variable], True)


# Prefect keeps its database and cached results under PREFECT_HOME: never ~/.prefect, never shared between runs
_session_dir("PREFECT_HOME", "aac-tests-prefect-")
# property tests draw the same examples on every run and write nothing into the repository
_session_dir("HYPOTHESIS_STORAGE_DIRECTORY", "aac-tests-hypothesis-")
from hypothesis import settings  # noqa: E402  (after its storage folder is chosen)

settings.register_profile("aac", derandomize=True, database=None)
settings.load_profile("aac")


class _ExtraAwareModule(pytest.Module):
    """A test module whose imports need an extra that is not installed (`pip install aac` alone) is skipped with a
    reason naming the extra and its install line, instead of failing collection; with every extra installed
    (CI's full venv) nothing is skipped this way."""

    def _getobj(self):
        try:
            return super()._getobj()
        except self.CollectError as exc:
            from aac.core.extras import missing_extra_message

            message = missing_extra_message(exc.__cause__) if exc.__cause__ is not None else None
            if message is None:
                raise
            raise pytest.skip.Exception(message.replace("this command", "this test module"),
                                        allow_module_level=True) from None


def pytest_pycollect_makemodule(module_path, parent):
    return _ExtraAwareModule.from_parent(parent, path=module_path)


def needs_extra(module: str):
    """Skip the calling test when an extra's module is absent (a test that reaches the pipeline at run time)."""
    from aac.core.extras import EXTRA_OF_MODULE, install_line

    extra = EXTRA_OF_MODULE[module]
    return pytest.importorskip(module, reason=f"needs the {extra} extra ({install_line(extra)})")


@pytest.fixture(scope="session")
def load_bench():
    """Import a script of bench/ as a module (bench/ is not a package), so its helpers are tested like the package's."""
    import importlib.util

    def load(name: str):
        spec = importlib.util.spec_from_file_location(name, REPO_ROOT / "bench" / f"{name}.py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod
    return load


def shared_file(name: str) -> Path:
    path = SHARED_DATA / name
    if not path.exists():
        pytest.skip(f"needs the shared dev data folder {SHARED_DATA} (absent: {name} not found)")
    return path


@pytest.fixture
def sample_path() -> Path:
    """The 293 real agent configuration files (read-only; never copied into the repo)."""
    return shared_file("agent_configs_sample.jsonl")


@pytest.fixture
def gold_path() -> Path:
    return shared_file("gold_dev.jsonl")


@pytest.fixture
def phrasing_path() -> Path:
    return shared_file("phrasing_dev.jsonl")


@pytest.fixture
def corpus(tmp_path):
    needs_extra("duckdb")
    needs_extra("pyarrow")
    from aac.core.store import Corpus

    return Corpus(tmp_path / "corpus-root")
