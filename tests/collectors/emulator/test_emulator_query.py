"""Legacy code-search query syntax: every size form, path/filename/extension semantics, AND, refusals."""

import pytest

from aac.collectors.emulator.index import Index
from aac.collectors.emulator.query import QueryError, SizeRange, parse_query, parse_size

RECORDS = [
    {"repo": "a/one", "path": "CLAUDE.md", "content": "x" * 10},
    {"repo": "a/one", "path": "packages/api/CLAUDE.md", "content": "x" * 100},
    {"repo": "b/two", "path": "claude.md", "content": "x" * 1000},
    {"repo": "b/two", "path": ".cursor/rules/style.mdc", "content": "use tabs"},
    {"repo": "c/three", "path": "apps/web/.cursor/rules/deep/x.mdc", "content": "y" * 50},
    {"repo": "c/three", "path": ".github/copilot-instructions.md", "content": "z" * 384 * 1024},
    {"repo": "c/three", "path": "docs/.cursor/notes.md", "content": "Prefer TABS"},
]


@pytest.fixture(scope="module")
def index():
    return Index(RECORDS, max_bytes=384 * 1024)


def hits(index, q):
    return sorted((f.repo.full_name, f.path) for f in index.match(parse_query(q)))


@pytest.mark.parametrize("text, inside, outside", [
    ("100", [100], [99, 101]),
    ("10..100", [10, 55, 100], [9, 101]),
    (">100", [101, 10**6], [100]),
    (">=100", [100, 101], [99]),
    ("<100", [0, 99], [100]),
    ("<=100", [0, 100], [101]),
    ("50..*", [50, 10**9], [49]),
    ("*..50", [0, 50], [51]),
])
def test_size_qualifier_forms_are_inclusive_where_github_is(text, inside, outside):
    r = parse_size(text)
    assert all(n in r for n in inside)
    assert not any(n in r for n in outside)


@pytest.mark.parametrize("bad", ["", "abc", "10..", "..5", ">", "1.5", "10-20"])
def test_malformed_size_is_refused(bad):
    with pytest.raises(QueryError):
        parse_size(bad)


def test_size_range_contains_bounds():
    assert 5 in SizeRange(5, 5) and 4 not in SizeRange(5, 5)


def test_filename_is_exact_basename_case_insensitive(index):
    assert hits(index, "filename:claude.md") == [("a/one", "CLAUDE.md"), ("a/one", "packages/api/CLAUDE.md"),
                                                 ("b/two", "claude.md")]
    assert hits(index, "filename:CLAUDE") == []


def test_path_matches_consecutive_directory_segments_anywhere(index):
    assert hits(index, "path:.cursor/rules") == [("b/two", ".cursor/rules/style.mdc"),
                                                 ("c/three", "apps/web/.cursor/rules/deep/x.mdc")]
    assert hits(index, "path:cursor/rules") == []  # segments, not substrings
    assert hits(index, "path:.cursor") == [("b/two", ".cursor/rules/style.mdc"),
                                           ("c/three", "apps/web/.cursor/rules/deep/x.mdc"),
                                           ("c/three", "docs/.cursor/notes.md")]


def test_path_slash_means_repository_root_and_leading_slash_anchors(index):
    assert hits(index, "filename:CLAUDE.md path:/") == [("a/one", "CLAUDE.md"), ("b/two", "claude.md")]
    assert hits(index, "path:/.cursor") == [("b/two", ".cursor/rules/style.mdc")]


def test_extension_and_qualifiers_combine_with_and(index):
    assert hits(index, "extension:mdc") == [("b/two", ".cursor/rules/style.mdc"),
                                            ("c/three", "apps/web/.cursor/rules/deep/x.mdc")]
    assert hits(index, "path:.cursor extension:mdc size:>20") == [("c/three", "apps/web/.cursor/rules/deep/x.mdc")]
    assert hits(index, "filename:CLAUDE.md size:50..500") == [("a/one", "packages/api/CLAUDE.md")]
    assert hits(index, "filename:CLAUDE.md repo:B/Two") == [("b/two", "claude.md")]
    assert hits(index, "filename:CLAUDE.md user:a") == [("a/one", "CLAUDE.md"), ("a/one", "packages/api/CLAUDE.md")]


def test_negated_qualifier_and_free_text(index):
    assert hits(index, "filename:CLAUDE.md -path:packages") == [("a/one", "CLAUDE.md"), ("b/two", "claude.md")]
    assert hits(index, "tabs") == [("b/two", ".cursor/rules/style.mdc"), ("c/three", "docs/.cursor/notes.md")]
    assert hits(index, '"prefer tabs"') == [("c/three", "docs/.cursor/notes.md")]


def test_files_of_384_kb_or_more_are_never_indexed(index):
    assert hits(index, "filename:copilot-instructions.md") == []
    assert ("c/three", ".github/copilot-instructions.md") in {(f.repo.full_name, f.path) for f in index.files.values()}


def test_query_key_ignores_order_case_and_spacing():
    assert parse_query("size:1..2  FILENAME:A.md").key == parse_query("filename:a.md size:1..2").key


@pytest.mark.parametrize("q", ["", "   ", "stars:>5", "size:huge", "repo:noslash", "filename:"])
def test_unparseable_queries_are_refused(q):
    with pytest.raises(QueryError):
        parse_query(q)
