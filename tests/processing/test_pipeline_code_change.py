"""A change of the processing code redoes the pass it affects on the next run, without ``--full``."""

from __future__ import annotations

from aac.collectors.emulator import generate_snapshot
from aac.processing import pipeline
from aac.processing.pipeline import ProcessConfig, load_records, processing_outdated, run
from aac.store import Corpus


def _processed(tmp_path, n=40, seed=9):
    corpus = Corpus(tmp_path)
    records = list(generate_snapshot(n, seed))
    load_records(corpus, records)
    first = run(corpus)
    assert first.processed == len(records)
    return corpus, records, first


def test_nothing_is_outdated_after_a_run_and_a_rerun_reuses_everything(tmp_path):
    corpus, records, first = _processed(tmp_path)
    assert not processing_outdated(corpus)
    again = run(corpus)
    assert again.processed == 0 and again.reused == len(records)
    assert again.items_reused == first.items_itemised and again.items_itemised == 0


def test_a_pass1_code_change_reruns_pass1_for_every_row(tmp_path, monkeypatch):
    corpus, records, first = _processed(tmp_path)
    items_before = corpus.read("items").sort_by("item_id").to_pylist()
    monkeypatch.setattr(pipeline, "stage_code", lambda: "changed-pass-1")
    assert processing_outdated(corpus)
    again = run(corpus)
    assert again.processed == len(records) and again.reused == 0
    assert again.items_reused == first.items_itemised  # segmentation code unchanged: items kept
    assert corpus.read("items").sort_by("item_id").to_pylist() == items_before
    assert not processing_outdated(corpus)


def test_a_segmentation_code_change_remakes_the_items_but_keeps_pass1(tmp_path, monkeypatch):
    corpus, records, first = _processed(tmp_path)
    monkeypatch.setattr(pipeline, "items_code", lambda: "changed-segmentation")
    assert processing_outdated(corpus)
    again = run(corpus)
    assert again.processed == 0 and again.reused == len(records)
    assert again.items_itemised == first.items_itemised and again.items_reused == 0
    assert not processing_outdated(corpus)


def test_a_run_without_items_keeps_the_recorded_segmentation_code(tmp_path):
    corpus, _, _ = _processed(tmp_path)
    run(corpus, ProcessConfig(items=False))
    assert not processing_outdated(corpus)


def test_a_corpus_processed_before_the_code_was_recorded_counts_as_outdated(tmp_path):
    corpus, _, _ = _processed(tmp_path)
    from aac.processing import item_record

    state = item_record._read_state(corpus)
    item_record._write_state(corpus, {k: v for k, v in state.items() if k != "code"})
    assert processing_outdated(corpus)
    run(corpus)
    assert not processing_outdated(corpus)
