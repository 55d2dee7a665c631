"""`aac hook run` as the agents start it: recorded-shape events piped into a process, for every event and source of
each agent, plus empty, malformed and oversized input. Stdout is empty or exactly one JSON object of the agent's
schema, at most 10,000 characters; the exit code is always 0."""

from __future__ import annotations

import json

import pytest

from hook_fixtures import API_RULES, DOCS_RULE, GLOBAL_RULES, NOT_RULES, claude_transcript, make_project, run_hook

CAP = 10_000


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    root = make_project(tmp_path_factory.mktemp("project"))
    transcript = claude_transcript(tmp_path_factory.mktemp("t") / "session.jsonl", str(root / "src/api/users.py"))
    return {"root": root, "cache": tmp_path_factory.mktemp("cache"), "transcript": transcript}


def base(env, event: str, session: str = "s-1", **kw) -> dict:
    return {"session_id": session, "transcript_path": str(env["transcript"]), "cwd": str(env["root"]),
            "hook_event_name": event, **kw}


def answer(agent: str, out: str, event: str | None) -> str:
    """The context text of one answer, after checking it is exactly one object of the agent's schema."""
    assert len(out) <= CAP + 1, f"{len(out)} characters"
    obj = json.loads(out)  # one JSON document, nothing around it
    assert isinstance(obj, dict)
    if agent == "cursor":
        assert set(obj) == {"additional_context"}
        return obj["additional_context"]
    assert set(obj) == {"hookSpecificOutput"}
    inner = obj["hookSpecificOutput"]
    assert set(inner) == {"hookEventName", "additionalContext"}  # Codex refuses unknown fields
    assert inner["hookEventName"] == event
    assert isinstance(inner["additionalContext"], str) and inner["additionalContext"]
    return inner["additionalContext"]


def assert_block(text: str, with_api: bool = True) -> None:
    for rule in GLOBAL_RULES + (API_RULES if with_api else []):
        assert rule in text, rule
    for rule in NOT_RULES + [DOCS_RULE]:  # slash commands, node_modules, an untouched glob scope
        assert rule not in text, rule
    assert "CLAUDE.md:4: Force-push to main." in text  # file:line
    assert "[Acme service > Forbidden actions]" in text  # the heading that makes it a prohibition
    assert text.count("Log card numbers.") == 1  # in CLAUDE.md and AGENTS.md: given once, at its first place


@pytest.mark.parametrize("agent", ["claude-code", "codex"])
@pytest.mark.parametrize("source", ["startup", "resume", "clear", "compact"])
def test_session_start_every_source(env, agent, source):
    code, out, _ = run_hook(agent, base(env, "SessionStart", source=source, model="m", permission_mode="default"),
                            env["cache"])
    assert code == 0
    if source != "compact":
        assert out == ""  # the agent loads its own files at startup / resume / clear
        return
    text = answer(agent, out, "SessionStart")
    assert_block(text)
    assert "## .cursor/rules/api.mdc (applies to src/api/**/*.py; touched: src/api/users.py)" in text


@pytest.mark.parametrize("trigger", ["manual", "auto"])
def test_claude_precompact_is_silent_and_recorded(env, trigger):
    code, out, err = run_hook("claude-code", base(env, "PreCompact", session=f"pc-{trigger}", trigger=trigger,
                                                  custom_instructions=""), env["cache"])
    assert (code, out) == (0, "")
    assert err == ""


@pytest.mark.parametrize("tool", ["Edit", "Write", "MultiEdit"])
def test_pretooluse_edit_gives_path_rules_once_per_session(env, tool):
    session = f"edit-{tool}"
    payload = base(env, "PreToolUse", session=session, tool_name=tool,
                   tool_input={"file_path": str(env["root"] / "src/api/users.py"), "content": "x = 3"})
    code, out, _ = run_hook("claude-code", payload, env["cache"])
    text = answer("claude-code", out, "PreToolUse")
    for rule in API_RULES:
        assert rule in text
    for rule in GLOBAL_RULES + [DOCS_RULE]:
        assert rule not in text  # only what is scoped to the edited path
    code, out, _ = run_hook("claude-code", payload, env["cache"])
    assert (code, out) == (0, "")  # each rule at most once per session


def test_pretooluse_other_tools_and_outside_paths_answer_nothing(env):
    for payload in (base(env, "PreToolUse", tool_name="Bash", tool_input={"command": "ls"}),
                    base(env, "PreToolUse", tool_name="Edit", tool_input={"file_path": "/etc/passwd"}),
                    base(env, "PreToolUse", tool_name="Edit", tool_input={"file_path": str(env["root"] / "x.txt")})):
        assert run_hook("claude-code", payload, env["cache"])[:2] == (0, "")


@pytest.mark.parametrize("agent", ["claude-code", "codex"])
def test_user_prompt_submit_pins_rules_in_scope(env, agent):
    code, out, _ = run_hook(agent, base(env, "UserPromptSubmit", prompt="can I force-push the migration branch?"),
                            env["cache"])
    text = answer(agent, out, "UserPromptSubmit")
    assert "Force-push to main." in text and "(rule)" in text


