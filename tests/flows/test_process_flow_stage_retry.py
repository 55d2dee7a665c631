"""The ``process`` flow runs each processing stage as its own retried task: a stage that fails once is retried
alone (the stages before it ran once), and the tables equal those of an uninterrupted run."""

from __future__ import annotations

from collections import Counter

from aac.collectors.emulator import generate_snapshot
from aac.core.store import Corpus
from aac.processing.pipeline import ProcessConfig, ProcessStages, run
from aac.processing.records import load_records

TABLES = {"raw_artifacts": "artifact_id", "artifacts": "artifact_id", "items": "item_id",
          "process_stage": "artifact_id"}


def _tables(corpus: Corpus) -> dict[str, list[dict]]:
    return {name: corpus.read(name).sort_by(key).to_pylist() for name, key in TABLES.items()}


def _figures(report: dict) -> dict:
    """The report without its timings (rows, statuses, per-step counts)."""
    return {**{k: v for k, v in report.items() if k not in ("steps", "step_counts")},
            "steps": [(s["name"], s["rows"]) for s in report["steps"]],
            "step_counts": [(c["name"], c["rows"], c["dropped"], c["errors"]) for c in report["step_counts"]]}


def _items_fail_once(calls: Counter) -> ProcessStages:
    """The real stages, counted; the items stage raises on its first call (a worker lost, a disk hiccup)."""
    def counted(name, stage):
        def call(corpus, cfg, report):
            calls[name] += 1
            if name == "items" and calls[name] == 1:
                raise OSError("items: worker lost (injected once)")
            return stage(corpus, cfg, report)
        call.__name__ = name
        return call

    return ProcessStages(**{n: counted(n, s) for n, s in ProcessStages().in_order(ProcessConfig())})


def test_a_stage_that_fails_once_is_retried_alone_and_the_tables_equal_a_clean_run(tmp_path, monkeypatch):
    from prefect import flow
    from prefect.testing.utilities import prefect_test_harness

    from aac.flows.process import process_with, stage_tasks
    from aac.jobs.process import ProcessOptions

    records = list(generate_snapshot(60, 4))
    clean, flaky = Corpus(tmp_path / "clean"), Corpus(tmp_path / "flaky")
    load_records(clean, records)
    load_records(flaky, records)
    expected = run(clean).to_dict()

    calls: Counter = Counter()

    @flow(name="process-items-fail-once")
    def process_items_fail_once(corpus: str) -> dict:
        return process_with(ProcessOptions(corpus), stage_tasks(_items_fail_once(calls), retries=1,
                                                                retry_delay_seconds=(0,)))

    monkeypatch.setenv("PREFECT_HOME", str(tmp_path / "prefect-home"))
    with prefect_test_harness(server_startup_timeout=120):
        out = process_items_fail_once(str(flaky.root))
    assert calls == {"stage_raw": 1, "pass1": 1, "corpus_steps": 1, "write_artifacts": 1, "items": 2, "record": 1}
    assert _figures(out) == _figures(expected)  # the retry counted nothing twice
    assert _tables(flaky) == _tables(clean)
