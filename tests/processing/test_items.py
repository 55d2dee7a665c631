"""itemize / itemize_many / items_from_file produce rows of the items table."""

import pyarrow as pa
import pytest

from aac.classifiers.base import Prediction, one_hot
from aac.core.ids import item_id
from aac.processing.item_batches import itemize_many
from aac.processing.items import itemize, items_from_file, local_artifact_id
from aac.core.schema import ITEMS, TYPES, conform

MDC = "---\nglobs: src/**/*.ts\n---\n# TS\n\n## Safety\n\n- never commit secrets\n\n## Style\n\n- prefer const\n"


class CountingClassifier:
    """Labels everything P and records how many predict() calls it received."""

    name = "counting"

    def __init__(self):
        self.calls = []

    def predict(self, items):
        self.calls.append(len(items))
        return [Prediction("P", one_hot("P", 0.8), 0.8, False, "") for _ in items]


def test_itemize_rows_have_exactly_the_items_columns_and_conform():
    rows = itemize("a1", ".cursor/rules/ts.mdc", MDC)
    assert rows and all(list(r) == ITEMS.names for r in rows)
    table = conform(pa.Table.from_pylist(rows), ITEMS)
    assert table.num_rows == len(rows)
    assert all(r["type"] in TYPES and len(r["type_proba"]) == 5 for r in rows)


def test_itemize_scopes_and_ids_follow_the_segment_and_scope_rules():
    rows = itemize("a1", ".cursor/rules/ts.mdc", MDC)
    by_text = {r["text"]: r for r in rows}
    assert by_text["never commit secrets"]["scope"] == ["glob:src/**/*.ts"]  # the globs win over "## Safety"
    assert by_text["prefer const"]["scope"] == ["glob:src/**/*.ts"]
    assert by_text["prefer const"]["topic"] == "ts/style"
    assert by_text["globs: src/**/*.ts"]["kind"] == "front_matter"
    assert [r["item_id"] for r in rows] == [item_id("a1", r["ordinal"]) for r in rows]


def test_itemize_is_deterministic_across_runs():
    assert itemize("a1", "CLAUDE.md", MDC) == itemize("a1", "CLAUDE.md", MDC)


def test_given_classifier_is_used_once_per_file_with_its_name_recorded():
    clf = CountingClassifier()
    rows = itemize("a1", "CLAUDE.md", "- one\n- two\n", classifier=clf, authority="dev")
    assert clf.calls == [2]
    assert {(r["type"], r["classifier"], r["authority"]) for r in rows} == {("P", "counting", "dev")}


def test_itemize_many_classifies_across_files_in_batches_and_keeps_every_item():
    clf = CountingClassifier()
    records = [(f"a{i}", "AGENTS.md", "- x\n- y\n- z\n") for i in range(10)]
    batches = list(itemize_many(records, classifier=clf, batch_size=7))
    assert all(b.schema == ITEMS for b in batches)
    assert sum(b.num_rows for b in batches) == 30
    assert clf.calls == [9, 9, 9, 3]
    ids = [i for b in batches for i in b.column("item_id").to_pylist()]
    assert len(set(ids)) == 30


def test_itemize_many_of_nothing_yields_no_batches():
    assert list(itemize_many([], classifier=CountingClassifier())) == []


def test_a_classifier_returning_too_few_predictions_is_an_error():
    class Broken(CountingClassifier):
        def predict(self, items):
            return []

    with pytest.raises(RuntimeError, match="0 predictions for 2 items"):
        itemize("a1", "CLAUDE.md", "- one\n- two\n", classifier=Broken())


def test_items_from_file_reads_bytes_tolerantly_and_keys_by_path(tmp_path):
    f = tmp_path / ".cursorrules"
    f.write_bytes(b"\xef\xbb\xbfAlways run tests.\r\nNever push to main.\xff\r\n")
    rows = items_from_file(f, classifier=CountingClassifier())
    assert [r["text"] for r in rows] == ["Always run tests.", "Never push to main.\ufffd"]
    assert {r["artifact_id"] for r in rows} == {local_artifact_id(f)}


def test_itemize_many_takes_an_authority_per_record_or_for_all():
    clf = CountingClassifier()
    batches = itemize_many([("a", "CLAUDE.md", "- x\n", "sys"), ("b", "CLAUDE.md", "- y\n")], classifier=clf,
                           authority="tool")
    rows = [r for b in batches for r in b.to_pylist()]
    assert [(r["artifact_id"], r["authority"]) for r in rows] == [("a", "sys"), ("b", "tool")]


def test_itemize_many_reports_segmentation_warnings_per_artifact():
    seen: dict = {}
    records = [("bad", "x.mdc", "---\nglobs: [oops\nnot a key\n---\n- rule\n"), ("ok", "CLAUDE.md", "- rule\n")]
    rows = [r for b in itemize_many(records, classifier=CountingClassifier(), warnings=seen) for r in b.to_pylist()]
    assert seen == {"bad": ("malformed_front_matter",)}
    assert [r["artifact_id"] for r in rows].count("bad") == 3


def test_a_file_the_segmenter_fails_on_gets_no_items_and_a_warning(monkeypatch, caplog):
    import aac.processing.items as items_mod

    real = items_mod.segment_document

    def failing(content, path):
        if path == "bad/CLAUDE.md":
            raise RuntimeError("segmenter bug")
        return real(content, path)

    monkeypatch.setattr(items_mod, "segment_document", failing)
    warnings: dict = {}
    records = [("a1", "bad/CLAUDE.md", "- never push"), ("a2", ".cursor/rules/x.mdc", MDC)]
    rows = [r for b in itemize_many(records, classifier=CountingClassifier(), warnings=warnings) for r in b.to_pylist()]
    assert {r["artifact_id"] for r in rows} == {"a2"} and len(rows) == 3  # the glob, two bullets
    assert warnings["a1"] == ("segmentation_failed",)
    assert "bad/CLAUDE.md" in caplog.text and "RuntimeError" in caplog.text
