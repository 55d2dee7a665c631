"""The substring tests that let the featuriser skip regex searches are exact: they never hide a match."""

from __future__ import annotations

import json

import pytest

from aac.classifiers import features, risk
from aac.classifiers.cues import PHRASE_CUES, PHRASE_NEEDS, SHOUT_FAST, UPPER_RUN
from aac.classifiers.paths import shared_data

EDGE_CASES = [
    "This file is not to be edited by hand.", "Secrets may only be read by the deploy job.",
    "Agents have no authority to approve refunds.", "Backups are not reversible.", "Requests falls outside policy",
    "No refunds over $500 without a manager.", "To run the tests, use make test.", "For releases: tag first.",
    "Then push the branch.", "Finally, clean up.", "We migrated last week.", "Released 2024-05-01.",
    "It was decided yesterday.", "NEVER force-push.", "⚠ careful", "DON'T do it", "IMPORTANT: read this",
    "Do NOT touch", "NO", "plain text without anything", "", "禁止删除数据库", "Keep it SIMPLE",
]


def texts() -> list[str]:
    out = list(EDGE_CASES)
    for name in ("gold_dev.jsonl", "phrasing_dev.jsonl"):
        path = shared_data() / name
        if path.exists():
            out += [json.loads(line)["text"] for line in path.open(encoding="utf-8") if line.strip()]
    return out


@pytest.mark.parametrize("name", sorted(PHRASE_NEEDS))
def test_phrase_cue_needs_are_implied_by_every_match(name):
    pattern = dict(PHRASE_CUES)[name]
    checked = 0
    for text in texts():
        low = features.MARKDOWN_NOISE.sub(" ", text).lower()
        if pattern.search(low):
            checked += 1
            assert any(m in low for m in PHRASE_NEEDS[name]), text
    assert checked > 0  # the edge cases hold at least one match of every cue


def test_shout_hints_are_implied_by_every_match():
    hits = 0
    for text in texts():
        if SHOUT_FAST.search(text):
            hits += 1
            assert UPPER_RUN.search(text), text
        if risk.SHOUT.search(text):
            assert risk._SHOUT_HINT.search(text), text
    assert hits > 0


def test_whole_text_families_match_the_unfiltered_patterns():
    families = {"howto": 0, "past": 0}
    for text in texts():
        got = risk.text_families(text)
        low = text.lower()
        for name, pattern in risk._WHOLE_TEXT:
            expected = pattern.search(low) is not None
            assert (name in got) == expected, (name, text)
            families[name] += expected
    assert families["howto"] > 0 and families["past"] > 0


def test_cached_hashes_equal_fresh_ones():
    tokens = ["bias", "never", "s:security", "rx:prohibit:secret", "lang:cjk", "0"]
    features.clear_caches()
    cold = features.hash_tokens(tokens)
    warm = features.hash_tokens(tokens)  # now from the cache
    fresh = sorted({features._crc(t.encode("utf-8")) & (features.N_FEATURES - 1) for t in tokens})
    assert cold == warm == fresh
