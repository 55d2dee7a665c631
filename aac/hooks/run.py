"""``aac hook run``: read one event on stdin, answer with at most one JSON object, always exit 0.

A hook must never break the agent: malformed or empty stdin, an unknown event, a project that cannot be read, a
bug here - all end with nothing on stdout and exit 0, the reason in the log under the user's cache folder
(``aac.hooks.paths.log_path``). What is answered:

- after a compaction (Claude Code / Codex ``SessionStart`` with source ``compact``; Gemini ``BeforeAgent`` after a
  ``PreCompress``; Cursor ``sessionStart``): the block of the project's constraints (``aac.hooks.block``);
- ``PreCompact`` / ``PreCompress`` / ``preCompact``: nothing on stdout (PreCompact cannot add context and must not
  block); the session's state is recorded and new or changed instruction files are typed into the cache, so the
  answer after the compaction is a warm call;
- ``PreToolUse`` on ``Edit|Write|MultiEdit``: the path-scoped constraints that cover ``tool_input.file_path``,
  each at most once per session;
- ``UserPromptSubmit`` (and Gemini ``BeforeAgent`` with ``--prompts``): TypeRetrieve for the prompt, the
  constraints in scope pinned first.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from aac.hooks.paths import log

MAX_STDIN_CHARS = 32 << 20  # an event larger than this is not read further (logged): no agent sends one
OUTPUT_CAP = 10_000  # what the agents inject inline (Claude Code persists longer output to a file, 2 KB preview)
ANSWER_OVERHEAD = 100  # the JSON around the context text: {"hookSpecificOutput": {"hookEventName": ...}}
EDIT_TOOLS = frozenset({"Edit", "Write", "MultiEdit"})
PROMPT_QUERY_CHARS = 2000
RETRIEVE_K = 12


@dataclass(frozen=True)
class Event:
    name: str
    source: str
    cwd: Path
    session_id: str
    transcript: str | None
    prompt: str
    tool_name: str
    file_path: str


def parse_event(raw: str) -> Event:
    data = json.loads(raw)
    if not isinstance(data, dict):
        raise ValueError(f"the event is a JSON {type(data).__name__}, not an object")
    name = data.get("hook_event_name")
    if not isinstance(name, str) or not name:
        raise ValueError("the event has no hook_event_name")
    cwd = data.get("cwd")
    if not isinstance(cwd, str) or not cwd:
        roots = data.get("workspace_roots")  # Cursor
        cwd = roots[0] if isinstance(roots, list) and roots and isinstance(roots[0], str) else os.getcwd()
    tool_input = data.get("tool_input") if isinstance(data.get("tool_input"), dict) else {}
    file_path = tool_input.get("file_path") or tool_input.get("path") or data.get("file_path") or ""

    def text(key) -> str:
        v = data.get(key)
        return v if isinstance(v, str) else ""

    session = text("session_id") or text("conversation_id")
    source = text("source") or text("trigger")
    transcript = data.get("transcript_path") if isinstance(data.get("transcript_path"), str) else None
    return Event(name, source, Path(cwd), session, transcript, text("prompt"), text("tool_name"),
                 file_path if isinstance(file_path, str) else "")


def run(agent_name: str, raw: str, max_chars: int = 9000, prompts: bool = False) -> str:
    """The hook's stdout for one event ("" for nothing); never raises."""
    event_name = "?"
    try:
        from aac.hooks.agents import get_agent

        agent = get_agent(agent_name)
        if not raw.strip():
            log(f"{agent.name}: empty stdin; nothing answered")
            return ""
        if len(raw) > MAX_STDIN_CHARS:
            log(f"{agent.name}: event of {len(raw):,} characters exceeds {MAX_STDIN_CHARS:,}; nothing answered")
            return ""
        event = parse_event(raw)
        event_name = event.name
        if not event.cwd.is_dir():
            log(f"{agent.name} {event.name}: cwd {event.cwd} is no folder; nothing answered")
            return ""
        budget = max(200, min(max_chars, OUTPUT_CAP - ANSWER_OVERHEAD))
        text, out_event = _dispatch(agent.name, event, budget, prompts)
        return _answer(agent, out_event, text) if text else ""
    except Exception as exc:  # noqa: BLE001 - whatever happens, the agent gets exit 0 and an empty stdout
        log(f"{agent_name} {event_name}: {type(exc).__name__}: {exc}")
        return ""


