"""The README's Prefect lines are a sequence that works: a loopback server first, PREFECT_API_URL before any
command that talks to it, the work pool and deployments of prefect.yaml, a worker and a manual run. CI runs those
exact lines against a real server (.ci/prefect_readme.py); this checks their shape on every test run."""

from __future__ import annotations

import importlib.util
import inspect
import re
import shlex
from pathlib import Path

import yaml

REPO_ROOT = Path(__file__).resolve().parents[2]


def _readme_lines() -> list[str]:
    spec = importlib.util.spec_from_file_location("prefect_readme", REPO_ROOT / ".ci" / "prefect_readme.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return [ln.split("  #")[0].strip() for ln in mod.readme_block()]


def test_the_sequence_starts_a_loopback_server_and_points_every_later_command_at_it():
    lines = _readme_lines()
    assert lines[0] == "prefect server start --host 127.0.0.1"
    exports = [i for i, ln in enumerate(lines) if re.fullmatch(r"export PREFECT_API_URL=http://127\.0\.0\.1:4200/api", ln)]
    assert exports == [1], lines
    steps = [next(i for i, ln in enumerate(lines) if needle in ln) for needle in
             ("prefect work-pool create", "deploy --all", "prefect worker start", "prefect deployment run")]
    assert steps == sorted(steps) and steps[0] > exports[0]


def test_the_pool_deployment_and_parameters_are_those_of_prefect_yaml():
    from aac.flows.publish import publish_corpus

    config = yaml.safe_load((REPO_ROOT / "prefect.yaml").read_text(encoding="utf-8"))
    pools = {d["work_pool"]["name"] for d in config["deployments"]}
    names = {f"{d['entrypoint'].split(':')[1].replace('_', '-')}/{d['name']}" for d in config["deployments"]}
    lines = _readme_lines()
    pool = shlex.split(next(ln for ln in lines if "work-pool create" in ln))
    worker = shlex.split(next(ln for ln in lines if "worker start" in ln))
    assert pools == {pool[pool.index("create") + 1]} == {worker[worker.index("--pool") + 1]}
    run = shlex.split(next(ln for ln in lines if "deployment run" in ln))
    assert run[run.index("run") + 1] in names
    params = [run[i + 1].split("=")[0] for i, a in enumerate(run) if a == "--param"]
    fn = getattr(publish_corpus, "fn", publish_corpus)
    assert params and set(params) <= set(inspect.signature(fn).parameters)
