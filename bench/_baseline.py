"""Another revision of the code, measured beside the working tree in the same run.

On a shared machine two runs an hour apart are not comparable; runs interleaved in one session are. ``export``
writes a commit's files (``git archive``, no worktree or ref is created) into a temporary folder, and ``run`` starts a
command with that folder first on ``PYTHONPATH``, so ``import aac`` there loads the old code while the installed
dependencies stay the same. ``REPO`` itself is run the same way, so both sides pay the same start-up.
"""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def resolve(rev: str) -> str:
    """The full commit id of ``rev`` (a clear error when git does not know it)."""
    res = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"],
                         capture_output=True, text=True)
    if res.returncode:
        raise SystemExit(f"--baseline {rev}: not a commit of {REPO}")
    return res.stdout.strip()


def export(rev: str) -> Path:
    """The files of commit ``rev`` in a new temporary folder (the caller removes it with ``shutil.rmtree``)."""
    commit = resolve(rev)
    tree = Path(tempfile.mkdtemp(prefix=f"aac-baseline-{commit[:8]}-"))
    archive = subprocess.run(["git", "-C", str(REPO), "archive", "--format=tar", commit],
                             capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    return tree


@dataclass(frozen=True)
class Run:
    stdout: str
    wall: float
    cpu: float  # user + system of the child and everything it waited for (its worker processes)


def run(tree: Path, args: list[str], env: dict[str, str] | None = None) -> Run:
    """``python ARGS`` with ``tree`` first on the import path and as working folder (``env`` added to the
    environment); fails loudly on an error. CPU time counts the processes the child waited for."""
    env = {**os.environ, **(env or {}), "PYTHONPATH": str(tree)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    res = subprocess.run([sys.executable, *args], cwd=tree, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if res.returncode:
        raise SystemExit(f"{' '.join(args)} in {tree} exited {res.returncode}:\n{res.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Run(res.stdout, wall, cpu)


def remove(tree: Path) -> None:
    if tree != REPO:
        shutil.rmtree(tree, ignore_errors=True)
