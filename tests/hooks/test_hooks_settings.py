"""`aac hook install|uninstall`: every hook the user already has is kept, a second install is a no-op, an uninstall
removes only ours, --dry-run prints a diff and writes nothing, a malformed file is refused untouched."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from aac.hooks.agents import AGENTS, get_agent
from aac.hooks.settings import is_ours, plan_install, plan_uninstall, apply
from hook_fixtures import REPO_ROOT

USER_HOOKS = {
    "claude-code": {"model": "opus", "permissions": {"allow": ["Bash(ls:*)"]}, "hooks": {
        "SessionStart": [{"matcher": "compact", "hooks": [{"type": "command", "command": "~/bin/remind.sh"}]}],
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard-bash"}]}],
        "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]}},
    "codex": {"hooks": {"SessionStart": [{"matcher": "startup", "hooks": [
        {"type": "command", "command": "python3 ctx.py", "timeout": 10, "statusMessage": "Loading"}]}]}},
    "gemini": {"general": {"vimMode": True}, "hooks": {"BeforeTool": [{"matcher": "run_shell_command", "hooks": [
        {"type": "command", "command": "./scripts/log-tool.sh", "name": "log"}]}]}},
    "cursor": {"version": 1, "hooks": {"sessionStart": [{"command": "./hooks/banner.sh"}],
                                       "beforeShellExecution": [{"command": "./hooks/guard.sh"}]}},
}


def ours_in(data: dict) -> list[tuple[str, str]]:
    found = []
    for event, groups in data.get("hooks", {}).items():
        for g in groups:
            for h in g.get("hooks", [g]):
                if is_ours(h.get("command")):
                    found.append((event, g.get("matcher")))
    return found


@pytest.mark.parametrize("name", list(AGENTS))
def test_install_keeps_user_hooks_is_idempotent_and_uninstall_removes_only_ours(tmp_path, name):
    agent = get_agent(name)
    path = agent.settings_path("project", tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(USER_HOOKS[name], indent=4))
    original = json.loads(path.read_text())

    change = plan_install(agent, path)
    assert change.changed
    apply(change)
    after = json.loads(path.read_text())
    expected = [(e.event, e.matcher) for e in agent.entries if not e.opt_in]
    assert sorted(ours_in(after), key=str) == sorted(expected, key=str)
    for key, value in original.items():  # every user setting and hook still there, unchanged
        if key != "hooks":
            assert after[key] == value
    for event, groups in original["hooks"].items():
        for g in groups:
            assert g in after["hooks"][event]

    stat = path.stat()
    again = plan_install(agent, path)
    assert not again.changed and again.after == again.before
    apply(again)
    assert path.stat().st_mtime_ns == stat.st_mtime_ns  # a second install writes nothing

    apply(plan_uninstall(agent, path))
    assert json.loads(path.read_text()) == original
    assert not plan_uninstall(agent, path).changed


def test_install_into_missing_file_and_uninstall_leaves_empty_object(tmp_path):
    agent = get_agent("claude-code")
    path = agent.settings_path("local", tmp_path)
    apply(plan_install(agent, path))
    data = json.loads(path.read_text())
    assert data["hooks"]["SessionStart"] == [{"matcher": "compact", "hooks": [
        {"type": "command", "command": data["hooks"]["SessionStart"][0]["hooks"][0]["command"], "timeout": 30}]}]
    assert path == tmp_path / ".claude" / "settings.local.json"
    apply(plan_uninstall(agent, path))
    assert json.loads(path.read_text()) == {}


def test_prompts_opt_in_and_out(tmp_path):
    agent = get_agent("claude-code")
    path = agent.settings_path("project", tmp_path)
    apply(plan_install(agent, path, prompts=True))
    assert ("UserPromptSubmit", None) in ours_in(json.loads(path.read_text()))
    apply(plan_install(agent, path))  # installing again without --prompts withdraws the opt-in
    assert ("UserPromptSubmit", None) not in ours_in(json.loads(path.read_text()))
    gemini = get_agent("gemini")
    gpath = gemini.settings_path("project", tmp_path)
    apply(plan_install(gemini, gpath, prompts=True))
    cmds = [h["command"] for g in json.loads(gpath.read_text())["hooks"]["BeforeAgent"] for h in g["hooks"]]
    assert len(cmds) == 1 and cmds[0].endswith("--prompts")
    apply(plan_install(gemini, gpath))  # updated in place, not duplicated
    cmds = [h["command"] for g in json.loads(gpath.read_text())["hooks"]["BeforeAgent"] for h in g["hooks"]]
    assert len(cmds) == 1 and not cmds[0].endswith("--prompts")


def test_reinstall_with_another_interpreter_updates_in_place(tmp_path):
    agent = get_agent("codex")
    path = agent.settings_path("project", tmp_path)
    apply(plan_install(agent, path, python="/old/venv/bin/python"))
    apply(plan_install(agent, path, python="/new/venv/bin/python"))
    text = path.read_text()
    assert "/old/venv" not in text and text.count("/new/venv/bin/python -m aac.hooks run --agent codex") == 1


def test_unknown_scope_and_agent(tmp_path):
    with pytest.raises(ValueError, match="no 'local' scope"):
        get_agent("codex").settings_path("local", tmp_path)
    with pytest.raises(ValueError, match="unknown agent"):
        get_agent("vim")
    assert get_agent("claude").name == "claude-code"


def test_user_scope_is_under_home(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    assert get_agent("cursor").settings_path("user", tmp_path / "proj") == tmp_path / ".cursor" / "hooks.json"


def cli(*args, home=None):
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT), AAC_HOOKS_CACHE=str(Path(tempfile.gettempdir()) / "aac-hooks-t"))
    if home:
        env["HOME"] = str(home)
    res = subprocess.run([sys.executable, "-m", "aac", "hook", *args], capture_output=True, text=True, env=env,
                         cwd=str(REPO_ROOT), timeout=120)
    return res.returncode, res.stdout, res.stderr


def test_cli_dry_run_prints_diff_and_writes_nothing(tmp_path):
    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(json.dumps(USER_HOOKS["claude-code"]))
    before = path.read_text()
    code, out, err = cli("install", "claude-code", "--project", str(tmp_path), "--dry-run")
    assert code == 0, err
    assert out.startswith("---") and "+++" in out and '"matcher": "compact"' in out and "-m aac.hooks run" in out
    assert path.read_text() == before
    (tmp_path / "CLAUDE.md").write_text("# X\n\n## Rules\n- Never push to main.\n")
    code, out, err = cli("install", "claude-code", "--project", str(tmp_path))
    assert code == 0 and "install done" in err
    assert "1 instruction file(s), 1 constraint(s) ready in the cache" in err  # the first compaction is warm
    code, out, err = cli("install", "claude-code", "--project", str(tmp_path))
    assert code == 0 and "nothing to change" in err
    code, out, err = cli("uninstall", "claude-code", "--project", str(tmp_path))
    assert code == 0 and json.loads(path.read_text()) == USER_HOOKS["claude-code"]


def test_cli_refuses_malformed_settings_untouched(tmp_path):
    path = tmp_path / ".cursor" / "hooks.json"
    path.parent.mkdir()
    path.write_text('{"version": 1, "hooks": {')
    code, out, err = cli("install", "cursor", "--project", str(tmp_path))
    assert code == 2 and "not valid JSON" in err and "Traceback" not in err
    assert path.read_text() == '{"version": 1, "hooks": {'
    code, _, err = cli("install", "codex", "--scope", "local", "--project", str(tmp_path))
    assert code == 2 and "no 'local' scope" in err


def test_cli_user_scope(tmp_path):
    code, _, err = cli("install", "gemini", "--scope", "user", home=tmp_path)
    assert code == 0, err
    data = json.loads((tmp_path / ".gemini" / "settings.json").read_text())
    assert [e for e, _ in ours_in(data)] == ["PreCompress", "BeforeAgent"]
