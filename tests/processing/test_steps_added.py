"""A row step added to the step list re-runs the stored rows on the next ``aac process``, without ``--full``."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from aac.cli import app
from aac.core.store import Corpus
from aac.processing import steps
from aac.processing.pipeline import processing_outdated
from aac.processing.records import load_records

from tests.processing.placeholder_step import DropPlaceholders

RECORDS = [
    {"repo": "o/a", "path": "CLAUDE.md", "content": "# Rules\n- Run `make test` before pushing.\n", "license_spdx": "MIT"},
    {"repo": "o/b", "path": "AGENTS.md", "content": "# Agents\n\nTODO\n", "license_spdx": "MIT"},
    {"repo": "o/c", "path": ".cursorrules", "content": "- Prefer small pure functions.\n", "license_spdx": "MIT"},
]


@pytest.fixture
def step_list(monkeypatch):
    """The step list as shipped, restored after the test whatever it registers."""
    monkeypatch.setattr(steps, "ROW_STEPS", list(steps.ROW_STEPS))
    return steps


def _process(corpus: Corpus) -> str:
    out = CliRunner().invoke(app, ["process", "--corpus", str(corpus.root)])
    assert out.exit_code == 0, out.output
    return out.output


def _statuses(corpus: Corpus) -> dict[str, tuple[str, str | None]]:
    return {r["repo"]: (r["status"], r["drop_reason"]) for r in corpus.read("artifacts").to_pylist()}


def test_a_registered_row_step_reruns_the_stored_rows_on_the_next_process(tmp_path, step_list):
    corpus = Corpus(tmp_path / "c")
    load_records(corpus, RECORDS)
    _process(corpus)
    assert "pass 1 ran on 0 artifacts (3 unchanged, reused)" in _process(corpus)  # stored rows are reused
    assert _statuses(corpus)["o/b"] == ("kept", None)

    step_list.register_row_step(DropPlaceholders, before="content_hash")  # the one registration line

    assert processing_outdated(corpus)  # a refresh that finds no upstream change still processes
    out = _process(corpus)  # no --full
    assert "pass 1 ran on 3 artifacts (0 unchanged, reused)" in out
    assert "placeholder" in out and "reasons: placeholder 1" in out
    assert _statuses(corpus) == {"o/a": ("kept", None), "o/b": ("dropped", "placeholder"), "o/c": ("kept", None)}
    items = corpus.read("items", columns=["artifact_id"]).column("artifact_id").to_pylist()
    dropped_id = next(r["artifact_id"] for r in corpus.read("artifacts").to_pylist() if r["repo"] == "o/b")
    assert dropped_id not in items  # a dropped file has no items

    assert "pass 1 ran on 0 artifacts (3 unchanged, reused)" in _process(corpus)  # stable again
    assert not processing_outdated(corpus)


def test_the_step_counters_count_what_each_row_step_did(tmp_path, step_list):
    step_list.register_row_step(DropPlaceholders, before="content_hash")
    corpus = Corpus(tmp_path / "c")
    load_records(corpus, RECORDS + [{"repo": "o/d", "path": "CLAUDE.md", "content": "", "license_spdx": "MIT"}])
    from aac.processing.pipeline import run

    counts = {c.name: c for c in run(corpus).step_counts}
    assert [n for n in counts][:5] == ["platform", "normalize", "agent_file", "license", "tags"]
    assert (counts["normalize"].rows, counts["normalize"].dropped) == (4, 1)  # the empty file
    assert (counts["placeholder"].rows, counts["placeholder"].dropped, counts["placeholder"].errors) == (3, 1, 0)
    assert counts["minhash"].rows == 2 and counts["dedupe"].rows == 2 and counts["items"].rows == 2


def test_a_step_dropping_with_an_undeclared_reason_is_a_processing_error(tmp_path, step_list):
    class Sloppy(DropPlaceholders):
        name = "sloppy"
        reasons = ()

    step_list.register_row_step(Sloppy)
    corpus = Corpus(tmp_path / "c")
    load_records(corpus, RECORDS)
    from aac.processing.pipeline import run

    report = run(corpus)
    assert _statuses(corpus)["o/b"] == ("dropped", "processing_error")
    assert next(c for c in report.step_counts if c.name == "sloppy").errors == 1


def test_registering_checks_names(step_list):
    with pytest.raises(ValueError, match="registered already"):
        step_list.register_row_step(steps.ROW_STEPS[0])
    with pytest.raises(ValueError, match="no row step named 'nope'"):
        step_list.register_row_step(DropPlaceholders, before="nope")