def _answer(agent, out_event: str, text: str) -> str:
    out = json.dumps(agent.answer(out_event, text), ensure_ascii=False)
    if len(out) > OUTPUT_CAP:  # cannot happen: budgets are measured escaped, within OUTPUT_CAP - ANSWER_OVERHEAD
        log(f"{agent.name} {out_event}: answer of {len(out):,} characters exceeds {OUTPUT_CAP:,}; nothing answered")
        return ""
    return out


def _dispatch(agent: str, event: Event, max_chars: int, prompts: bool) -> tuple[str, str]:
    """(context text, the event name to answer for) - ("", "") for nothing."""
    name = event.name
    if name in ("PreCompact", "PreCompress", "preCompact"):
        _record_compaction(agent, event)
        return "", ""
    if name in ("SessionStart", "sessionStart"):
        if agent == "cursor" or event.source == "compact":
            return compaction_block(event, max_chars), name
        return "", ""  # startup / resume / clear: the agent loads its own instruction files
    if name == "BeforeAgent":  # Gemini: the turn after a PreCompress
        from aac.hooks import state

        st = state.load(event.session_id)
        if st.get("pending_compaction"):
            return compaction_block(event, max_chars), name
        return (prompt_context(event, max_chars), name) if prompts else ("", "")
    if name == "PreToolUse":
        if event.tool_name in EDIT_TOOLS and event.file_path:
            return edit_rules(event, max_chars), name
        return "", ""
    if name == "UserPromptSubmit":
        return prompt_context(event, max_chars), name
    log(f"{agent}: unknown event {name!r}; nothing answered")
    return "", ""


def _record_compaction(agent: str, event: Event) -> None:
    from aac.hooks import state

    st = state.load(event.session_id)
    st.update(pending_compaction=True, compacted_at=state.now(), trigger=event.source, agent=agent,
              cwd=str(event.cwd), transcript=event.transcript)
    st["compactions"] = int(st.get("compactions") or 0) + 1
    state.save(event.session_id, st)
    try:  # type new or changed files now, while the agent compacts (seconds of model time): the answer after it
        _project_rules(project_root(event.cwd))  # is then a warm call
    except Exception as exc:  # noqa: BLE001 - a failure here costs only speed; the next call types the files
        log(f"{agent} {event.name}: warming the item cache failed: {type(exc).__name__}: {exc}")


def project_root(cwd: Path) -> Path:
    """The repository holding ``cwd`` (its nearest ancestor with a ``.git``), else ``cwd``: an agent started in a
    subfolder still answers to the root's instruction files, as it loads them."""
    here = cwd.resolve()
    home = Path.home().resolve()
    for folder in (here, *here.parents):
        if folder in (home, Path(folder.anchor)):
            break  # a home folder kept in git (dotfiles) is not the project: never walk all of it
        if (folder / ".git").exists():
            return folder
    return here


def _project_rules(root: Path):
    from aac.hooks.project import instruction_files, load_items, rules_of

    files = instruction_files(root)
    items = load_items(root, files)
    return files, items, rules_of(items)


def compaction_block(event: Event, max_chars: int) -> str:
    from aac.hooks import state
    from aac.hooks.block import render
    from aac.hooks.touched import touched_files

    root = project_root(event.cwd)
    _, _, rules = _project_rules(root)
    touched, _ = touched_files(root, event.transcript)
    block = render(rules, touched, max_chars)
    st = state.load(event.session_id)
    st["pending_compaction"] = False
    st["shown"] = sorted({state.rule_key(r.file, r.text) for r in block.shown})  # edits need not repeat them
    st["touched"] = touched[:200]
    state.save(event.session_id, st)
    return block.text


