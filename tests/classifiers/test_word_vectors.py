"""The constraint stage's dense word meaning: the mean word vector of an item in the shipped static embedding."""

from __future__ import annotations

import numpy as np
import pytest

from aac.classifiers import word_vectors as wv_module
from aac.classifiers.word_vectors import WordVectors


@pytest.fixture(scope="module")
def wv() -> WordVectors:
    return WordVectors()


def _by_hand(wv: WordVectors, words: list[str]) -> np.ndarray:
    emb = wv._embedding
    vecs = [emb.vectors[emb.tokenizer.encode(w, add_special_tokens=False).ids].mean(axis=0)
            for w in words if not w.isdigit()]
    v = np.mean(vecs, axis=0)
    return v / np.linalg.norm(v)


def test_an_item_vector_is_the_unit_mean_of_its_word_vectors(wv):
    words = ["never", "force", "push", "to", "main"]
    got = wv.mean_vectors([words, ["purge", "the", "bucket"]])
    assert got.shape == (2, wv.dims)
    np.testing.assert_allclose(got[0], _by_hand(wv, words), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.linalg.norm(got, axis=1), 1.0, rtol=1e-5)


def test_numbers_add_nothing_and_empty_items_are_zero(wv):
    got = wv.mean_vectors([["delete", "the", "database"], ["delete", "the", "database", "42", "2026"], []])
    np.testing.assert_allclose(got[0], got[1], rtol=1e-5, atol=1e-6)
    assert not got[2].any()


def test_only_the_first_max_words_count():
    short = WordVectors(max_words=3)
    got = short.mean_vectors([["rotate", "the", "keys", "weekly", "please"], ["rotate", "the", "keys"]])
    np.testing.assert_allclose(got[0], got[1], rtol=1e-6)


def test_a_full_cache_starts_over_and_gives_the_same_vectors(monkeypatch):
    fresh = WordVectors()
    words = [["drop", "the", "production", "table"], ["wipe", "every", "backup"]]
    before = fresh.mean_vectors(words)
    monkeypatch.setattr(wv_module, "MAX_CACHED", 8)
    mixed = [["wipe", "every", "backup"], [f"word{i}" for i in range(7)]]  # cached words + new ones: a reset
    np.testing.assert_allclose(fresh.mean_vectors(mixed)[0], before[1], rtol=1e-6)
    assert len(fresh._row) == 10  # only this batch's words survive the reset
    np.testing.assert_allclose(fresh.mean_vectors(words), before, rtol=1e-6)


def test_related_harms_sit_closer_than_unrelated_words(wv):
    a, b, c = wv.mean_vectors([["delete", "the", "database"], ["erase", "the", "data"], ["prefer", "tabs"]])
    assert a @ b > a @ c
