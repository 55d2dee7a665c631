"""The classify job: a file typed into another, a corpus retyped in this process or part by part (the flow's
stage), with the same types and the same record of who typed them."""

from __future__ import annotations

import json

import pytest

from aac.core.store import Corpus
from aac.jobs.classify import BadClassifyInput, ClassifyOptions, ClassifyStages, classify, retype_part
from aac.processing.item_record import _read_state
from tests.classifiers.test_classify_cli import small_corpus


def _types(root) -> dict:
    return {r["item_id"]: r["type"] for r in Corpus(root).read("items").to_pylist()}


def test_a_corpus_retyped_part_by_part_matches_one_pass(tmp_path):
    one, parts = small_corpus(tmp_path / "a"), small_corpus(tmp_path / "b")
    seen: list[tuple[int, int]] = []
    r1 = classify(ClassifyOptions(corpus=one, classifier="regex"), on_progress=lambda k, n: seen.append((k, n)))
    stage = ClassifyStages(parts=lambda ps, o, staging: [retype_part(p, o.classifier, staging) for p in ps])
    r2 = classify(ClassifyOptions(corpus=parts, classifier="regex"), stage)
    assert _types(one) == _types(parts) == {"i0": "C", "i1": "P"}
    assert r1.items == r2.items == 2 and r1.failed == r2.failed == 0 and sum(k for k, _ in seen) == 2
    assert _read_state(Corpus(one))["typed_by"] == _read_state(Corpus(parts))["typed_by"] == r1.typed_by
    assert not list(parts.glob(".classify-staging-*"))  # the staging folder is gone


def test_a_file_is_typed_and_bad_lines_are_counted(tmp_path):
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    src.write_text(json.dumps({"id": "1", "text": "Never push to main."}) + "\nnot json\n", encoding="utf-8")
    report = classify(ClassifyOptions(src=src, out=out, classifier="regex"))
    assert (report.items, report.errors) == (1, 1)
    assert [json.loads(line).get("type") for line in out.read_text().splitlines()] == ["C", None]


@pytest.mark.parametrize("options, message", [
    (ClassifyOptions(), "give --in"),
    (ClassifyOptions(src="in.jsonl"), "--in needs --out"),
    (ClassifyOptions(corpus="c", runner="spark"), "unknown runner"),
    (ClassifyOptions(corpus="c"), "has no items table"),
])
def test_what_cannot_run_is_refused_before_any_work(tmp_path, monkeypatch, options, message):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(BadClassifyInput, match=message):
        classify(options)
