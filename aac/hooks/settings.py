"""Merge our hook entries into an agent's settings file, and take them out again, without touching anything else.

Ours are recognised by their command (``... -m aac.hooks run ...`` or ``aac hook run ...``), so a re-install
updates our entry in place (a new interpreter path, a new flag) instead of adding a second one, and an uninstall
removes exactly those. A file that is not valid JSON is refused, never overwritten.
"""

from __future__ import annotations

import copy
import difflib
import json
import re
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

from aac.hooks.agents import Agent, Entry
from aac.hooks.paths import write_atomic

_OURS = re.compile(r"(?:-m\s+aac\.hooks|\baac\s+hook)\s+run\b")


def is_ours(command) -> bool:
    return isinstance(command, str) and _OURS.search(command) is not None


def hook_command(agent: Agent, prompts: bool = False, python: str | None = None) -> str:
    """The command the agent runs: this interpreter by absolute path, so the hook works whatever the agent's PATH
    (a virtualenv that is not activated in the agent's shell) and skips loading the rest of the CLI."""
    cmd = f"{shlex.quote(python or sys.executable)} -m aac.hooks run --agent {agent.name}"
    return cmd + " --prompts" if prompts else cmd


@dataclass
class Change:
    path: Path
    before: str  # "" when the file did not exist
    after: str  # "" when the file is to be removed... never: we keep the file, possibly as {}
    changed: bool

    def diff(self) -> str:
        return "".join(difflib.unified_diff(self.before.splitlines(True), self.after.splitlines(True),
                                            fromfile=f"{self.path} (now)", tofile=f"{self.path} (after)"))


def load_settings(path: Path) -> tuple[dict, str]:
    """The parsed settings and their text; a missing or empty file is an empty object."""
    if not path.exists():
        return {}, ""
    text = path.read_text(encoding="utf-8")
    if not text.strip():
        return {}, text
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path} is not valid JSON ({exc.msg} at line {exc.lineno}); fix it first, "
                         "nothing was changed") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path} holds a JSON {type(data).__name__}, not an object; nothing was changed")
    return data, text


def _dump(data: dict) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _hooks_table(data: dict, path: Path) -> dict:
    hooks = data.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise ValueError(f"{path}: 'hooks' is a {type(hooks).__name__}, not an object; nothing was changed")
    return hooks


def merged(agent: Agent, data: dict, command_of, path: Path) -> dict:
    """A copy of ``data`` with our entries added (or updated in place); every other key and hook kept as it was."""
    out = copy.deepcopy(data)
    hooks = _hooks_table(out, path)
    if agent.layout == "flat":
        out.setdefault("version", 1)
    for entry in agent.entries:
        command = command_of(entry)
        if command is None:
            continue
        groups = hooks.setdefault(entry.event, [])
        if not isinstance(groups, list):
            raise ValueError(f"{path}: hooks.{entry.event} is not a list; nothing was changed")
        if agent.layout == "flat":
            _merge_flat(groups, command, agent)
        else:
            _merge_nested(groups, entry, command, agent)
    return out


def _merge_flat(groups: list, command: str, agent: Agent) -> None:
    mine = [h for h in groups if isinstance(h, dict) and is_ours(h.get("command"))]
    if mine:
        mine[0]["command"] = command
        for extra in mine[1:]:
            groups.remove(extra)
        return
    hook = {"command": command}
    if agent.timeout is not None:
        hook["timeout"] = agent.timeout
    groups.append(hook)


def _merge_nested(groups: list, entry: Entry, command: str, agent: Agent) -> None:
    """Update our hook under this event and matcher, or add one; ours under another matcher (an older install)
    and duplicates of ours are removed."""
    first = None
    for group in list(groups):
        if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
            continue
        kept = []
        for hook in group["hooks"]:
            if isinstance(hook, dict) and is_ours(hook.get("command")):
                if first is None and group.get("matcher") == entry.matcher:
                    hook["command"] = command
                    first = hook
                    kept.append(hook)
            else:
                kept.append(hook)
        if len(kept) != len(group["hooks"]):
            group["hooks"] = kept
            if not kept:
                groups.remove(group)
    if first is not None:
        return
    hook = {"type": "command", "command": command}
    if agent.timeout is not None:
        hook["timeout"] = agent.timeout
    if agent.name == "gemini":
        hook["name"] = "aac-rules"
        hook["description"] = "Re-inject the project's rules after compaction (aac hook)"
    groups.append({"matcher": entry.matcher, "hooks": [hook]} if entry.matcher is not None else {"hooks": [hook]})


def without_ours(agent: Agent, data: dict, path: Path, events: set[str] | None = None) -> dict:
    """A copy of ``data`` without any hook of ours (under ``events``, default all); a group, event or table we
    emptied goes too, nothing else."""
    out = copy.deepcopy(data)
    hooks = out.get("hooks")
    if not isinstance(hooks, dict):
        return out
    for event in list(hooks):
        if events is not None and event not in events:
            continue
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        kept = []
        for group in groups:
            if not isinstance(group, dict):
                kept.append(group)
            elif agent.layout == "flat" or "hooks" not in group:
                if not is_ours(group.get("command")):
                    kept.append(group)
            else:
                inner = group.get("hooks")
                if not isinstance(inner, list):
                    kept.append(group)
                    continue
                left = [h for h in inner if not (isinstance(h, dict) and is_ours(h.get("command")))]
                if left or not inner or len(left) == len(inner):
                    group["hooks"] = left
                    kept.append(group)
        if kept or not groups:
            hooks[event] = kept
        else:
            del hooks[event]
    if not hooks and "hooks" in data and data["hooks"]:
        del out["hooks"]
        if agent.layout == "flat" and set(out) == {"version"}:
            out = {}
    return out


def plan_install(agent: Agent, path: Path, prompts: bool = False, python: str | None = None) -> Change:
    data, before = load_settings(path)

    def command_of(entry: Entry):
        if entry.opt_in and not prompts:
            return None
        flag = prompts and (entry.opt_in or (agent.name == "gemini" and entry.event == "BeforeAgent"))
        return hook_command(agent, prompts=flag, python=python)

    new = merged(agent, data, command_of, path)
    if not prompts:  # an install without --prompts also withdraws an earlier opt-in
        new = _drop_opt_in(agent, new, path)
    return Change(path, before, before if new == data else _dump(new), new != data)


def _drop_opt_in(agent: Agent, data: dict, path: Path) -> dict:
    opt_in = {e.event for e in agent.entries if e.opt_in}
    return without_ours(agent, data, path, opt_in) if opt_in else data


def plan_uninstall(agent: Agent, path: Path) -> Change:
    data, before = load_settings(path)
    new = without_ours(agent, data, path)
    return Change(path, before, before if new == data else _dump(new), new != data)


def apply(change: Change) -> None:
    if change.changed:
        write_atomic(change.path, change.after)
