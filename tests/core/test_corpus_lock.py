"""One writer per corpus (issue 27 items 7 and 8): the lock every writing command takes, and the temp folders of
killed runs removed at the next run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from aac.cli import app
from aac.hub.publish import build_hub_folder
from aac.core.store import Corpus

REPO_ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO_ROOT / "tests" / "hub"))
import hub_corpus_factory as fx  # noqa: E402


def _python(code: str) -> subprocess.Popen:
    """A child Python that prints one line when it is ready, then waits (killed by the test)."""
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT))
    proc = subprocess.Popen([sys.executable, "-c", textwrap.dedent(code)], stdout=subprocess.PIPE, text=True, env=env)
    line = proc.stdout.readline()
    assert line.strip() == "ready", line
    return proc


def _hold_lock(root: Path) -> subprocess.Popen:
    """Another process holding the corpus's lock the documented way: flock on <corpus>/.aac.lock + its pid."""
    return _python(f"""
        import fcntl, json, os, sys, time
        f = open({str(root / '.aac.lock')!r}, "a+")
        fcntl.flock(f, fcntl.LOCK_EX)
        f.seek(0); f.truncate(); f.write(json.dumps({{"pid": os.getpid(), "command": "aac process"}})); f.flush()
        print("ready", flush=True)
        time.sleep(120)
    """)


@pytest.fixture
def holder(tmp_path):
    procs = []

    def start(root: Path) -> subprocess.Popen:
        root.mkdir(parents=True, exist_ok=True)
        procs.append(_hold_lock(root))
        return procs[-1]

    yield start
    for p in procs:
        p.kill()
        p.wait()


def _one_line(output: str) -> str:
    return " ".join(output.split())


def test_every_writing_command_refuses_a_corpus_another_process_writes_naming_its_pid(tmp_path, holder, monkeypatch):
    monkeypatch.setenv("AAC_LOCK_WAIT", "0.3")
    corpus = fx.build(Corpus(tmp_path / "c"))
    checkout = tmp_path / "src" / "app"
    checkout.mkdir(parents=True)
    (checkout / "CLAUDE.md").write_text("- run the tests\n")
    incoming = fx.build(Corpus(tmp_path / "incoming"))
    release = tmp_path / "release"
    build_hub_folder(incoming, release, validate=False)
    before = {t: sorted(p.name for p in corpus.part_files(t)) for t in corpus.tables()}
    proc = holder(corpus.root)
    runner = CliRunner()
    commands = {
        "process": ["process", "--corpus", str(corpus.root)],
        "crawl --local": ["crawl", "--local", str(tmp_path / "src"), "--corpus", str(corpus.root)],
        "refresh": ["refresh", "--corpus", str(corpus.root), "--incoming", str(incoming.root), "--no-process"],
        "classify --corpus": ["classify", "--corpus", str(corpus.root), "--classifier", "regex"],
        "publish": ["publish", "--corpus", str(corpus.root), "--out", str(tmp_path / "hub"), "--dry-run"],
        "pull": ["pull", "--from-folder", str(release), "--corpus", str(corpus.root), "--force"],
    }
    for name, args in commands.items():
        res = runner.invoke(app, args)
        text = _one_line(res.output + (str(res.exception) if res.exception else ""))
        assert res.exit_code != 0, (name, text)
        assert f"in use by pid {proc.pid}" in text and "aac process" in text, (name, text)
    from aac.annotation.store import save
    from aac.core.corpus_lock import CorpusLocked

    with pytest.raises(CorpusLocked, match=f"pid {proc.pid}"):  # labels too (`aac annotate import-*`, adjudicate)
        save(corpus, [{"item_id": "x", "annotator": "A", "label": "C", "round": 1}])
    assert {t: sorted(p.name for p in corpus.part_files(t)) for t in corpus.tables()} == before  # nothing written
    assert not (tmp_path / "hub").exists()


def test_the_cli_says_it_in_one_error_line_with_exit_2(tmp_path, holder):
    corpus = fx.build(Corpus(tmp_path / "c"))
    proc = holder(corpus.root)
    res = subprocess.run([sys.executable, "-m", "aac", "process", "--corpus", str(corpus.root)], capture_output=True,
                         text=True, env=dict(os.environ, AAC_LOCK_WAIT="0.2", PYTHONPATH=str(REPO_ROOT)))
    assert res.returncode == 2 and "Traceback" not in res.stderr
    last = res.stderr.strip().splitlines()[-1]  # after the one warning that it waits
    assert last.startswith("error:") and f"in use by pid {proc.pid}" in last


