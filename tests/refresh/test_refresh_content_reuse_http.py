"""A refresh over real HTTP to the emulator reuses the previous corpus' content for files whose blob sha did not
change: raw downloads drop from one per file to the files that changed."""

from __future__ import annotations

import hashlib

from aac.core.platforms import platform_of
from aac.collectors.reuse import PreviousContent
from aac.core.ids import artifact_id
from aac.core.store import Corpus
from tests.refresh.emulator_http import counted_crawl, serving

TOKEN = "ghp_reuseTestToken0123456789abcdef"
PLATFORM = "cursor"
SNAPSHOT, EMULATOR_SEED = (1500, 11), 5  # the module's ``first`` crawl (tests/refresh/conftest.py)
COLS = "artifact_id, blob_sha, commit_sha, content_sha256, size_bytes, status, drop_reason, content"


def _crawl(srv, corpus: Corpus, previous: Corpus | None = None, **kw):
    return counted_crawl(srv, corpus, TOKEN, PLATFORM, previous, **kw)


def _rows(corpus: Corpus) -> list[dict]:
    return corpus.sql(f"select {COLS} from artifacts order by artifact_id").to_pylist()


def _unverifiable(corpus: Corpus) -> int:
    """Stored rows whose text is not the file's bytes (BOM, replaced bytes): these are downloaded again."""
    return sum(1 for r in _rows(corpus) if r["content"] is not None
               and hashlib.sha256(r["content"].encode("utf-8")).hexdigest() != r["content_sha256"])


def test_unchanged_refresh_downloads_only_what_it_cannot_verify_and_stores_the_same_rows(first):
    srv, _, main, s1, e1, root = first
    collected = main.sql("select count(*) as n from artifacts where content is not null").to_pylist()[0]["n"]
    assert collected > 50 and e1["raw_requests"] >= collected

    s2, e2 = _crawl(srv, Corpus(root / "reused"), previous=main)
    assert s2.reused == collected - _unverifiable(main)
    assert e2["raw_requests"] <= _unverifiable(main) + e2["errors_5xx"]
    assert _rows(Corpus(root / "reused")) == _rows(main)

    s3, e3 = _crawl(srv, Corpus(root / "no-reuse"), previous=main, reuse_content=False)  # as before this change
    assert s3.reused == 0 and e3["raw_requests"] >= collected
    assert _rows(Corpus(root / "no-reuse")) == _rows(main)


def test_an_edited_file_gets_its_new_content_and_the_rest_is_reused(first, tmp_path):
    srv, records, main, _, _, root = first
    mine = sorted((r["repo"], r["path"]) for r in records if platform_of(r["path"]) == PLATFORM)
    edited = set(mine[:2])
    changed = [dict(r, content=r["content"] + "\n- edited rule\n") if (r["repo"], r["path"]) in edited else r
               for r in records]
    with serving(srv, changed, tmp_path, restore=records):
        inc = Corpus(root / "edited")
        s, e = _crawl(srv, inc, previous=main)
    new = {(r["repo"], r["path"]): r["content"] for r in changed if (r["repo"], r["path"]) in edited}
    got = {(r["repo"], r["path"]): r for r in inc.sql("select * from artifacts").to_pylist()}
    old = {r["artifact_id"]: r for r in _rows(main)}
    for key, text in new.items():
        row = got[key]
        assert row["content"] == text and row["status"] == "collected"
        assert row["blob_sha"] != old[artifact_id(*key)]["blob_sha"]
        assert row["content_sha256"] == hashlib.sha256(text.encode("utf-8")).hexdigest()
    assert s.reused == len(got) - len(edited) - _unverifiable(main)
    assert len(edited) <= e["raw_requests"] <= len(edited) + _unverifiable(main) + e["errors_5xx"]


def test_processed_or_unclean_text_is_never_reused(tmp_path):
    """Stored text that does not hash to content_sha256 (processing rewrote it) is not passed off as the file."""
    import pyarrow as pa

    from aac.collectors.crawl import Hit
    from aac.core.schema import ARTIFACTS

    c = Corpus(tmp_path)
    good, redacted = b"- rule one\n", b"token ghp_x\n"
    base = dict(platform="cursor", function=None, html_url=None, license_spdx=None, status="collected",
                drop_reason=None, collected_at=None, commit_sha="c" * 40)
    rows = [dict(base, artifact_id=artifact_id("o/r", p), repo="o/r", path=p, blob_sha=sha, size_bytes=len(raw),
                 content_sha256=hashlib.sha256(raw).hexdigest(), content=text)
            for p, sha, raw, text in ((".cursorrules", "a" * 40, good, good.decode()),
                                      ("x/.cursorrules", "b" * 40, redacted, "token [REDACTED]\n"))]
    c.write_part("artifacts", "p", pa.Table.from_pylist(rows, schema=ARTIFACTS))
    prev = PreviousContent(c)
    hits = [Hit("o/r", ".cursorrules", "a" * 40), Hit("o/r", "x/.cursorrules", "b" * 40),
            Hit("o/r", ".cursorrules", "f" * 40)]  # last: same path, new blob sha
    assert prev.lookup(hits[:2]) == {artifact_id("o/r", ".cursorrules"): good}
    assert prev.lookup(hits[2:]) == {}
    assert (prev.reused, prev.rejected) == (1, 1)
    prev.close()
