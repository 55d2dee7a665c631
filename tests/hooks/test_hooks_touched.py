"""Touched files from each agent's transcript shape, else git."""

from __future__ import annotations

import json
import subprocess

from aac.hooks.touched import from_transcript, touched_files


def test_claude_codex_gemini_transcripts(tmp_path):
    root = tmp_path / "p"
    (root / "src").mkdir(parents=True)
    claude = tmp_path / "c.jsonl"
    claude.write_text("\n".join(json.dumps(x) for x in [
        {"type": "assistant", "message": {"content": [{"type": "tool_use", "name": "Edit",
                                                       "input": {"file_path": str(root / "src/a.py")}}]}},
        {"type": "assistant", "message": {"content": [{"type": "tool_use", "name": "Read",
                                                       "input": {"file_path": "/etc/hosts"}}]}},
        "not json at all"]) + "\n{broken\n")
    assert from_transcript(root, claude) == ["src/a.py"]
    codex = tmp_path / "x.jsonl"
    patch = "*** Begin Patch\n*** Update File: src/b.py\n@@\n-a\n+b\n*** End Patch"
    codex.write_text(json.dumps({"type": "response_item", "payload": {
        "type": "function_call", "name": "apply_patch", "arguments": json.dumps({"input": patch})}}) + "\n")
    assert from_transcript(root, codex) == ["src/b.py"]
    gemini = tmp_path / "g.json"
    gemini.write_text(json.dumps({"messages": [{"toolCalls": [{"name": "replace",
                                                               "args": {"file_path": str(root / "src/c.ts")}}]}]}))
    assert from_transcript(root, gemini) == ["src/c.ts"]


def test_git_fallback_and_none(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    assert touched_files(root, str(tmp_path / "missing.jsonl")) == ([], "none")
    git = ["git", "-C", str(root), "-c", "user.email=a@b", "-c", "user.name=a"]
    subprocess.run(git + ["init", "-q"], check=True)
    (root / "a.txt").write_text("1")
    subprocess.run(git + ["add", "."], check=True)
    subprocess.run(git + ["commit", "-qm", "one"], check=True)
    (root / "lib").mkdir()
    (root / "lib" / "new.py").write_text("x")
    (root / "a.txt").write_text("2")
    files, where = touched_files(root, None)
    assert where == "git" and set(files) >= {"a.txt", "lib/new.py"}
