"""A corpus installed by `aac pull` has no ``raw_artifacts``: processing and refreshing it must start from the
pulled rows (issue 27, item 4), never rebuild its tables from the empty raw table."""

from __future__ import annotations

import hashlib

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from aac.collectors.emulator import generate_snapshot
from aac.hub.publish import build_hub_folder
from aac.hub.pull import install_snapshot
from aac.processing.pipeline import run
from aac.processing.records import load_records
from aac.refresh.versioning import merge_incoming
from aac.core.store import Corpus


def crawled(corpus: Corpus, records: list[dict]) -> Corpus:
    """The records stored as a crawl stores them: with the git blob sha GitHub reports (what a refresh compares)."""
    load_records(corpus, records)
    arts = corpus.read("artifacts")
    blobs = [None if c is None else hashlib.sha1(b"blob %d\0" % len(c.encode()) + c.encode()).hexdigest()
             for c in arts.column("content").to_pylist()]
    corpus.replace("artifacts", arts.set_column(arts.schema.get_field_index("blob_sha"), "blob_sha",
                                                pa.array(blobs, pa.string())))
    return corpus


@pytest.fixture(scope="module")
def release(tmp_path_factory):
    """A processed corpus and the Hub folder published from it (the release a user pulls)."""
    root = tmp_path_factory.mktemp("release")
    records = list(generate_snapshot(60, 7))
    source = crawled(Corpus(root / "source"), records)
    run(source)
    build_hub_folder(source, root / "hub", validate=False)
    return records, source, root / "hub"


def _pulled(tmp_path, hub) -> Corpus:
    corpus = Corpus(tmp_path / "pulled")
    install_snapshot(hub, corpus)
    assert not corpus.exists("raw_artifacts")
    return corpus


def _items(corpus: Corpus) -> list[tuple]:
    return sorted(tuple(r.values()) for r in corpus.sql("SELECT item_id, text, type FROM items").to_pylist())


def test_process_of_a_pulled_corpus_keeps_every_artifact_and_item(tmp_path, release):
    _, source, hub = release
    corpus = _pulled(tmp_path, hub)
    pulled = (corpus.count("artifacts"), corpus.count("items"))
    assert pulled[0] > 20 and pulled[1] > 100
    report = run(corpus)
    assert (corpus.count("artifacts"), corpus.count("items")) == pulled
    assert report.kept == pulled[0]
    assert _items(corpus) == sorted(tuple(r.values()) for r in source.sql(
        "SELECT item_id, text, type FROM publishable_items").to_pylist())
    run(corpus)  # and again: now from its own raw rows
    assert (corpus.count("artifacts"), corpus.count("items")) == pulled


def test_refresh_of_a_pulled_corpus_keeps_the_release_and_adds_what_is_new(tmp_path, release):
    records, source, hub = release
    corpus = _pulled(tmp_path, hub)
    pulled_ids = set(corpus.read("artifacts", columns=["artifact_id"]).column("artifact_id").to_pylist())
    pulled_items = corpus.count("items")
    crawl = Corpus(tmp_path / "crawl")  # the same files crawled again, one of them gone upstream
    gone = next(r for r in records if (r["repo"], r["path"]) in
                {(a["repo"], a["path"]) for a in corpus.read("artifacts").to_pylist()})
    crawled(crawl, [r for r in records if r is not gone])
    report = merge_incoming(corpus, crawl)
    assert (report.removed, report.changed, report.unchanged) == (1, 0, len(pulled_ids) - 1)
    run(corpus)
    arts = corpus.read("artifacts")
    ids = set(arts.column("artifact_id").to_pylist())
    assert pulled_ids <= ids and len(ids) == len({(r["repo"], r["path"]) for r in records})
    removed = arts.filter(pc.equal(arts.column("status"), "removed"))
    assert removed.num_rows == 1 and removed.column("repo").to_pylist() == [gone["repo"]]
    kept = arts.filter(pc.equal(arts.column("status"), "kept")).num_rows
    assert kept == source.sql("SELECT count(*) AS n FROM artifacts WHERE status = 'kept'").to_pylist()[0]["n"] - 1
    assert pulled_items > corpus.count("items") > 0.8 * pulled_items  # only the removed file's items went
    live = corpus.sql("SELECT live_artifacts FROM versions").to_pylist()[-1]["live_artifacts"]
    assert live == corpus.sql("SELECT count(*) AS n FROM artifacts WHERE removed_at IS NULL").to_pylist()[0]["n"]