def edit_rules(event: Event, max_chars: int) -> str:
    """The path-scoped constraints covering the edited file that this session has not been shown yet."""
    from aac.hooks import state
    from aac.hooks.block import applies_to, is_path_scoped, render

    full = event.file_path if os.path.isabs(event.file_path) else os.path.join(str(event.cwd), event.file_path)
    root = project_root(event.cwd)
    rel = os.path.relpath(os.path.realpath(full), str(root))
    if rel.startswith(".."):
        return ""
    rel = rel.replace(os.sep, "/")
    _, _, rules = _project_rules(root)
    st = state.load(event.session_id)
    shown = set(st.get("shown") or [])
    fresh = [r for r in rules
             if is_path_scoped(r) and applies_to(r, rel) and state.rule_key(r.file, r.text) not in shown]
    if not fresh:
        return ""
    header = (f"Rules that apply to {rel}, verbatim from the project's instruction files (file:line, under the "
              "heading that governs each; given once per session by `aac hook`).")
    block = render(fresh, [rel], max_chars, header=header)
    st["shown"] = sorted(shown | {state.rule_key(r.file, r.text) for r in block.shown})
    state.save(event.session_id, st)
    return block.text


def prompt_context(event: Event, max_chars: int) -> str:
    """TypeRetrieve over the project's items for the prompt: in-scope constraints pinned, relevance after."""
    if not event.prompt.strip():
        return ""
    from aac.hooks.block import size
    from aac.hooks.touched import touched_files
    from aac.operators.model import item_from_row
    from aac.operators.retrieve import TypeRetriever, namespaced

    root = project_root(event.cwd)
    _, items, _ = _project_rules(root)
    store, where = [], {}
    for rel, records in items.items():
        for r in records:
            row = {"item_id": str(r["ordinal"]), "text": r["text"], "kind": r.get("kind"), "type": r.get("type"),
                   "type_proba": r.get("proba"), "abstained": r.get("abstained"), "scope": r.get("scope"),
                   "topic": r.get("topic"), "section_path": r.get("section"), "ordinal": r["ordinal"]}
            it = namespaced(item_from_row(row), rel, len(store), keep_global=True)
            store.append(it)
            where[it.id] = (rel, r)
    if not store:
        return ""
    touched, _ = touched_files(root, event.transcript)
    got = TypeRetriever(store, "bm25").retrieve(event.prompt[:PROMPT_QUERY_CHARS], RETRIEVE_K, paths=tuple(touched))
    pinned = set(got.pinned)
    lines = ["Project rules and notes relevant to this prompt (verbatim; rules in scope first; from `aac hook`):"]
    used = size(lines[0])
    seen: set[str] = set()
    for it in got.items:
        rel, r = where[it.id]
        key = " ".join(r["text"].split())
        if key in seen:  # the same rule in two files: once
            continue
        seen.add(key)
        tag = "rule" if it.id in pinned else "note"
        ctx = f" [{r['context']}]" if r.get("context") else ""
        line = f"- ({tag}) {rel}:{r.get('line') or 0}{ctx}: {r['text']}"
        if used + size(line) + 2 > max_chars:
            continue
        lines.append(line)
        used += size(line) + 2
    return "\n".join(lines) if len(lines) > 1 else ""


def main(argv: list[str] | None = None) -> int:
    """``python -m aac.hooks run --agent NAME [--max-chars N] [--prompts]``: the entry the installed hooks call (the
    same as ``aac hook run``, without loading the rest of the CLI)."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m aac.hooks", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("run", help="answer one hook event read on stdin")
    p.add_argument("--agent", required=True)
    p.add_argument("--max-chars", type=int, default=9000)
    p.add_argument("--prompts", action="store_true")
    try:
        args = parser.parse_args(argv)
    except SystemExit:
        log(f"bad arguments {argv if argv is not None else sys.argv[1:]!r}; nothing answered")
        return 0
    return run_stdio(args.agent, args.max_chars, args.prompts)


def run_stdio(agent: str, max_chars: int, prompts: bool) -> int:
    try:
        raw = sys.stdin.buffer.read(MAX_STDIN_CHARS + 1).decode("utf-8", errors="replace")
    except (OSError, ValueError, AttributeError) as exc:
        log(f"{agent}: stdin unreadable ({type(exc).__name__}); nothing answered")
        return 0
    out = run(agent, raw, max_chars, prompts)
    if out:
        try:
            sys.stdout.write(out + "\n")
            sys.stdout.flush()
        except (OSError, ValueError) as exc:  # the agent closed the pipe (it timed out): nothing to do
            log(f"{agent}: answer not delivered ({type(exc).__name__})")
    return 0
