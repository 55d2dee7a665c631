"""A processing run is a sequence of stages over what the earlier ones left on disk: a run that stops between two
stages leaves a corpus the next run (and a refresh) knows to finish, with tables equal to an uninterrupted run's."""

from __future__ import annotations

from dataclasses import replace

import pytest

from aac.collectors.emulator import generate_snapshot
from aac.core.store import Corpus
from aac.processing import item_record
from aac.processing.pipeline import ProcessConfig, ProcessStages, processing_outdated, run
from aac.processing.records import load_records
from aac.processing.stages import stage_dir

TABLES = {"raw_artifacts": "artifact_id", "artifacts": "artifact_id", "items": "item_id",
          "process_stage": "artifact_id"}


def tables(corpus: Corpus) -> dict[str, list[dict]]:
    return {name: corpus.read(name).sort_by(key).to_pylist() for name, key in TABLES.items()}


class Stopped(RuntimeError):
    """The run was cut here (a killed worker, a full disk)."""


def _stop(*_args):
    raise Stopped("cut before the items stage")


@pytest.fixture(scope="module")
def records():
    return list(generate_snapshot(60, 9))


def test_a_run_stopped_after_writing_artifacts_is_finished_by_the_next_run(tmp_path, records):
    clean = Corpus(tmp_path / "clean")
    load_records(clean, records)
    run(clean)

    cut = Corpus(tmp_path / "cut")
    load_records(cut, records)
    with pytest.raises(Stopped):
        run(cut, stages=replace(ProcessStages(), items=_stop))
    # artifacts are processed, items are not: the record says so, and the processing is not taken as done
    assert cut.count("artifacts") == len(records) and not cut.exists("items")
    assert item_record.unfinished(cut) and item_record.stored(cut) == {}
    assert processing_outdated(cut)  # a refresh that finds no upstream change still finishes the run
    assert stage_dir(cut).is_dir()  # the stages' shared folder outlives the cut run ...

    report = run(cut)
    assert not stage_dir(cut).exists()  # ... until the next run's lock clears it and its own record stage ends
    assert not item_record.unfinished(cut) and not processing_outdated(cut)
    assert report.items == clean.count("items")
    assert tables(cut) == tables(clean)


def test_each_stage_returns_a_new_report_and_leaves_the_one_it_was_given(tmp_path, records):
    c = Corpus(tmp_path / "c")
    load_records(c, records)
    seen = []

    def keep_inputs(name, stage):
        def call(corpus, cfg, report):
            before = report.to_dict()
            out = stage(corpus, cfg, report)
            seen.append(name)
            assert report.to_dict() == before and out is not report  # a retry of this stage counts nothing twice
            return out
        return call

    plain = ProcessStages()
    stages = ProcessStages(**{n: keep_inputs(n, s) for n, s in plain.in_order(ProcessConfig())})
    report = run(c, stages=stages)
    assert seen == ["stage_raw", "pass1", "corpus_steps", "write_artifacts", "items", "record"]
    assert [s.name.split(":")[0] for s in report.steps] == ["stage", "pass 1", "corpus steps", "write artifacts",
                                                           "items+classify"]
