"""What an LLM endpoint's failures must never do: pass for answers (in evaluation, the cascade, corpus mode), leak
the key (error text, the reply cache), or go unexplained; and what the client owes a busy endpoint (Retry-After)."""

from __future__ import annotations

import json

import duckdb
from typer.testing import CliRunner

from aac.classifiers.base import ItemInput, failed
from aac.classifiers.cascade import CascadeClassifier
from aac.classifiers.datasets import Labelled
from aac.classifiers.evaluation import score
from aac.classifiers.llm import LLMClassifier, ResponseCache
from aac.cli import app
from tests.classifiers.test_llm_stub import Stub, _llm, stub  # noqa: F401  (the stub endpoint fixture)

KEY = "sk-AUDIT-SECRET-0123456789"


def test_a_dead_endpoint_is_an_error_row_in_evaluation_not_perfect_recall(stub, tmp_path):
    stub.replies = [500]
    clf = _llm(stub, tmp_path, retries=0)
    gold = [Labelled(ItemInput("Never push to main."), "C"), Labelled(ItemInput("Prefer tabs."), "F")]
    s = score(clf, gold, [])
    assert s.gold == {} and s.error.startswith("2 of 2 items not typed: HTTP 500")


def test_the_cascade_abstains_and_counts_items_its_llm_failed_on(stub, tmp_path):
    stub.replies = [500]
    cascade = CascadeClassifier(llm=_llm(stub, tmp_path, retries=0), llm_below=1.01)  # every item asks the LLM
    preds = cascade.predict([ItemInput("The staging server is called atlas.")])
    assert preds[0].abstained and preds[0].source == "cascade:llm:error" and failed(preds[0])
    assert preds[0].label in "CPBFE"  # the model's own label is kept


def test_a_refused_key_stops_further_requests_and_its_reason_is_kept_scrubbed(stub, tmp_path, monkeypatch):
    monkeypatch.setenv("AAC_LLM_API_KEY", KEY)
    stub.replies = [(401, "x" * 190 + f"bad key {KEY}", {})]  # the echoed key crosses the 200-character cut
    clf = _llm(stub, tmp_path, concurrency=1)
    preds = clf.predict([ItemInput(f"item {i}") for i in range(5)])
    assert all(failed(p) for p in preds) and len(stub.requests) == 1
    first = clf.stats["first_error"]
    assert first.startswith("HTTP 401") and KEY[:10] not in first and clf.stats["errors"] == 5


def test_retry_after_is_honoured(stub, tmp_path, monkeypatch):
    import aac.classifiers.llm as llm

    slept = []
    monkeypatch.setattr(llm.time, "sleep", slept.append)
    stub.replies = [(429, "slow down", {"Retry-After": "7"}), '{"type": "P", "confidence": 0.8}']
    [p] = _llm(stub, tmp_path, backoff=0.05).predict([ItemInput("Run make test.")])
    assert p.label == "P" and slept == [7.0]


def test_the_cache_keeps_only_the_answer_fields(stub, tmp_path):
    stub.replies = [json.dumps({"type": "C", "confidence": 0.9, "note": f"Bearer {KEY}"})]
    _llm(stub, tmp_path).predict([ItemInput("Never push to main.")])
    con = duckdb.connect(str(tmp_path / "cache.duckdb"))
    (reply,), = con.execute("SELECT reply FROM llm_cache").fetchall()
    con.close()
    assert json.loads(reply) == {"confidence": 0.9, "type": "C"}


def test_a_cache_another_process_holds_falls_back_to_memory_and_a_folder_is_a_clear_error(tmp_path):
    import subprocess
    import sys

    import pytest

    with pytest.raises(RuntimeError, match="cannot open the LLM reply cache"):
        ResponseCache(tmp_path)
    path = tmp_path / "c.duckdb"
    holder = subprocess.Popen([sys.executable, "-c", "import duckdb, sys, time; c = duckdb.connect(sys.argv[1]); "
                               "print('held', flush=True); time.sleep(60)", str(path)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        cache = ResponseCache(path)
        assert cache.path == ":memory:"
        cache.put("k", "v1", "m", '{"type": "C"}')
        assert cache.get("k") == '{"type": "C"}'
    finally:
        holder.kill()
        holder.wait()


def test_corpus_mode_uses_the_llm_options_and_fails_loudly(stub, tmp_path, monkeypatch):
    """`aac classify --corpus -c llm --llm-base-url` reaches the endpoint, and a failing one exits 1 and leaves the
    table marked as nobody's work (the next run re-types it)."""
    from aac.processing.item_record import types_outdated
    from aac.core.store import Corpus
    from tests.classifiers.test_classify_cli import small_corpus

    root = small_corpus(tmp_path)
    monkeypatch.setenv("AAC_LLM_CACHE", str(tmp_path / "cache.duckdb"))
    stub.replies = [500]
    res = CliRunner().invoke(app, ["classify", "--corpus", str(root), "-c", "llm", "--llm-base-url", stub.url,
                                   "--llm-model", "m"])
    assert res.exit_code == 1 and "could not be typed" in res.output and "first error: HTTP 500" in res.output
    assert stub.requests
    clf = LLMClassifier(base_url=stub.url, model="m")
    assert types_outdated(Corpus(root), clf.fingerprint)
