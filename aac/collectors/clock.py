"""Injectable clocks, shared by the GitHub client and the emulator.

Rate-limit windows are real time on GitHub, but in tests and the offline demo a crawl that would wait hours
must run in seconds. Everything that reads the time or sleeps takes a :class:`Clock`:

- :class:`RealClock`: wall time and ``time.sleep`` (real GitHub).
- :class:`VirtualClock`: time that only moves when someone sleeps (emulator and client in one process).
- A client talking to an emulator in another process whose responses carry ``X-Emulator-Clock: virtual``
  sleeps by ``POST /_emulator/clock/advance {"seconds": s}`` instead (see the collector's client).
"""

from __future__ import annotations

import threading
import time
from typing import Protocol


class Clock(Protocol):
    def now(self) -> float: ...

    def sleep(self, seconds: float) -> None: ...


class RealClock:
    def now(self) -> float:
        return time.time()

    def sleep(self, seconds: float) -> None:
        if seconds > 0:
            time.sleep(seconds)


class VirtualClock:
    """Starts at ``start`` (epoch seconds) and advances only through ``sleep``/``advance``; thread-safe."""

    def __init__(self, start: float = 1_767_225_600.0):  # 2026-01-01T00:00:00Z
        self._now = float(start)
        self._lock = threading.Lock()
        self.slept = 0.0

    def now(self) -> float:
        with self._lock:
            return self._now

    def advance(self, seconds: float) -> float:
        with self._lock:
            if seconds > 0:
                self._now += seconds
                self.slept += seconds
            return self._now

    def sleep(self, seconds: float) -> None:
        self.advance(seconds)
