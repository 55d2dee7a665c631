"""aac.hooks imports without Prefect, DuckDB, pyarrow or datasets, and a warm hook call classifies nothing."""

from __future__ import annotations

import json
import subprocess
import sys

from hook_fixtures import REPO_ROOT, make_project

HEAVY = ("prefect", "duckdb", "pyarrow", "datasets")


def test_import_is_light():
    code = ("import sys, aac.hooks, aac.hooks.run, aac.hooks.settings, aac.hooks.block, aac.hooks.project, "
            "aac.hooks.touched, aac.cli.hooks; "
            f"print([m for m in {HEAVY + ('numpy', 'torch')!r} if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=str(REPO_ROOT), timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_cold_and_warm_runs_load_no_pipeline(tmp_path):
    root = make_project(tmp_path / "p")
    event = json.dumps({"session_id": "s", "cwd": str(root), "hook_event_name": "SessionStart", "source": "compact"})
    code = ("import io, sys, json; from aac.hooks.run import run; "
            f"out = run('claude-code', {event!r}); assert json.loads(out); "
            f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules] + "
            "[m for m in ('aac.classifiers.linear', 'aac.core.segment') if m in sys.modules]))")
    env = {"AAC_HOOKS_CACHE": str(tmp_path / "cache"), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    cold = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=str(REPO_ROOT), env=env,
                          timeout=120)
    assert cold.returncode == 0, cold.stderr
    assert json.loads(cold.stdout) == ["aac.classifiers.linear", "aac.core.segment"]  # typed once, cold
    warm = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=str(REPO_ROOT), env=env,
                          timeout=120)
    assert warm.returncode == 0, warm.stderr
    assert json.loads(warm.stdout) == []  # warm: cached items by content hash, no segmenter, no classifier


def test_aac_hook_run_through_the_cli_loads_no_pipeline():
    """`aac hook run` (the CLI entry) answers without importing Prefect, DuckDB, pyarrow or datasets."""
    res = subprocess.run([sys.executable, "-X", "importtime", "-m", "aac", "hook", "run", "--agent", "claude-code"],
                         input=b"{}", capture_output=True, cwd=str(REPO_ROOT), timeout=120)
    assert res.returncode == 0 and res.stdout == b""
    imported = {line.rsplit("|", 1)[-1].strip() for line in res.stderr.decode().splitlines() if "|" in line}
    assert not imported & set(HEAVY)
