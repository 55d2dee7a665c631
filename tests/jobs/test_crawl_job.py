"""The crawl job: options refused before any work, and the per-platform stages (the flow's tasks) crawl the same
files as one in-process run."""

from __future__ import annotations

import pytest

from aac.core.store import Corpus
from aac.jobs.crawl import BadCrawlOption, CrawlOptions, CrawlStages, crawl, platform_stage

PLATFORMS = ("claude", "cursor")


@pytest.mark.parametrize("options, message", [
    (dict(platforms=("no-such-platform",)), "no-such-platform"),
    (dict(local="missing-folder"), "not a folder"),
    (dict(api_url="ftp://example.org"), "http:// or https://"),
])
def test_bad_options_are_refused_before_anything_is_written(tmp_path, options, message):
    target = tmp_path / "c"
    options = {k: tmp_path / v if k == "local" else v for k, v in options.items()}
    with pytest.raises(BadCrawlOption, match=message):
        crawl(CrawlOptions(corpus=target, **options))
    assert not Corpus(target).exists("artifacts")


def test_a_file_as_the_corpus_is_refused(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(BadCrawlOption, match="a file, not a folder"):
        crawl(CrawlOptions(corpus=tmp_path / "file"))


def test_per_platform_stages_crawl_what_one_run_crawls(tmp_path, monkeypatch):
    from aac.collectors.emulator import EmulatorServer, generate_snapshot

    monkeypatch.setenv("GITHUB_TOKEN", "ghp_jobTestToken_0123456789")
    records = list(generate_snapshot(80, 4))
    with EmulatorServer(records, profile="ideal", seed=2) as server:
        one = crawl(CrawlOptions(corpus=tmp_path / "one", api_url=server.url, platforms=PLATFORMS))
        each = crawl(CrawlOptions(corpus=tmp_path / "each", api_url=server.url, platforms=PLATFORMS),
                     stages=CrawlStages(platform=platform_stage))
    expected = {p: sum(r["platform"] == p for r in records) for p in PLATFORMS}
    assert one.platforms == each.platforms == expected
    assert [r["platform"] for r in each.rows] == list(PLATFORMS) and one.summary["files"] == sum(expected.values())
    ids = [set(Corpus(tmp_path / name).read("artifacts").column("artifact_id").to_pylist()) for name in ("one", "each")]
    assert ids[0] == ids[1] and len(ids[0]) == sum(expected.values())
    assert one.line().startswith("crawl: ") and each.line() == f"{sum(expected.values())} files over 2 platforms"
    assert "ghp_jobTestToken" not in str(one.to_dict()) + str(each.to_dict())
