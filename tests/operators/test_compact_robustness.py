"""TypeCompact on held-out-like inputs: scale, odd characters, pathological shapes (synthetic strings only)."""

from aac.operators import soft
from aac.operators.compact import type_compact
from aac.operators.model import Item, KnowledgeBase


def _shared_word_kb(n: int) -> KnowledgeBase:
    """n distinct beliefs that all share one long word - the shape of a big table or a list of settings."""
    return KnowledgeBase([Item(f"b{i}", f"configuration value{i:05d}", "B", order=i) for i in range(n)])


def test_near_duplicate_search_does_not_compare_every_pair_when_items_share_a_common_word(monkeypatch):
    calls = []
    real = soft.near_duplicate
    monkeypatch.setattr(soft, "near_duplicate", lambda a, b, t=0.8: calls.append(1) or real(a, b, t))
    res = type_compact(_shared_word_kb(1500), 10**9)
    assert len(res.kept) == 1500 and not res.dropped
    assert len(calls) < 1500  # all pairs would be over a million comparisons (minutes on a 1 MB file)


def test_near_duplicates_found_are_those_of_an_all_pairs_search():
    texts = ["Use pnpm for every package install in this repo", "Use pnpm for every package install in the repo",
             "configuration alpha beta", "configuration alpha gamma", "configuration alpha beta",
             "Tabs for indentation in Go files", "tabs for indentation in go files!", "a b c d e f g h i j",
             "a b c d e f g h i k", "a b c d e f g h i j k"]
    kb = KnowledgeBase([Item(str(i), t, "B", order=i) for i, t in enumerate(texts)])
    kept, expected = [], set()
    for i, t in enumerate(texts):  # every earlier kept item against every later one
        ws = frozenset(soft.words(t))
        if any(soft.near_duplicate(ws, other) for other in kept):
            expected.add(str(i))
        else:
            kept.append(ws)
    res = type_compact(kb, 10**9)
    assert expected  # the fixture does hold near-duplicates
    assert {i for i, why in res.dropped.items() if why == "near-duplicate"} == expected


class _AllConstraints:
    """Types every item a constraint, so a test sees which texts reach the hard lane."""

    name = "all-c"

    def predict(self, items):
        from aac.classifiers.base import Prediction, one_hot

        return [Prediction("C", one_hot("C", 0.9), 0.9, False, "") for _ in items]


def _compact_file(path, budget):
    from aac.operators.ingest import rows_from_file

    return type_compact(KnowledgeBase.from_rows(rows_from_file(path, _AllConstraints())), budget)


def test_a_tag_wrapper_whose_first_line_is_a_comment_keeps_its_constraints(tmp_path):
    src = tmp_path / "AGENTS.md"
    src.write_text("# Rules\n\n<rules>\n<!-- reviewed -->\nNever push to main.\n</rules>\n\nRun tests first.\n")
    res = _compact_file(src, 10**6)
    assert not res.unsafe
    assert "Never push to main." in res.text and "Run tests first." in res.text


def test_a_file_the_segmenter_fails_on_is_compacted_from_the_light_segmenter_not_emptied(tmp_path, monkeypatch):
    import aac.processing.items as items_mod

    def failing(content, path):
        raise RuntimeError("segmenter bug")

    monkeypatch.setattr(items_mod, "segment_document", failing)
    src = tmp_path / "CLAUDE.md"
    src.write_text("# Rules\n\n- Never commit secrets.\n- Keep functions short.\n")
    res = _compact_file(src, 10**6)
    assert {h.item.text for h in res.hard_lane} == {"Never commit secrets.", "Keep functions short."}
    assert "Never commit secrets." in res.text
