"""A token with the `repo` scope makes code search list private repositories: a public corpus keeps no trace of
them (no row, not even a dropped one), while the partitioning still counts them as results."""

from __future__ import annotations

from dataclasses import replace

from collector_memsearch import MemSearch

from aac.collectors.collect import crawl_queries_into
from aac.collectors.crawl import Hit
from aac.core.store import Corpus


def test_a_search_result_says_whether_its_repository_is_private():
    item = {"path": "CLAUDE.md", "sha": "abc", "url": "https://api.github.com/x?ref=123",
            "repository": {"full_name": "acme/secret", "private": True}}
    assert Hit.from_item(item).private and not Hit.from_item({**item, "repository": {"full_name": "a/b"}}).private


def test_results_in_private_repositories_are_counted_and_never_stored(tmp_path):
    files = [("q1", f"{'priv' if k % 5 == 0 else 'pub'}{k % 40}/r", f"CLAUDE{k}.md", 500 + 37 * k) for k in range(700)]
    search = MemSearch(files)

    def with_private(q, page):
        got = search(q, page)
        return replace(got, hits=[replace(h, private=h.repo.startswith("priv")) for h in got.hits])

    engine, sink = crawl_queries_into(Corpus(tmp_path), with_private, [("claude", "q1")],
                                      lambda h: b"- a rule\n", lambda name: {"full_name": name})
    repos = {r["repo"] for r in Corpus(tmp_path).read("artifacts", columns=["repo"]).to_pylist()}
    assert repos and not any(r.startswith("priv") for r in repos)
    assert len(repos) == 32 and sink.totals.private_skipped == 140  # every private result seen once, none kept


def test_a_search_page_stored_before_hits_said_private_is_asked_afresh_not_reused_on_a_304():
    from aac.collectors import validators as val
    from aac.collectors.github import GitHubClient

    cache = val.ValidatorCache()
    params = {"q": "filename:CLAUDE.md", "page": 1, "per_page": 100}
    cache._entries[val.request_key("/search/code", params)] = val.Validated(
        '"etag1"', None, {"total": 1, "incomplete": False, "hits": [["acme/secret", "CLAUDE.md", "abc", "r", "u"]]})
    client = GitHubClient(["tok"], validators=cache)
    sent = []

    def api(resource, path, params=None, headers=None, **kw):
        sent.append(headers)
        if headers:  # conditional: the server says nothing changed
            return {}, None
        return {"etag": '"etag2"'}, {"total_count": 1, "incomplete_results": False, "items": [
            {"path": "CLAUDE.md", "sha": "abc", "repository": {"full_name": "acme/secret", "private": True}}]}

    client._api = api
    [hit] = client.search_code("filename:CLAUDE.md").hits
    assert hit.private and sent == [None]  # asked without validators, answered in full
