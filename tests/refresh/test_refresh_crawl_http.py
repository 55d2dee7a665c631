"""A refresh crawl over real HTTP to the emulator (profile github): conditional requests and the previous frontier.

One generated snapshot, one platform (claude: queries large enough to be checked and lossy), crawled once into
the corpus; then re-crawled into fresh folders with the corpus as ``previous``.
"""

from __future__ import annotations

import json

from aac.core.platforms import platform_of
from aac.core.ids import artifact_id
from aac.refresh.versioning import merge_incoming
from aac.core.store import Corpus
from tests.refresh.emulator_http import counted_crawl, serving

TOKEN = "ghp_refreshTestToken0123456789abcdef"
PLATFORM = "claude"
SNAPSHOT, EMULATOR_SEED = (3000, 7), 3  # the module's ``first`` crawl (tests/refresh/conftest.py)


def _found(corpus: Corpus) -> set[tuple[str, str]]:
    return {(r["repo"], r["path"]) for r in corpus.sql("select repo, path from artifacts").to_pylist()}


def _expected(records: list[dict]) -> set[tuple[str, str]]:
    return {(r["repo"], r["path"]) for r in records
            if platform_of(r["path"]) == PLATFORM and len(r["content"].encode("utf-8")) < 384 * 1024}


def _crawl(srv, corpus: Corpus, previous: Corpus | None = None):
    return counted_crawl(srv, corpus, TOKEN, PLATFORM, previous)


def test_unchanged_refresh_spends_no_core_quota_few_graphql_points_and_fewer_searches_for_the_same_set(first):
    srv, records, main, s1, e1, root = first
    assert _found(main) == _expected(records)
    assert s1.not_modified == 0 and e1["not_modified"] == 0
    assert s1.checks > 0  # the first crawl had to verify (and so seed) large leaves

    again = Corpus(root / "again")
    s2, e2 = _crawl(srv, again, previous=main)
    assert _found(again) == _found(main)
    # every conditional answer the emulator gave as 304 was reused by the client, and nothing else was
    assert e2["not_modified"] == s2.not_modified > 0
    # repository metadata comes in GraphQL batches (no core request); GraphQL has no ETags, so a refresh asks
    # again, but with about one request per written leaf instead of one (free 304) request per repository
    repos = main.sql("select count(*) as n from repos").to_pylist()[0]["n"]
    assert s1.core_requests == 0 and 0 < s1.graphql_requests * 10 < repos
    core_spent_refresh = s2.core_requests - (s2.not_modified - s2.search_not_modified)
    assert core_spent_refresh == 0 and 0 < s2.graphql_requests * 10 < repos
    # the frontier seeds skip the root probes, splits and checks of the first crawl
    assert s2.search_requests < s1.search_requests and s2.splits == 0 and s2.checks == 0
    # the refreshed rows equal the first crawl's (content, hashes, licences), whichever requests gave them
    cols = "artifact_id, blob_sha, commit_sha, content_sha256, license_spdx, content"
    assert (again.sql(f"select {cols} from artifacts order by 1").to_pylist()
            == main.sql(f"select {cols} from artifacts order by 1").to_pylist())
    cache = main.read("http_cache").to_pylist()
    assert cache and all(r["etag"] for r in cache)
    assert not any(TOKEN in json.dumps(r, default=str) for r in cache)


def test_refresh_after_edits_finds_every_file_and_the_changelog_names_exactly_the_changes(first, tmp_path):
    srv, records, main, _, _, root = first
    mine = sorted(_expected(records))
    edited, gone = set(mine[:3]), mine[3]
    new = [dict(r, path=r["path"].replace("CLAUDE.md", "sub/CLAUDE.md")) for r in records
           if (r["repo"], r["path"]) in set(mine[10:12]) and r["path"].endswith("CLAUDE.md")]
    assert new, "the snapshot has CLAUDE.md files to copy"
    changed = []
    for r in records:
        key = (r["repo"], r["path"])
        if key == gone:
            continue
        changed.append(dict(r, content=r["content"] + "\n- one more rule\n") if key in edited else r)
    changed += new
    with serving(srv, changed, tmp_path, restore=records):
        base = Corpus(root / "base")  # the corpus before the edits, as a refresh would find it
        merge_incoming(base, main, source="first")
        inc = Corpus(root / "after-edits")
        s3, e3 = _crawl(srv, inc, previous=base)
    assert _found(inc) == _expected(changed)
    assert e3["not_modified"] > 0
    report = merge_incoming(base, inc, source="refresh")
    assert (report.added, report.changed, report.removed) == (len(new), 3, 1)
    log = {(r["artifact_id"], r["change"]) for r in base.read("changelog").to_pylist() if r["version"] == report.version}
    assert log == ({(artifact_id(*k), "changed") for k in edited} | {(artifact_id(*gone), "removed")}
                   | {(artifact_id(r["repo"], r["path"]), "added") for r in new})


def test_aac_refresh_graphql_batch_0_asks_repository_metadata_over_rest(first, tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from aac.cli import app

    srv, records, main, *_ = first
    target = Corpus(tmp_path / "copy")
    target.replace("artifacts", main.read("artifacts"))
    target.replace("repos", main.read("repos"))
    monkeypatch.setenv("GITHUB_TOKENS", TOKEN)
    before = srv.stats
    res = CliRunner().invoke(app, ["refresh", "--corpus", str(target.root), "--api-url", srv.url, "-p", PLATFORM,
                                   "--graphql-batch", "0", "--no-process"])
    assert res.exit_code == 0, res.output
    spent = {k: v - before.get(k, 0) for k, v in srv.stats.items() if k != "routes"}
    assert spent["graphql_requests"] == 0 and spent["core_requests"] > 0
    assert "unchanged=" in res.output and TOKEN not in res.output


def test_an_unchanged_refresh_crawl_reports_no_new_files(first):
    """Issue 27 item 13: an unchanged refresh said `400 files (400 new)`: new to its fresh folder, not to the corpus."""
    srv, records, main, s1, _, root = first
    assert s1.new_files == s1.files > 0 and f"({s1.files} new)" in s1.line()  # a first crawl: all new
    s2, _ = _crawl(srv, Corpus(root / "unchanged"), previous=main)
    assert s2.files == s1.files and s2.new_files == 0 and f"{s2.files} files (0 new)" in s2.line()
