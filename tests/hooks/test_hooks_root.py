"""The project is the repository holding the agent's cwd: a session started in a subfolder keeps the root's rules."""

from __future__ import annotations

import json

from aac.hooks.run import project_root, run
from hook_fixtures import GLOBAL_RULES, make_project


def test_subfolder_session_answers_with_the_repository_rules(tmp_path, monkeypatch):
    monkeypatch.setenv("AAC_HOOKS_CACHE", str(tmp_path / "cache"))
    root = make_project(tmp_path / "repo")
    (root / ".git").mkdir()
    sub = root / "src" / "api"
    assert project_root(sub) == root.resolve()
    out = run("claude-code", json.dumps({"session_id": "s", "cwd": str(sub), "hook_event_name": "SessionStart",
                                         "source": "compact"}))
    text = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    for rule in GLOBAL_RULES:
        assert rule in text


def test_home_folder_in_git_is_not_the_project(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / ".git").mkdir()
    proj = tmp_path / "code" / "proj"
    proj.mkdir(parents=True)
    assert project_root(proj) == proj.resolve()
