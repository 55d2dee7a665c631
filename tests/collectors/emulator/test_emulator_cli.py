"""`aac emulator serve|generate` as the yardstick runs them: a subprocess that answers /rate_limit and exits
cleanly on SIGTERM; generate writes a loadable snapshot."""

import json
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

from aac.collectors.emulator import load_snapshot


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_serve_answers_rate_limit_and_stops_on_sigterm(sample_path):
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "aac", "emulator", "serve", "--snapshot", str(sample_path),
                             "--port", str(port), "--profile", "github", "--seed", "3"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        body = None
        deadline = time.monotonic() + 60  # a loaded 2-core machine can take long to start the interpreter
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/rate_limit", timeout=2) as r:
                    body, clock = json.load(r), r.headers["X-Emulator-Clock"]
                break
            except (urllib.error.URLError, ConnectionError):
                time.sleep(0.1)
        assert body is not None, f"emulator never answered: {proc.stderr.read() if proc.poll() is not None else ''}"
        assert body["resources"]["search"]["limit"] == 10 and clock == "virtual"
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0
    assert out.strip() == f"http://127.0.0.1:{port}"
    assert "emulator stopped" in err


def test_serve_reports_a_bad_snapshot_line_and_exits_2(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"repo": "o/r", "path": "A.md", "content": "x"}\n{"repo": "o/r"}\n')
    p = subprocess.run([sys.executable, "-m", "aac", "emulator", "serve", "--snapshot", str(bad), "--port", "0"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and f"{bad}:2" in p.stderr and "missing required field" in p.stderr


def test_generate_writes_a_loadable_deterministic_snapshot(tmp_path):
    outs = []
    for name in ("a.jsonl", "b.jsonl"):
        out = tmp_path / name
        subprocess.run([sys.executable, "-m", "aac", "emulator", "generate", "--files", "300", "--seed", "5",
                        "--out", str(out)], check=True, capture_output=True, timeout=60)
        outs.append(out.read_bytes())
    assert outs[0] == outs[1]
    assert len(load_snapshot(tmp_path / "a.jsonl")) == 300
