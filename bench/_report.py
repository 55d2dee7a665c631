"""What every bench script shares: a ``--write-docs`` flag that puts what the run printed into docs/benchmarks.md.

Figures written by hand drift from the code that measured them; here the script writes its own section, between
``<!-- bench:NAME -->`` and ``<!-- /bench:NAME -->`` (NAME = the script's file name), with the command it ran, the
date, the revision and the machine facts taken at start (cores, load average, Python), then the lines it printed.
Sections of other scripts are left as they are. A script opts in with two lines:

    add_write_docs_flag(parser)          # in main(), beside its other options
    run_with_docs(main)                  # under ``if __name__ == "__main__":``

A mode of a script that measures something else (``bench/refresh.py --crawl``) calls ``name_section`` so that its
figures get a section of their own instead of replacing the other modes'.
"""

from __future__ import annotations

import argparse
import io
import os
import platform
import re
import shlex
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs" / "benchmarks.md"
# new sections go just before this line when the page has it (so hand-kept parts can stay last), else at the end
END_ANCHOR = "<!-- bench:end -->"
FLAG = "--write-docs"

_requested = False
_section: str | None = None


class _WriteDocs(argparse.Action):
    """Records that the run was asked to write its section (argparse also accepts an abbreviation of the flag)."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        global _requested
        _requested = True
        setattr(namespace, self.dest, True)


def add_write_docs_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(FLAG, nargs=0, action=_WriteDocs, default=False,
                        help=f"replace this script's section of {DOCS.relative_to(REPO)} with this run's output")


def name_section(name: str) -> None:
    """Write this run under ``name`` instead of the script's name (a mode whose figures deserve their own section)."""
    global _section
    _markers(name)
    _section = name


def _markers(name: str) -> tuple[str, str]:
    if not re.fullmatch(r"[A-Za-z0-9_.-]+", name):
        raise ValueError(f"section name {name!r}: letters, digits, '_', '.', '-' only")
    return f"<!-- bench:{name} -->", f"<!-- /bench:{name} -->"


def replace_section(page: str, name: str, body: str) -> str:
    """``page`` with the section ``name`` holding ``body``: replaced in place if present, else added before
    END_ANCHOR (or at the end). Everything outside that section is kept byte for byte."""
    start, end = _markers(name)
    block = f"{start}\n{body.strip()}\n{end}"
    i = page.find(start)
    if i >= 0:
        j = page.find(end, i)
        if j < 0:
            raise ValueError(f"{start} has no closing {end}")
        return page[:i] + block + page[j + len(end):]
    k = page.find(END_ANCHOR)
    if k >= 0:
        return page[:k] + block + "\n\n" + page[k:]
    return (page.rstrip("\n") + "\n\n" if page.strip() else "") + block + "\n"


def machine_facts() -> dict[str, str]:
    """What a reader needs to weigh the figures: cores, load at start, CPU model, Python, revision."""
    one, five, fifteen = os.getloadavg()
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "cores": f"{os.cpu_count()} ({len(os.sched_getaffinity(0))} usable)" if hasattr(os, "sched_getaffinity")
        else str(os.cpu_count()),
        "load average at start": f"{one:.2f} / {five:.2f} / {fifteen:.2f} (1 / 5 / 15 min)",
        "cpu": cpu,
        "python": platform.python_version(),
        "revision": revision(),
    }


def revision() -> str:
    """The commit the code was measured at, marked when the worktree had uncommitted changes."""
    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(REPO), *args], capture_output=True, text=True, check=True).stdout
    try:
        head = git("rev-parse", "--short=12", "HEAD").strip()
        dirty = bool(git("status", "--porcelain", "--untracked-files=no", "--", "aac", "bench").strip())
    except (OSError, subprocess.CalledProcessError):
        return "unknown (not a git checkout)"
    return head + (" + uncommitted changes in aac/ or bench/" if dirty else "")


def command_line(argv: list[str] | None = None) -> str:
    """The command as typed, with ``python`` for the interpreter's path and without the flag itself."""
    argv = list(sys.orig_argv if argv is None else argv)
    shown = ["python"] + [a for a in argv[1:] if not (FLAG.startswith(a) and a.startswith("--write"))]
    return shlex.join(shown)


def render(name: str, command: str, facts: dict[str, str], printed: str, seconds: float, when: str) -> str:
    lines = [f"### {name}", "", f"`{command}`", "", f"- run: {when}, {seconds:.0f} s"]
    lines += [f"- {key}: {value}" for key, value in facts.items()]
    lines += ["", "```text", printed.rstrip("\n"), "```"]
    return "\n".join(lines)


class _Tee(io.TextIOBase):
    """Writes through to the real stdout (the run stays visible) and keeps a copy."""

    def __init__(self, out) -> None:
        self.out, self.copy = out, io.StringIO()

    def write(self, s: str) -> int:
        self.copy.write(s)
        return self.out.write(s)

    def flush(self) -> None:
        self.out.flush()

    # what libraries ask of a console stream, answered by the real one
    def fileno(self) -> int:
        return self.out.fileno()

    def isatty(self) -> bool:
        return self.out.isatty()

    @property
    def encoding(self) -> str:
        return self.out.encoding


def run_with_docs(main: Callable[[], int | None], *, name: str | None = None, docs: Path = DOCS) -> None:
    """Run ``main``; when it parsed ``--write-docs`` and finished without error, write its section of ``docs``."""
    global _requested, _section
    _requested, _section = False, None
    facts, when, t0 = machine_facts(), time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), time.perf_counter()
    tee, real = _Tee(sys.stdout), sys.stdout
    sys.stdout = tee
    try:
        status = main()
    finally:
        sys.stdout = real
    if _requested and not status:
        name = _section or name or Path(sys.modules[main.__module__].__file__).stem
        page = docs.read_text(encoding="utf-8") if docs.exists() else ""
        body = render(name, command_line(), facts, tee.copy.getvalue(), time.perf_counter() - t0, when)
        docs.write_text(replace_section(page, name, body), encoding="utf-8")
        print(f"wrote section {name!r} of {docs}", file=sys.stderr)
    raise SystemExit(status)
