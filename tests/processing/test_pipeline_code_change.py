"""A change of the processing code redoes the pass it affects on the next run, without ``--full``."""

from __future__ import annotations

from aac.collectors.emulator import generate_snapshot
from aac.processing.steps.items import Itemise
from aac.processing.steps.tags import Tag
from aac.processing.pipeline import ProcessConfig, processing_outdated, run
from aac.processing.records import load_records
from aac.core.store import Corpus


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


def test_a_row_step_code_change_reruns_pass1_for_every_row(tmp_path, monkeypatch):
    corpus, records, first = _processed(tmp_path)
    items_before = corpus.read("items").sort_by("item_id").to_pylist()
    monkeypatch.setattr(Tag, "code", lambda self: "changed-tagging-code")
    assert processing_outdated(corpus)
    again = run(corpus)
    assert again.processed == len(records) and again.reused == 0
    assert again.items_reused == first.items_itemised  # segmentation code unchanged: items kept
    assert corpus.read("items").sort_by("item_id").to_pylist() == items_before
    assert not processing_outdated(corpus)


def test_a_segmentation_code_change_remakes_the_items_but_keeps_pass1(tmp_path, monkeypatch):
    corpus, records, first = _processed(tmp_path)
    monkeypatch.setattr(Itemise, "code", lambda self: "changed-segmentation")
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


def test_artifacts_a_killed_refresh_merged_but_never_processed_make_the_next_refresh_process(tmp_path):
    """A refresh killed after its merge leaves new and changed rows `collected`; the next refresh finds no upstream
    change, so only this tells it that processing is still owed (else publishing holds those files back)."""
    import pyarrow as pa

    from aac.processing.pipeline import awaiting_processing

    corpus, records, first = _processed(tmp_path)
    rows = corpus.read("artifacts").to_pylist()
    kept = [r for r in rows if r["status"] == "kept"][:3]
    for r in kept:  # what the merge writes for a changed file before processing
        r["status"], r["drop_reason"] = "collected", None
    corpus.replace("artifacts", pa.Table.from_pylist(rows, schema=corpus.schema("artifacts")))
    assert awaiting_processing(corpus) == 3 and processing_outdated(corpus)
    run(corpus)
    assert awaiting_processing(corpus) == 0 and not processing_outdated(corpus)
    statuses = {r["artifact_id"]: r["status"] for r in corpus.read("artifacts").to_pylist()}
    assert all(statuses[r["artifact_id"]] == "kept" for r in kept)
