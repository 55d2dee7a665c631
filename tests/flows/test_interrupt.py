"""Ctrl-C during a flow started from the CLI exits at once with status 130 and stops the process's children."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from aac.flows.interrupt import exit_at_once_on_interrupt

SCRIPT = """
import subprocess, sys, time
from aac.flows.interrupt import exit_at_once_on_interrupt
with exit_at_once_on_interrupt("retype"):
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    print(child.pid, flush=True)
    time.sleep(60)
"""


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="children are found through /proc")
def test_sigint_in_the_block_exits_130_at_once_and_stops_the_children():
    p = subprocess.Popen([sys.executable, "-c", SCRIPT], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    child = int(p.stdout.readline())
    t0 = time.monotonic()
    p.send_signal(signal.SIGINT)
    assert p.wait(timeout=10) == 130 and time.monotonic() - t0 < 5
    assert "interrupted: retype stopped" in p.stderr.read()
    for _ in range(50):  # the child got SIGTERM
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        os.kill(child, signal.SIGKILL)
        pytest.fail("the child process was not stopped")


def test_the_previous_handler_is_restored_after_the_block():
    before = signal.getsignal(signal.SIGINT)
    with exit_at_once_on_interrupt("x"):
        assert signal.getsignal(signal.SIGINT) is not before
    assert signal.getsignal(signal.SIGINT) is before
