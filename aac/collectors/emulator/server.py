"""The HTTP layer: a ThreadingHTTPServer on 127.0.0.1 that hands every request to :class:`EmulatorApi`."""

from __future__ import annotations

import threading
from collections.abc import Iterable
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from ..clock import Clock, VirtualClock
from .api import EmulatorApi
from .profiles import Profile, get_profile
from .snapshot import load_snapshot


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: PyGithub reuses one connection
    server_version = "GitHubEmulator/1.0"
    sys_version = ""

    def _serve(self, method: str) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        host = self.headers.get("Host") or f"{self.server.server_address[0]}:{self.server.server_address[1]}"
        api: EmulatorApi = self.server.api  # type: ignore[attr-defined]
        resp = api.handle(method, self.path, self.headers, body, f"http://{host}")
        self.send_response(resp.status)
        for k, v in resp.headers.items():
            self.send_header(k, v)
        payload = b"" if resp.status == 304 or method == "HEAD" else resp.body
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        if payload:
            self.wfile.write(payload)

    def do_GET(self) -> None:  # noqa: N802 (http.server naming)
        self._serve("GET")

    def do_POST(self) -> None:  # noqa: N802
        self._serve("POST")

    def date_time_string(self, timestamp: float | None = None) -> str:
        """The Date header follows the emulator's clock, so ``reset - Date`` is the right wait on a virtual clock."""
        return formatdate(self.server.api.clock.now() if timestamp is None else timestamp, usegmt=True)  # type: ignore[attr-defined]

    def log_message(self, format: str, *args) -> None:  # quiet; and request lines must never reach logs with tokens
        pass


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


class EmulatorServer:
    """An emulated GitHub REST API over a snapshot. ``clock=None`` gives a :class:`VirtualClock`, so rate-limit
    waits cost no real time (clients in other processes advance it with ``POST /_emulator/clock/advance``)."""

    def __init__(self, snapshot: str | Path | Iterable[dict], profile: str | Profile = "github", seed: int = 0,
                 clock: Clock | None = None, host: str = "127.0.0.1", port: int = 0):
        self.profile = get_profile(profile)
        self.clock: Clock = clock if clock is not None else VirtualClock()
        self.api = EmulatorApi(load_snapshot(snapshot), self.profile, seed, self.clock)
        self.host, self.port = host, port
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> EmulatorServer:
        if self._httpd is not None:
            return self
        httpd = _HTTPServer((self.host, self.port), _Handler)
        httpd.api = self.api  # type: ignore[attr-defined]
        self._httpd = httpd
        self.port = httpd.server_address[1]
        self._thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.1},
                                        name=f"github-emulator:{self.port}", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        httpd, self._httpd = self._httpd, None
        if httpd is not None:
            httpd.shutdown()
            httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> EmulatorServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def load_snapshot(self, snapshot: str | Path | Iterable[dict]) -> None:
        """Swap the served data (e.g. between two crawls in a refresh test); rate-limit state is kept."""
        self.api.load(load_snapshot(snapshot))

    @property
    def stats(self) -> dict:
        return self.api.stats()