def test_gemini_after_precompress_then_next_turn(env):
    for source in ("startup", "resume", "clear"):
        assert run_hook("gemini", base(env, "SessionStart", session="g", source=source), env["cache"])[:2] == (0, "")
    assert run_hook("gemini", base(env, "BeforeAgent", session="g", prompt="hi"), env["cache"])[:2] == (0, "")
    for trigger in ("auto", "manual"):
        assert run_hook("gemini", base(env, "PreCompress", session="g", trigger=trigger), env["cache"])[:2] == (0, "")
    code, out, _ = run_hook("gemini", base(env, "BeforeAgent", session="g", prompt="go on"), env["cache"])
    assert_block(answer("gemini", out, "BeforeAgent"))
    # once given, the marker is cleared: the next turn gets nothing (prompts not opted in)
    assert run_hook("gemini", base(env, "BeforeAgent", session="g", prompt="next"), env["cache"])[:2] == (0, "")


def test_gemini_prompts_opt_in(env):
    code, out, _ = run_hook("gemini", base(env, "BeforeAgent", session="gp", prompt="which rules about card numbers"),
                            env["cache"], "--prompts")
    assert "Log card numbers." in answer("gemini", out, "BeforeAgent")


def test_cursor_session_start_and_precompact(env):
    cursor = {"conversation_id": "c-1", "generation_id": "g-1", "workspace_roots": [str(env["root"])],
              "cursor_version": "1.7.0", "transcript_path": str(env["transcript"])}
    code, out, _ = run_hook("cursor", dict(cursor, hook_event_name="preCompact", trigger="auto"), env["cache"])
    assert (code, out) == (0, "")
    code, out, _ = run_hook("cursor", dict(cursor, hook_event_name="sessionStart"), env["cache"])
    assert_block(answer("cursor", out, None))


@pytest.mark.parametrize("agent", ["claude-code", "codex", "gemini", "cursor"])
def test_through_the_aac_cli(env, agent):
    """`aac hook run` (the CLI entry) answers as `python -m aac.hooks run` does."""
    event = {"claude-code": base(env, "SessionStart", source="compact"),
             "codex": base(env, "SessionStart", source="compact"),
             "gemini": base(env, "PreCompress", session="cli-g", trigger="auto"),
             "cursor": {"conversation_id": "x", "workspace_roots": [str(env["root"])],
                        "transcript_path": str(env["transcript"]), "hook_event_name": "sessionStart"}}[agent]
    code, out, err = run_hook(agent, event, env["cache"], via_cli=True)
    assert code == 0, err
    if agent == "gemini":
        assert out == ""
        code, out, _ = run_hook(agent, base(env, "BeforeAgent", session="cli-g", prompt="x"), env["cache"],
                                via_cli=True)
        assert_block(answer(agent, out, "BeforeAgent"))
    else:
        assert_block(answer(agent, out, None if agent == "cursor" else "SessionStart"))


BAD_INPUT = [b"", b"   \n", b"{not json", b"[1, 2]", b'"text"', b"\xff\xfe\x00garbage",
             b'{"hook_event_name": 3}', b'{"cwd": "/tmp"}', b'{"hook_event_name": "Notification", "cwd": "/"}',
             b'{"hook_event_name": "SessionStart", "source": "compact", "cwd": "/no/such/folder"}']


@pytest.mark.parametrize("agent", ["claude-code", "codex", "gemini", "cursor"])
@pytest.mark.parametrize("raw", BAD_INPUT, ids=[f"bad{i}" for i in range(len(BAD_INPUT))])
def test_bad_input_exit_0_and_silent(env, agent, raw):
    code, out, err = run_hook(agent, raw, env["cache"])
    assert (code, out, err) == (0, "", "")


def test_bad_input_is_logged(env):
    run_hook("claude-code", b"{not json", env["cache"])
    log = (env["cache"] / "hook.log").read_text()
    assert "JSONDecodeError" in log and "claude-code" in log


def test_oversized_input(env):
    huge = base(env, "UserPromptSubmit", prompt="never force-push " * 400_000)  # ~6.8 MB of prompt
    code, out, _ = run_hook("claude-code", huge, env["cache"])
    assert code == 0
    assert len(out) <= CAP + 1
    assert "Force-push to main." in answer("claude-code", out, "UserPromptSubmit")
    junk = b'{"hook_event_name": "SessionStart", "pad": "' + b"x" * (40 << 20) + b'"}'  # beyond what is read
    assert run_hook("claude-code", junk, env["cache"])[:2] == (0, "")


def test_missing_transcript_falls_back_to_global_rules(env):
    payload = base(env, "SessionStart", source="compact", transcript_path="/no/such/transcript.jsonl")
    text = answer("claude-code", run_hook("claude-code", payload, env["cache"])[1], "SessionStart")
    assert_block(text, with_api=False)  # not a git repository either: no touched file is known
    for rule in API_RULES:
        assert rule not in text


def test_budget_leaves_whole_rules_out_and_says_how_to_list_them(env):
    payload = base(env, "SessionStart", source="compact")
    code, out, _ = run_hook("claude-code", payload, env["cache"], "--max-chars", "700")
    text = answer("claude-code", out, "SessionStart")
    assert len(text) <= 700
    assert "left out to stay within 700 characters" in text and "aac retrieve --file" in text
    lines = [line for line in text.splitlines() if line.startswith("- ")]
    every = GLOBAL_RULES + API_RULES
    assert all(any(line.endswith(": " + r) for r in every) for line in lines)  # no rule cut mid-way
