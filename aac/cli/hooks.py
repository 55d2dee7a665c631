"""`aac hook install|uninstall|run`: keep an agent's project rules after context compaction.

Only typer is imported at module level; the hook's own modules load inside the commands.
"""

from __future__ import annotations

from pathlib import Path

import typer

hook_app = typer.Typer(help="Keep your agent's rules after compaction: hooks for Claude Code, Codex CLI, Gemini CLI "
                            "and Cursor.", no_args_is_help=True)

AgentArg = typer.Argument(..., help="claude-code | codex | gemini | cursor")
ScopeOpt = typer.Option("project", "--scope", help="project (the repository's settings, shared) | user (your home "
                        "folder's) | local (Claude Code's .claude/settings.local.json, not committed)")
ProjectOpt = typer.Option(Path("."), "--project", help="The project root (for --scope project/local).")


def _agent(name: str):
    from aac.hooks.agents import get_agent

    try:
        return get_agent(name)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None


def _report(change, dry_run: bool, verb: str) -> None:
    from aac.hooks.settings import apply

    if not change.changed:
        typer.echo(f"{change.path}: nothing to change ({verb} already done)", err=True)
        return
    if dry_run:
        typer.echo(change.diff(), nl=False)
        return
    apply(change)
    typer.echo(f"{change.path}: {verb} done", err=True)


@hook_app.command("install")
def install(agent: str = AgentArg, scope: str = ScopeOpt, project: Path = ProjectOpt,
            prompts: bool = typer.Option(False, "--prompts", help="Also add rules relevant to each prompt "
                                         "(UserPromptSubmit / BeforeAgent): TypeRetrieve with in-scope rules pinned."),
            dry_run: bool = typer.Option(False, "--dry-run", help="Print the diff of the settings file; change "
                                         "nothing.")) -> None:
    """Merge our hook entries into the agent's settings file (every hook you already have is kept; a second
    install changes nothing)."""
    from aac.hooks.settings import plan_install

    a = _agent(agent)
    try:
        path = a.settings_path(scope, project.resolve())
        change = plan_install(a, path, prompts=prompts)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None
    _report(change, dry_run, "install")
    if not dry_run and scope != "user":
        _warm(project.resolve())
    if not dry_run and change.changed and a.name == "codex":
        typer.echo("Codex runs hooks only with `[features] codex_hooks = true` in ~/.codex/config.toml.", err=True)


def _warm(root: Path) -> None:
    """Type the project's instruction files into the cache now, so the first compaction is answered warm."""
    from aac.hooks.project import instruction_files, load_items, rules_of

    files = instruction_files(root)
    rules = rules_of(load_items(root, files))
    typer.echo(f"{len(files)} instruction file(s), {len(rules)} constraint(s) ready in the cache", err=True)


@hook_app.command("uninstall")
def uninstall(agent: str = AgentArg, scope: str = ScopeOpt, project: Path = ProjectOpt,
              dry_run: bool = typer.Option(False, "--dry-run", help="Print the diff; change nothing.")) -> None:
    """Remove our hook entries from the agent's settings file, and nothing else."""
    from aac.hooks.settings import plan_uninstall

    a = _agent(agent)
    try:
        change = plan_uninstall(a, a.settings_path(scope, project.resolve()))
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None
    _report(change, dry_run, "uninstall")


@hook_app.command("run")
def run(agent: str = typer.Option(..., "--agent", help="claude-code | codex | gemini | cursor"),
        max_chars: int = typer.Option(9000, "--max-chars", min=200, max=10000,
                                      help="Budget of the injected block in characters."),
        prompts: bool = typer.Option(False, "--prompts", help="Answer prompts with relevant rules (opt-in).")) -> None:
    """Answer one hook event read on stdin (what the installed entries call; always exits 0)."""
    from aac.hooks.run import run_stdio

    raise typer.Exit(run_stdio(agent, max_chars, prompts))


def register(app: typer.Typer, eval_app: typer.Typer) -> None:
    app.add_typer(hook_app, name="hook")
