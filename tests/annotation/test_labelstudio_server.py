"""The annotation loop against a real Label Studio server (slow): AAC's labelling config and tasks go in through its
REST API, two annotators' labels are posted, its exports come back through `aac annotate import-ls`, and
`aac annotate agreement` / `adjudicate` / `export` run on them.

Needs a Label Studio executable: ``AAC_LABEL_STUDIO_BIN`` (as .ci/run sets it, from its own venv: Label Studio pins
Django and friends, so it never goes into the project's dependencies) or ``label-studio`` on PATH. The server runs on
127.0.0.1 on a free port with a temporary data folder and is stopped by its PID.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from typer.testing import CliRunner

from aac.cli import app
from aac.processing.pipeline import ProcessConfig, run
from aac.processing.records import load_records
from aac.core.store import Corpus

pytestmark = pytest.mark.slow
runner = CliRunner()
START_TIMEOUT = float(os.environ.get("AAC_LABEL_STUDIO_START_TIMEOUT", "420"))  # first start migrates its database
TOKEN = "aac-ci-legacy-token-0123456789"

# Two small files written for this test: six items, and what annotators A and B say of each (they differ on one).
RECORDS = [
    {"repo": "o/r1", "path": "AGENTS.md", "platform": "universal", "license_spdx": "MIT",
     "content": "# Rules\n\n- Never commit secrets to the repository.\n- Run `make test` before every push.\n"},
    {"repo": "o/r2", "path": "CLAUDE.md", "platform": "claude", "license_spdx": "MIT",
     "content": "# Notes\n\n- The API server lives in `src/api`.\n- Prefer small, focused commits.\n"
                "- Last week we migrated the database to Postgres 16.\n- Use tabs, not spaces.\n"},
]
LABELS = {  # text -> (A, B)
    "Never commit secrets to the repository.": ("C", "C"),
    "Run `make test` before every push.": ("C", "P"),
    "The API server lives in `src/api`.": ("B", "B"),
    "Prefer small, focused commits.": ("F", "F"),
    "Last week we migrated the database to Postgres 16.": ("E", "E"),
    "Use tabs, not spaces.": ("F", "F"),
}
# Worked by hand: agreement 5/6; five-class p_e = (2*1 + 1*1 + 2*2 + 1*1) / 36 = 8/36 -> kappa 22/28 = 0.786;
# C-vs-other p_e = (2*1 + 4*5) / 36 = 22/36 -> kappa 8/14 = 0.571.


def _executable() -> str | None:
    given = os.environ.get("AAC_LABEL_STUDIO_BIN")
    if given:
        return given if Path(given).is_file() and os.access(given, os.X_OK) else None
    return shutil.which("label-studio")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """A Label Studio on 127.0.0.1 with an admin whose legacy API token is ``TOKEN``."""

    def __init__(self, exe: str, data: Path):
        self.port = _free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = data / "server.log"
        env = {**os.environ, "LABEL_STUDIO_BASE_DATA_DIR": str(data), "COLLECT_ANALYTICS": "false",
               "SENTRY_DSN": "", "FRONTEND_SENTRY_DSN": ""}
        with open(self.log, "w") as log:
            self.proc = subprocess.Popen(
                [exe, "start", "--no-browser", "--data-dir", str(data), "--internal-host", "127.0.0.1",
                 "--port", str(self.port), "--username", "admin@aac.test", "--password", "aac-test-pass",
                 "--user-token", TOKEN, "--enable-legacy-api-token"],
                stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)

    def wait_up(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"Label Studio exited with {self.proc.returncode}: {self.log.read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(self.base + "/health", timeout=5) as r:
                    if r.status == 200:
                        return
            except (urllib.error.URLError, OSError):
                pass
            time.sleep(1)
        raise RuntimeError(f"Label Studio not up after {START_TIMEOUT:.0f} s: {self.log.read_text()[-2000:]}")

    def call(self, method: str, path: str, body=None, raw: bool = False):
        req = urllib.request.Request(self.base + path, method=method,
                                     data=None if body is None else json.dumps(body).encode(),
                                     headers={"Authorization": f"Token {TOKEN}", "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                data = r.read()
        except urllib.error.HTTPError as exc:
            raise AssertionError(f"{method} {path}: HTTP {exc.code}: {exc.read()[:1000]!r}") from None
        return data if raw else json.loads(data or b"null")

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.kill(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=30)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    exe = _executable()
    if exe is None:
        pytest.skip("no Label Studio server executable: set AAC_LABEL_STUDIO_BIN or put label-studio on PATH "
                    "(pip install label-studio==1.23.2 into a venv of its own, as .ci/run does)")
    srv = Server(exe, tmp_path_factory.mktemp("label-studio"))
    try:
        srv.wait_up()
        yield srv
    finally:
        srv.stop()


def _result(label: str, meta: bool = False, leans_c: bool = False) -> list[dict]:
    out = [{"from_name": "type", "to_name": "text", "type": "choices", "value": {"choices": [label]}}]
    if meta:
        out.append({"from_name": "meta", "to_name": "text", "type": "choices", "value": {"choices": ["meta"]}})
    if leans_c:
        out.append({"from_name": "unsure", "to_name": "text", "type": "choices", "value": {"choices": ["leans C"]}})
    return out


def _snapshot(srv: Server, project: int) -> bytes:
    """An export snapshot whose annotations name their annotator by e-mail, not by numeric user id."""
    snap = srv.call("POST", f"/api/projects/{project}/exports/",
                    {"title": "aac", "serialization_options": {"annotations__completed_by": {"only_id": False}}})
    for _ in range(120):
        if srv.call("GET", f"/api/projects/{project}/exports/{snap['id']}")["status"] == "completed":
            break
        time.sleep(0.5)
    return srv.call("GET", f"/api/projects/{project}/exports/{snap['id']}/download?exportType=JSON", raw=True)


def test_round_trip_through_a_real_label_studio(server, tmp_path):
    corpus = tmp_path / "corpus"
    load_records(Corpus(corpus), RECORDS)
    run(Corpus(corpus), ProcessConfig())
    out = tmp_path / "round"
    res = runner.invoke(app, ["annotate", "sample", "--corpus", str(corpus), "--repos", "2", "--items", "100",
                              "--out", str(out)])
    assert res.exit_code == 0, res.output
    tasks = json.loads((out / "tasks.json").read_text(encoding="utf-8"))
    assert sorted(t["data"]["text"] for t in tasks) == sorted(LABELS)

    # AAC's labelling config is accepted as it is, and its tasks are imported whole
    project = server.call("POST", "/api/projects", {"title": "AAC round",
                                                   "label_config": (out / "label_config.xml").read_text()})
    assert server.call("POST", f"/api/projects/{project['id']}/import", tasks)["task_count"] == len(LABELS)
    b = server.call("POST", "/api/users/", {"email": "b@aac.test", "username": "b", "password": "aac-test-pass"})
    listed = server.call("GET", f"/api/tasks?project={project['id']}&page_size=100")["tasks"]
    assert len(listed) == len(LABELS)
    for task in listed:
        la, lb = LABELS[task["data"]["text"]]
        server.call("POST", f"/api/tasks/{task['id']}/annotations/", {"result": _result(la)})  # the admin is A
        server.call("POST", f"/api/tasks/{task['id']}/annotations/",
                    {"result": _result(lb, meta=la == "B", leans_c=la != lb), "completed_by": b["id"]})

    plain = tmp_path / "export.json"
    plain.write_bytes(server.call("GET", f"/api/projects/{project['id']}/export?exportType=JSON", raw=True))
    minimal = tmp_path / "export-min.json"
    minimal.write_bytes(server.call("GET", f"/api/projects/{project['id']}/export?exportType=JSON_MIN", raw=True))
    users = tmp_path / "users.json"
    users.write_bytes(server.call("GET", "/api/users/", raw=True))
    snapshot = tmp_path / "snapshot.json"
    snapshot.write_bytes(_snapshot(server, project["id"]))

    from aac.annotation.labelstudio import import_export, read_users

    # the plain export names annotators by numeric user id: said so, and named through the server's user list
    bare_rows, notes = import_export(plain)
    assert {r["annotator"] for r in bare_rows} == {"label-studio:1", f"label-studio:{b['id']}"}
    assert any("user id" in n for n in notes)
    want = {(t, who, lab) for t, (la, lb) in LABELS.items() for who, lab in (("admin@aac.test", la),
                                                                              ("b@aac.test", lb))}
    for path in (plain, minimal, snapshot):
        rows, problems = import_export(path, users=read_users(users))
        assert problems == [], (path.name, problems)
        assert {(r["text"], r["annotator"], r["label"]) for r in rows} == want, path.name
        assert {r["text"] for r in rows if r["meta"]} == {"The API server lives in `src/api`."}
        assert {(r["text"], r["annotator"]) for r in rows if r["leans_c"]} == {
            ("Run `make test` before every push.", "b@aac.test")}  # B's hesitation towards C, through the server
        assert {r["item_id"] for r in rows} == {t["data"]["item_id"] for t in tasks}

    res = runner.invoke(app, ["annotate", "import-ls", str(plain), "--users", str(users), "--corpus", str(corpus)])
    assert res.exit_code == 0, res.output
    assert "imported 12 annotations from 2 annotators" in res.output
    res = runner.invoke(app, ["annotate", "agreement", "--corpus", str(corpus)])
    assert res.exit_code == 0, res.output
    assert "admin@aac.test vs b@aac.test: n=6 observed=0.833 kappa five-class=0.786 kappa C-vs-other=0.571" \
        in " ".join(res.output.split())

    res = runner.invoke(app, ["annotate", "queue", "--corpus", str(corpus)])
    queued = [json.loads(line) for line in res.stdout.splitlines() if line.startswith("{")]
    assert [q["text"] for q in queued] == ["Run `make test` before every push."]
    res = runner.invoke(app, ["annotate", "adjudicate", queued[0]["item_id"], "P", "--corpus", str(corpus)])
    assert res.exit_code == 0, res.output
    gold = tmp_path / "gold.jsonl"
    res = runner.invoke(app, ["annotate", "export", "--out", str(gold), "--corpus", str(corpus)])
    assert res.exit_code == 0, res.output
    rows = {r["text"]: r for r in map(json.loads, gold.read_text(encoding="utf-8").splitlines())}
    assert {t: r["label"] for t, r in rows.items()} == {t: (la if la == lb else "P") for t, (la, lb) in LABELS.items()}
    assert rows["Run `make test` before every push."]["provenance"] == "adjudicated"
    assert rows["Never commit secrets to the repository."]["annotators"] == ["admin@aac.test", "b@aac.test"]
