"""Run the README's Prefect lines, exactly as written, against a real local Prefect server (CI, `.ci/run`).

The block is read from README.md (the ```bash block after "Scheduled with Prefect"), so the README cannot drift
from what works. In a copy of the project (tracked files only) with a small corpus in `data/` made by `aac demo`,
each line runs in order in bash; the two long-running ones (`prefect server start`, `prefect worker start`) run in
the background like a user's other terminals, and are stopped by their process group id at the end. The only
changes to the lines: the server's port is a free one instead of 4200 (PREFECT_SERVER_API_PORT for the server, the
port in PREFECT_API_URL), and PREFECT_HOME is a temporary folder. Loopback only. Exit 0 when the manual run
completed and wrote the Hub folder.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LONG_RUNNING = ("prefect server start", "prefect worker start")


def readme_block() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index("Scheduled with Prefect")
    block = re.search(r"```bash\n(.*?)```", text[start:], re.S)
    if block is None:
        sys.exit("README: no ```bash block after 'Scheduled with Prefect'")
    return [ln for ln in block.group(1).splitlines() if ln.strip() and not ln.lstrip().startswith("#")]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_healthy(url: str, proc: subprocess.Popen, log: Path, timeout: float = 180) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            sys.exit(f"prefect server exited ({proc.returncode}):\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(f"{url}/health", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        time.sleep(1)
    sys.exit(f"prefect server not healthy after {timeout:.0f} s:\n{log.read_text()[-3000:]}")


def stop(proc: subprocess.Popen) -> None:
    """Stop one background line and its children (its own process group), by its pid."""
    if proc.poll() is not None:
        return
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)


def copy_project(dest: Path) -> None:
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    for rel in filter(None, files.decode().split("\0")):
        src = ROOT / rel
        if src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            (dest / rel).write_bytes(src.read_bytes())


def main() -> int:
    lines = readme_block()
    port = free_port()
    work = Path(tempfile.mkdtemp(prefix="aac-ci-prefect-"))
    project = work / "project"
    project.mkdir()
    copy_project(project)
    env = dict(os.environ, PREFECT_HOME=str(work / "prefect-home"), PREFECT_SERVER_API_PORT=str(port),
               DO_NOT_TRACK="1", PREFECT_SERVER_ANALYTICS_ENABLED="false",
               # the harness's server schedules nothing: on Mondays at 03:00 UTC refresh-corpus's cron would add a
               # real (network) refresh to what the README's worker runs
               PREFECT_SERVER_SERVICES_SCHEDULER_ENABLED="false")
    env.pop("PREFECT_API_URL", None)
    background: list[subprocess.Popen] = []
    try:
        print(f"[prefect-readme] small corpus in {project}/data (aac demo --files 40)", flush=True)
        subprocess.run(["aac", "demo", "--files", "40", "--seed", "1", "--corpus", "data"], cwd=project, env=env,
                       check=True, stdout=subprocess.DEVNULL, timeout=600)
        for line in lines:
            line = line.replace("127.0.0.1:4200", f"127.0.0.1:{port}")
            print(f"[prefect-readme] $ {line}", flush=True)
            export = re.match(r"export (\w+)=(\S+)", line)
            if export:
                env[export.group(1)] = export.group(2)
                continue
            if any(cmd in line for cmd in LONG_RUNNING):
                log = work / f"background-{len(background)}.log"
                proc = subprocess.Popen(["bash", "-c", line], cwd=project, env=env, stdout=log.open("w"),
                                        stderr=subprocess.STDOUT, start_new_session=True)
                background.append(proc)
                if "prefect server start" in line:
                    wait_healthy(f"http://127.0.0.1:{port}/api", proc, log)
                else:
                    time.sleep(5)
                    if proc.poll() is not None:
                        sys.exit(f"`{line}` exited ({proc.returncode}):\n{log.read_text()[-3000:]}")
                continue
            res = subprocess.run(["bash", "-c", line], cwd=project, env=env, capture_output=True, text=True,
                                 timeout=600)
            print(res.stdout[-2000:], res.stderr[-2000:], sep="\n", flush=True)
            if res.returncode != 0:
                sys.exit(f"README line failed ({res.returncode}): {line}")
        shards = sorted((project / "hub" / "data" / "artifacts").glob("*.parquet"))
        if not shards:
            sys.exit("the manual run completed but wrote no hub/data/artifacts/*.parquet")
        print(f"[prefect-readme] ok: {len(lines)} README lines, hub/ written ({len(shards)} artifact shards)")
        return 0
    finally:
        for proc in reversed(background):
            stop(proc)
        subprocess.run(["rm", "-rf", str(work)], check=False)


if __name__ == "__main__":
    sys.exit(main())
