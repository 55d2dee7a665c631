"""Ctrl-C during a flow started from the command line: stop at once, as a kill would.

Prefect catches the KeyboardInterrupt inside the flow and reports the run's state to its temporary server, which
the same Ctrl-C has already stopped: the command then hangs for about a minute of connection retries and ends in a
traceback. Every step a flow runs is written to survive a kill (parts are written whole and renamed into place; a
crawl, a refresh and a retype resume or redo what was not committed), so exiting at once loses nothing a kill
would not, and says so."""

from __future__ import annotations

import os
import signal
import sys
from contextlib import contextmanager
from pathlib import Path


def _child_pids() -> list[int]:
    """This process's children (Linux /proc; elsewhere none are known)."""
    me, out = str(os.getpid()), []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # gone meanwhile
        if fields[1] == me:
            out.append(int(stat.parent.name))
    return out


@contextmanager
def exit_at_once_on_interrupt(what: str):
    """Within the block, SIGINT stops this process's children (the temporary Prefect server) and exits with
    status 130 after one line naming ``what`` was interrupted; the previous handler is restored after."""

    def stop(signum, frame):
        sys.stderr.write(f"\ninterrupted: {what} stopped; what it committed stays, the next run redoes the rest\n")
        sys.stderr.flush()
        for pid in _child_pids():
            try:
                os.kill(pid, signal.SIGTERM)
            except OSError:
                pass
        os._exit(130)

    previous = signal.signal(signal.SIGINT, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
