"""A big batch scored on several processes gives the numbers one process gives, and falls back when it must."""

from __future__ import annotations

import types

import numpy as np
import pytest

from aac.classifiers import parallel
from aac.classifiers.base import get_classifier
from aac.classifiers.datasets import load_gold, load_phrasing


@pytest.fixture
def dev_items(gold_path, phrasing_path):
    return [d.item for d in load_gold(gold_path) + load_phrasing(phrasing_path)]


@pytest.fixture(autouse=True)
def fresh_pool_state(monkeypatch):
    monkeypatch.setattr(parallel, "_disabled", False)


def test_two_processes_score_every_item_exactly_as_one(dev_items, monkeypatch):
    model = get_classifier("trained").model
    monkeypatch.setenv("AAC_CLASSIFY_WORKERS", "1")
    alone = model.probabilities(dev_items)
    monkeypatch.setenv("AAC_CLASSIFY_WORKERS", "2")
    calls = []

    def scored_here(chunk):
        calls.append(len(chunk))
        return model._probabilities(chunk)

    shared = parallel.score_rows(scored_here, dev_items, min_items=64)
    assert calls == [len(dev_items) // 2]  # this process scored the first half; a worker the rest
    assert np.array_equal(shared, alone)


def test_small_batches_one_worker_and_daemonic_processes_stay_in_process(monkeypatch):
    calls = []

    def fn(chunk):
        calls.append(len(chunk))
        return np.zeros((len(chunk), 5))

    monkeypatch.setenv("AAC_CLASSIFY_WORKERS", "2")
    parallel.score_rows(fn, list(range(100)), min_items=2048)
    monkeypatch.setenv("AAC_CLASSIFY_WORKERS", "1")
    parallel.score_rows(fn, list(range(5000)), min_items=64)
    monkeypatch.setenv("AAC_CLASSIFY_WORKERS", "2")
    monkeypatch.setattr(parallel.multiprocessing, "current_process", lambda: types.SimpleNamespace(daemon=True))
    parallel.score_rows(fn, list(range(5000)), min_items=64)
    assert calls == [100, 5000, 5000]


def test_a_pool_that_cannot_start_falls_back_to_one_process_with_a_warning(monkeypatch, caplog):
    import joblib.externals.loky as loky

    def broken(**_):
        raise OSError("no semaphores here")

    monkeypatch.setattr(loky, "get_reusable_executor", broken)
    monkeypatch.setenv("AAC_CLASSIFY_WORKERS", "2")
    rows = parallel.score_rows(lambda chunk: np.asarray(chunk, dtype=float)[:, None], list(range(300)), min_items=64)
    assert rows[:, 0].tolist() == list(range(300))
    assert "did not start" in caplog.text and parallel._disabled


def test_a_bad_worker_count_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("AAC_CLASSIFY_WORKERS", "two")
    with pytest.raises(ValueError, match="AAC_CLASSIFY_WORKERS"):
        parallel.worker_count()
