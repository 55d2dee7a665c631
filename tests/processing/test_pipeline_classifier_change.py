"""Incremental processing after a change of classifier or model: pass-1 rows are reused, stored items are
re-typed (not kept with stale types), and the tables equal a ``--full`` run with the new classifier."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from aac.classifiers.linear import LinearModel
from aac.classifiers.regex import RegexClassifier
from aac.classifiers.trained import TrainedClassifier, shipped_model_path
from aac.collectors.emulator import generate_snapshot
from aac.processing import item_record
from aac.processing.pipeline import ProcessConfig, run
from aac.processing.records import load_records
from aac.core.store import Corpus

N = 80


@pytest.fixture(scope="module")
def records():
    return list(generate_snapshot(N, 33))


def _table(corpus: Corpus, name: str, key: str) -> list[dict]:
    return corpus.read(name).sort_by(key).to_pylist()


def _full(tmp_path, records, classifier=None) -> Corpus:
    c = Corpus(tmp_path / "from-scratch")
    load_records(c, records)
    run(c, ProcessConfig(incremental=False, classifier=classifier))
    return c


def _same_tables(a: Corpus, b: Corpus) -> None:
    assert _table(a, "artifacts", "artifact_id") == _table(b, "artifacts", "artifact_id")
    assert _table(a, "items", "item_id") == _table(b, "items", "item_id")


def _typed_by(corpus: Corpus) -> set:
    t = corpus.read("process_stage", columns=["_items_key", "_typed_by"]).to_pylist()
    return {r["_typed_by"] for r in t if r["_items_key"] is not None}


def _retrained() -> TrainedClassifier:
    """The shipped model with its constraint bias moved: what a retrained model looks like to the pipeline."""
    m = LinearModel.load(shipped_model_path())
    return TrainedClassifier(replace(m, c_bias=m.c_bias + 1.5, bias=m.bias + np.float32(0.5) * np.arange(5)))


def test_an_unchanged_run_reuses_every_row_signature_and_item(tmp_path, records):
    c = Corpus(tmp_path / "c")
    load_records(c, records)
    first = run(c)
    assert first.items_itemised > 20 and first.classifier == TrainedClassifier().fingerprint
    items = _table(c, "items", "item_id")
    second = run(c)
    assert (second.processed, second.reused) == (0, N)
    assert (second.items_itemised, second.items_retyped, second.items_reused) == (0, 0, first.items_itemised)
    assert _table(c, "items", "item_id") == items
    assert _typed_by(c) == {first.classifier}


def test_another_classifier_retypes_every_item_and_matches_a_full_run_with_it(tmp_path, records):
    c = Corpus(tmp_path / "c")
    load_records(c, records)
    first = run(c)
    regex = RegexClassifier()
    second = run(c, ProcessConfig(classifier=regex))
    assert (second.processed, second.reused) == (0, N)  # pass 1 does not depend on the classifier
    assert (second.items_itemised, second.items_reused) == (0, 0)
    assert second.items_retyped == first.items_itemised and second.item_rows_retyped == first.items
    assert {r["classifier"] for r in c.read("items").to_pylist()} == {"regex"}
    _same_tables(c, _full(tmp_path, records, regex))
    assert _typed_by(c) == {regex.fingerprint}
    third = run(c, ProcessConfig(classifier=regex))
    assert (third.items_retyped, third.items_reused) == (0, first.items_itemised)


def test_a_retrained_model_changes_the_fingerprint_and_the_stored_types_follow_it(tmp_path, records):
    c = Corpus(tmp_path / "c")
    load_records(c, records)
    run(c)
    before = {r["item_id"]: r["type"] for r in c.read("items").to_pylist()}
    new = _retrained()
    assert new.fingerprint != TrainedClassifier().fingerprint
    report = run(c, ProcessConfig(classifier=new))
    assert report.items_retyped == len({a for a in c.read("items").column("artifact_id").to_pylist()})
    after = {r["item_id"]: r["type"] for r in c.read("items").to_pylist()}
    assert after.keys() == before.keys() and after != before  # the old types would have been kept before
    _same_tables(c, _full(tmp_path, records, new))


def test_a_refresh_and_a_model_change_together_itemise_the_changed_file_and_retype_the_rest(tmp_path, records):
    from aac.processing.records import artifacts_from_records
    from aac.refresh.versioning import apply_refresh

    c = Corpus(tmp_path / "c")
    load_records(c, records)
    first = run(c)
    kept = sorted(r["artifact_id"] for r in c.read("artifacts").to_pylist()
                  if r["status"] == "kept" and (r["dup_cluster_size"] or 1) == 1)
    target = next(r for r in c.read("artifacts").to_pylist() if r["artifact_id"] == kept[0])
    changed = [dict(r, content=r["content"] + "\n- Never push to main.\n")
               if (r["repo"], r["path"]) == (target["repo"], target["path"]) else r for r in records]
    crawled, repos = artifacts_from_records(changed)
    c.upsert("repos", repos)
    apply_refresh(c, crawled)
    new = _retrained()
    report = run(c, ProcessConfig(classifier=new))
    assert (report.processed, report.reused) == (1, N - 1)
    assert (report.items_itemised, report.items_retyped) == (1, first.items_itemised - 1)
    _same_tables(c, _full(tmp_path, changed, new))


def test_a_classifier_without_fingerprint_keeps_the_segmentation_but_is_never_trusted(tmp_path, records):
    class Anonymous:  # a third-party classifier that predates fingerprints
        name = "regex"

        def predict(self, items):
            return RegexClassifier().predict(items)

    c = Corpus(tmp_path / "c")
    load_records(c, records)
    first = run(c, ProcessConfig(classifier=Anonymous()))
    again = run(c, ProcessConfig(classifier=Anonymous()))
    assert first.classifier is None and (again.items_reused, again.items_retyped) == (0, first.items_itemised)
    _same_tables(c, _full(tmp_path, records, RegexClassifier()))


def test_items_retyped_outside_process_are_known_by_their_classifier(tmp_path, records):
    """``aac classify corpus`` re-types the whole table: the record learns the new fingerprint."""
    from aac.classifiers.base import fingerprint_of
    from aac.classifiers.batch import retype_corpus

    c = Corpus(tmp_path / "c")
    load_records(c, records)
    first = run(c)
    regex = RegexClassifier()
    with item_record.rewriting_items(c, fingerprint_of(regex), whole_table=True):
        retype_corpus(c, regex)
    same = run(c, ProcessConfig(classifier=regex))
    assert (same.items_reused, same.items_retyped) == (first.items_itemised, 0)
    back = run(c)
    assert (back.items_reused, back.items_retyped) == (0, first.items_itemised)
    _same_tables(c, _full(tmp_path, records))


def test_an_unfinished_items_write_or_an_old_stage_table_means_nothing_is_trusted(tmp_path, records):
    c = Corpus(tmp_path / "c")
    load_records(c, records)
    first = run(c)
    item_record.distrust(c)  # as a run killed between writing ``items`` and the record leaves it
    again = run(c)
    assert (again.items_itemised, again.items_reused, again.items_retyped) == (first.items_itemised, 0, 0)
    stage = c.read("process_stage")
    c.replace("process_stage", stage.drop_columns(["_items_key", "_typed_by"]))  # written before the record
    old = run(c)
    assert (old.items_itemised, old.processed, old.reused) == (first.items_itemised, 0, N)
    _same_tables(c, _full(tmp_path, records))


def test_without_items_the_record_carries_over(tmp_path, records):
    c = Corpus(tmp_path / "c")
    load_records(c, records)
    first = run(c)
    run(c, ProcessConfig(items=False))
    again = run(c)
    assert (again.items_itemised, again.items_reused) == (0, first.items_itemised)


@pytest.fixture
def fresh_default():
    """The default classifier is loaded once per process: reload it around a test that swaps its model."""
    from aac.processing.items import _default_classifier

    _default_classifier.cache_clear()
    yield
    _default_classifier.cache_clear()


def test_a_new_default_model_is_picked_up_by_a_plain_refresh_run(tmp_path, records, monkeypatch, fresh_default):
    """The case that motivated fingerprints: the shipped model is retrained and the user runs `aac process`."""
    from aac.classifiers.trained import MODEL_ENV

    c = Corpus(tmp_path / "c")
    load_records(c, records)
    first = run(c)
    monkeypatch.setenv(MODEL_ENV, str(_retrained().model.save(tmp_path / "retrained.npz")))
    from aac.processing.items import _default_classifier

    _default_classifier.cache_clear()
    report = run(c)
    assert report.classifier != first.classifier
    assert (report.processed, report.items_itemised, report.items_retyped) == (0, 0, first.items_itemised)
    _same_tables(c, _full(tmp_path, records))


def test_aac_refresh_with_no_changed_file_still_retypes_after_a_model_change(tmp_path, records, monkeypatch,
                                                                             fresh_default):
    from typer.testing import CliRunner

    from aac.classifiers.trained import MODEL_ENV
    from aac.cli import app
    from aac.processing.items import _default_classifier
    from aac.processing.records import artifacts_from_records

    crawled, repos = artifacts_from_records(records)
    incoming = Corpus(tmp_path / "in")
    incoming.replace("artifacts", crawled)
    incoming.replace("repos", repos)
    args = ["refresh", "--corpus", str(tmp_path / "main"), "--incoming", str(incoming.root)]
    first = CliRunner().invoke(app, args)
    assert first.exit_code == 0 and "processed:" in first.output, first.output
    unchanged = CliRunner().invoke(app, args)
    assert unchanged.exit_code == 0 and "processed:" not in unchanged.output, unchanged.output
    monkeypatch.setenv(MODEL_ENV, str(_retrained().model.save(tmp_path / "retrained.npz")))
    _default_classifier.cache_clear()
    retrained = CliRunner().invoke(app, args)
    out = " ".join(retrained.output.split())
    assert retrained.exit_code == 0 and "processed: 0 artifacts through pass 1" in out, out
    n = len(set(Corpus(tmp_path / "main").read("items").column("artifact_id").to_pylist()))
    assert f"0 itemised, 0 reused, {n} re-typed because the classifier changed" in out