def test_a_waiting_writer_takes_the_lock_when_the_holder_ends(tmp_path, holder):
    from aac.core.corpus_lock import corpus_lock, holder as lock_holder

    proc = holder(tmp_path / "c")
    started = time.monotonic()
    proc.kill()  # the kernel releases a dead holder's lock: nothing to clean up by hand
    proc.wait()
    with corpus_lock(tmp_path / "c", "test", wait_s=5):
        assert lock_holder(tmp_path / "c")["pid"] == os.getpid()
    assert time.monotonic() - started < 5
    assert (tmp_path / "c" / ".aac.lock").read_text() == ""  # released: says nobody holds it


def test_a_stale_lock_file_of_a_dead_pid_is_taken_over(tmp_path, caplog):
    from aac.core.corpus_lock import corpus_lock

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    pid = int(dead.stdout)
    (tmp_path / ".aac.lock").write_text(json.dumps({"pid": pid, "command": "aac process"}))
    with caplog.at_level("INFO"), corpus_lock(tmp_path, "aac process", wait_s=0):
        pass
    assert f"pid {pid}" in caplog.text and "no longer runs" in caplog.text


def test_the_lock_is_reentrant_within_a_process_so_a_refresh_can_run_processing(tmp_path):
    from aac.core.corpus_lock import corpus_lock, held_here

    with corpus_lock(tmp_path, "aac refresh", wait_s=0):
        with corpus_lock(tmp_path, "aac process", wait_s=0):
            assert held_here(tmp_path)
        assert held_here(tmp_path)
    assert not held_here(tmp_path)


def test_two_processes_started_together_both_wait_then_finish_with_the_tables_of_one_run(tmp_path):
    """The reported race (two `aac process` 1 s apart corrupt each other): each waits for the lock instead."""
    from aac.collectors.emulator import generate_snapshot
    from aac.core.corpus_lock import corpus_lock
    from aac.processing.records import load_records

    corpus = Corpus(tmp_path / "c")
    load_records(corpus, list(generate_snapshot(40, 3)))
    env = dict(os.environ, AAC_LOCK_WAIT="300", PYTHONPATH=str(REPO_ROOT))
    cmd = [sys.executable, "-m", "aac", "process", "--corpus", str(corpus.root)]
    logs = [tmp_path / "first.err", tmp_path / "second.err"]
    with corpus_lock(corpus.root, "the test", wait_s=0):  # both start while the corpus is busy
        procs = []
        for log in logs:
            procs.append(subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=log.open("w"), text=True))
            time.sleep(1)
        deadline = time.monotonic() + 120
        while not all("waiting up to" in log.read_text() for log in logs):
            assert time.monotonic() < deadline and all(p.poll() is None for p in procs), [l.read_text() for l in logs]
            time.sleep(0.2)
    outs = [p.communicate(timeout=300)[0] for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [l.read_text() for l in logs]
    assert all("artifacts 40" in " ".join(out.split()) for out in outs), outs
    assert corpus.count("artifacts") == 40 and corpus.count("raw_artifacts") == 40
    leftovers = [p.name for p in corpus.tables_dir.iterdir() if ".tmp-" in p.name or ".old-" in p.name]
    assert leftovers == []


def test_staging_folders_of_a_killed_writer_are_removed_by_the_next_run(tmp_path):
    """Issue 27 item 8: kill -9 during a table rewrite left corpus/items.tmp-<hex>/ behind for good."""
    corpus = fx.build(Corpus(tmp_path / "c"))
    n_items = corpus.count("items")
    writer = _python(f"""
        import time
        import pyarrow as pa
        from aac.core.store import Corpus
        c = Corpus({str(corpus.root)!r})
        def rows():
            yield c.read("items")
            print("ready", flush=True)  # the staging folder holds a part now
            time.sleep(120)
            yield c.read("items")
        c.replace("items", rows())
    """)
    writer.kill()  # kill -9
    writer.wait()
    assert [p.name for p in corpus.tables_dir.glob("items.tmp-*")]  # what the kill left
    live = _python("import time\nprint('ready', flush=True)\ntime.sleep(120)")  # a live writer's temp stays
    try:
        mine = corpus.tables_dir / f"repos.tmp-{live.pid}-0a1b"
        mine.mkdir()
        res = CliRunner().invoke(app, ["publish", "--corpus", str(corpus.root), "--out", str(tmp_path / "hub"),
                                       "--dry-run"])  # any writing command is the next run
        assert res.exit_code == 0, res.output
        assert not list(corpus.tables_dir.glob("items.tmp-*"))
        assert mine.is_dir()
    finally:
        live.kill()
        live.wait()
    assert corpus.count("items") == n_items  # the table itself is whole
