"""The batch featuriser computes a text's features once and a heading's once per text shape: it must give exactly
the indices that hashing each item's own tokens gives, whatever repeats, headings, kinds or cache evictions."""

from __future__ import annotations

import itertools

import numpy as np

from aac.classifiers import features
from aac.classifiers.base import ItemInput
from aac.classifiers.datasets import load_gold
from aac.classifiers.features import N_FEATURES, featurize_two_stage, hash_tokens, item_tokens
from tests.conftest import shared_file


def _one_by_one(items, n_features):
    """The definition: each item's type tokens hashed, and the constraint stage's union with its risk tokens."""
    rows = []
    for item in items:
        risk: list[str] = []
        toks = item_tokens(item, risk)
        rows.append((hash_tokens(toks, n_features), hash_tokens(toks + risk, n_features)))
    return rows


def _rows(idx, ptr):
    return [idx[ptr[i]:ptr[i + 1]].tolist() for i in range(len(ptr) - 1)]


def _items():
    gold = [d.item for d in load_gold(shared_file("gold_dev.jsonl"))]
    long_text = "Never delete the prod database. " * 60  # past MAX_CACHED_CHARS: featurised every time, never kept
    texts = [g.text for g in gold[:60]] + ["Never push to main.", "**DO NOT** delete `prod.db`", "```bash\nrm -rf /\n```",
                                           long_text]
    sections = [(), ("Safety",), ("Project", "Never commit"), ("Style", "Naming"), ("安全规则",), ("Rules",)]
    kinds = ["line", "code", "paragraph"]
    # every text under several headings and kinds, in an order that repeats texts far apart
    return [ItemInput(t, s, k) for (s, k), t in itertools.product(itertools.product(sections, kinds), texts)] + gold


def test_batch_features_equal_each_items_own():
    features.clear_caches()
    items = _items()
    for n_features in (N_FEATURES, 1 << 10):  # a small space makes text and heading buckets collide
        idx, ptr, cidx, cptr = featurize_two_stage(items, n_features)
        expected = _one_by_one(items, n_features)
        assert _rows(idx, ptr) == [e[0] for e in expected]
        assert _rows(cidx, cptr) == [e[1] for e in expected]


def test_eviction_and_warm_cache_change_nothing(monkeypatch):
    items = _items()
    features.clear_caches()
    cold = featurize_two_stage(items)
    warm = featurize_two_stage(items)
    monkeypatch.setattr(features, "MAX_TEXTS", 7)  # the text cache starts over many times within one batch
    features.clear_caches()
    words: list[list[str]] = []
    evicting = featurize_two_stage(items, words_out=words)
    for a, b, c in zip(cold, warm, evicting):
        assert np.array_equal(a, b) and np.array_equal(a, c)
    assert len(features._TEXT_IDS) <= 7
    assert all(len(key[0]) <= features.MAX_CACHED_CHARS for key in features._TEXT_IDS)
    plain: list[list[str]] = []
    for item in items:
        item_tokens(item, words_out=plain)
    assert words == plain


def test_clear_caches_empties_the_shared_word_table_and_vectors_stay_the_same():
    from aac.classifiers.word_vectors import shared_word_vectors

    wv = shared_word_vectors()
    words = [["never", "push", "to", "main"], ["rotate", "the", "api", "keys"]]
    before = wv.mean_vectors(words)
    assert "never" in wv._row
    features.clear_caches()
    assert wv._row == {} and wv._size == 1  # cold: the next items embed their words again
    assert np.allclose(wv.mean_vectors(words), before)
