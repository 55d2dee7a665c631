"""Refresh as corpus versions: changelog per change, tombstones, and only new/changed artifacts processed."""

from __future__ import annotations

import datetime as dt

import pyarrow as pa
import pytest

from aac.core.ids import artifact_id
from aac.refresh.versioning import PENDING, apply_refresh, plan_refresh
from aac.core.schema import ITEMS

T1 = dt.datetime(2026, 11, 1, tzinfo=dt.timezone.utc)
T2 = dt.datetime(2026, 11, 8, tzinfo=dt.timezone.utc)

FILES_V1 = {("a/x", "CLAUDE.md", "claude"): "- rule one", ("a/x", "AGENTS.md", "agents"): "- agents rule",
            ("b/y", ".cursorrules", "cursor"): "- cursor rule", ("c/z", "CLAUDE.md", "claude"): "- will vanish"}


def crawl(files: dict) -> pa.Table:
    return pa.Table.from_pylist([dict(artifact_id=artifact_id(r, p), repo=r, path=p, platform=pl, content=c)
                                 for (r, p, pl), c in files.items()])


class RecordingProcessor:
    """Processes rows the simplest real way (kept + one item per line) and records which ids it saw."""

    def __init__(self):
        self.seen: list[str] = []

    def __call__(self, raw: pa.Table) -> dict[str, pa.Table]:
        self.seen += raw.column("artifact_id").to_pylist()
        arts = raw.append_column("status", pa.array(["kept"] * raw.num_rows))
        items = [dict(item_id=f"{r['artifact_id']}:{i}", artifact_id=r["artifact_id"], ordinal=i, text=line)
                 for r in raw.to_pylist() for i, line in enumerate(r["content"].splitlines())]
        return {"artifacts": arts, "items": pa.Table.from_pylist(items, schema=ITEMS)}


def _v2_files():
    files = dict(FILES_V1)
    files[("a/x", "CLAUDE.md", "claude")] = "- rule one, edited\n- and a second rule"  # edit
    del files[("c/z", "CLAUDE.md", "claude")]  # delete
    files[("d/w", ".windsurfrules", "windsurf")] = "- brand new"  # add
    return files


def test_refresh_after_add_edit_delete_yields_the_right_changelog(corpus):
    apply_refresh(corpus, crawl(FILES_V1), RecordingProcessor(), now=T1)
    report = apply_refresh(corpus, crawl(_v2_files()), RecordingProcessor(), now=T2)
    assert (report.version, report.added, report.changed, report.removed, report.unchanged) == (2, 1, 1, 1, 2)
    log = corpus.sql("SELECT platform, change, repo FROM changelog WHERE version = 2 ORDER BY change").to_pylist()
    assert log == [{"platform": "windsurf", "change": "added", "repo": "d/w"},
                   {"platform": "claude", "change": "changed", "repo": "a/x"},
                   {"platform": "claude", "change": "removed", "repo": "c/z"}]
    assert report.per_platform == {"windsurf": {"added": 1, "changed": 0, "removed": 0},
                                   "claude": {"added": 0, "changed": 1, "removed": 1}}
    versions = corpus.sql("SELECT version, added, changed, removed, live_artifacts FROM versions ORDER BY 1").to_pylist()
    assert versions == [dict(version=1, added=4, changed=0, removed=0, live_artifacts=4),
                        dict(version=2, added=1, changed=1, removed=1, live_artifacts=4)]


def test_only_new_and_changed_artifacts_are_reprocessed(corpus):
    apply_refresh(corpus, crawl(FILES_V1), RecordingProcessor(), now=T1)
    proc = RecordingProcessor()
    apply_refresh(corpus, crawl(_v2_files()), proc, now=T2)
    assert sorted(proc.seen) == sorted([artifact_id("a/x", "CLAUDE.md"), artifact_id("d/w", ".windsurfrules")])
    items = corpus.sql(f"SELECT text FROM items WHERE artifact_id = '{artifact_id('a/x', 'CLAUDE.md')}' ORDER BY ordinal")
    assert items.column("text").to_pylist() == ["- rule one, edited", "- and a second rule"]  # stale items replaced
    untouched = corpus.sql(f"SELECT count(*) AS n FROM items WHERE artifact_id = '{artifact_id('b/y', '.cursorrules')}'")
    assert untouched.column("n")[0].as_py() == 1


def test_vanished_file_gets_a_tombstone_not_a_deletion_and_can_come_back(corpus):
    apply_refresh(corpus, crawl(FILES_V1), RecordingProcessor(), now=T1)
    apply_refresh(corpus, crawl(_v2_files()), RecordingProcessor(), now=T2)
    gone = artifact_id("c/z", "CLAUDE.md")
    row = corpus.sql(f"SELECT status, removed_at, content FROM artifacts WHERE artifact_id = '{gone}'").to_pylist()
    assert row == [{"status": "removed", "removed_at": T2, "content": "- will vanish"}]
    assert corpus.sql(f"SELECT count(*) AS n FROM items WHERE artifact_id = '{gone}'").column("n")[0].as_py() == 1
    report = apply_refresh(corpus, crawl(FILES_V1), RecordingProcessor(), now=T2 + dt.timedelta(days=7))
    assert gone in [r["artifact_id"] for r in corpus.sql(
        "SELECT artifact_id FROM changelog WHERE version = 3 AND change = 'added'").to_pylist()]
    assert report.removed == 1  # the windsurf file is gone again


def test_a_file_still_gone_keeps_its_first_tombstone_and_is_not_removed_again(corpus):
    apply_refresh(corpus, crawl(FILES_V1), RecordingProcessor(), now=T1)
    apply_refresh(corpus, crawl(_v2_files()), RecordingProcessor(), now=T2)
    gone = artifact_id("c/z", "CLAUDE.md")
    report = apply_refresh(corpus, crawl(_v2_files()), RecordingProcessor(), now=T2 + dt.timedelta(days=7))
    assert (report.version, report.added, report.changed, report.removed, report.unchanged) == (2, 0, 0, 0, 4)
    assert not report.recorded  # nothing changed: no version 3
    assert corpus.sql("SELECT count(*) AS n FROM changelog WHERE version = 3").column("n")[0].as_py() == 0
    row = corpus.sql(f"SELECT status, removed_at FROM artifacts WHERE artifact_id = '{gone}'").to_pylist()
    assert row == [{"status": "removed", "removed_at": T2}]  # the first removal's time, not re-stamped


def test_an_unchanged_crawl_records_no_version_and_processes_nothing(corpus):
    apply_refresh(corpus, crawl(FILES_V1), RecordingProcessor(), now=T1)
    proc = RecordingProcessor()
    report = apply_refresh(corpus, crawl(FILES_V1), proc, now=T2)
    assert proc.seen == [] and (report.added, report.changed, report.removed, report.unchanged) == (0, 0, 0, 4)
    assert (report.version, report.recorded) == (1, False)  # version 1 stays the latest
    assert corpus.sql("SELECT version, unchanged FROM versions").to_pylist() == [dict(version=1, unchanged=0)]
    assert corpus.sql("SELECT count(*) AS n FROM changelog WHERE version = 2").column("n")[0].as_py() == 0
    report = apply_refresh(corpus, crawl(_v2_files()), proc, now=T2 + dt.timedelta(days=7))
    assert (report.version, report.recorded) == (2, True)  # the next change is the next number, no gap


@pytest.mark.parametrize("first_crawl", [{}, FILES_V1])
def test_the_first_refresh_of_a_corpus_without_versions_records_version_1_as_its_baseline(corpus, first_crawl):
    """Chosen behaviour: version 1 is recorded even when it changes nothing (an empty corpus finding nothing, or a
    corpus pulled or crawled before any refresh), so every later changelog counts from a recorded version."""
    if first_crawl:
        corpus.replace("artifacts", crawl(first_crawl).append_column("status", pa.array(["kept"] * len(first_crawl))))
    report = apply_refresh(corpus, crawl(first_crawl) if first_crawl else crawl(FILES_V1).slice(0, 0), None, now=T1)
    assert (report.version, report.recorded, report.added) == (1, True, 0)
    assert corpus.sql("SELECT version, unchanged, live_artifacts FROM versions").to_pylist() == [
        dict(version=1, unchanged=len(first_crawl), live_artifacts=len(first_crawl))]


def test_an_unchanged_refresh_still_adopts_the_crawls_frontier_validators_and_repository_metadata(tmp_path):
    """No version, but the bookkeeping of the crawl is kept: the next refresh is seeded from this crawl's frontier,
    sends this crawl's validators and sees the repositories as fetched now."""
    from aac.refresh.versioning import merge_incoming
    from aac.core.schema import CRAWL_QUERIES, HTTP_CACHE, REPOS
    from aac.core.store import Corpus

    def incoming(name: str, at: dt.datetime) -> Corpus:
        inc = Corpus(tmp_path / name)
        inc.replace("artifacts", crawl(FILES_V1))
        inc.replace("repos", pa.Table.from_pylist([dict(full_name=r, stars=1, fetched_at=at)
                                                   for r in sorted({k[0] for k in FILES_V1})], schema=REPOS))
        inc.replace("crawl_queries", pa.Table.from_pylist([dict(
            query_id=f"q:{name}", platform="claude", query="filename:CLAUDE.md", size_lo=0, size_hi=100,
            fetched=2, state="done", updated_at=at)], schema=CRAWL_QUERIES))
        inc.replace("http_cache", pa.Table.from_pylist([dict(key=f"k:{name}", resource="search", etag=f'"{name}"',
                                                             fetched_at=at)], schema=HTTP_CACHE))
        return inc

    main = Corpus(tmp_path / "main")
    merge_incoming(main, incoming("first", T1), source="first")
    report = merge_incoming(main, incoming("again", T2), source="again")
    assert (report.version, report.recorded, report.unchanged) == (1, False, 4)
    assert main.sql("SELECT version FROM versions").to_pylist() == [{"version": 1}]
    assert main.sql("SELECT query_id, updated_at FROM crawl_queries").to_pylist() == [
        dict(query_id="q:again", updated_at=T2)]
    assert sorted(main.read("http_cache").column("key").to_pylist()) == ["k:again", "k:first"]
    assert set(main.read("repos").column("fetched_at").to_pylist()) == {T2}


def test_without_a_processor_changed_rows_wait_as_pending_with_their_stale_items_gone(corpus):
    apply_refresh(corpus, crawl(FILES_V1), RecordingProcessor(), now=T1)
    apply_refresh(corpus, crawl(_v2_files()), None, now=T2)
    pending = corpus.sql(f"SELECT repo FROM artifacts WHERE status = '{PENDING}' ORDER BY repo").column("repo").to_pylist()
    assert pending == ["a/x", "d/w"]
    assert corpus.sql(f"SELECT count(*) AS n FROM items WHERE artifact_id = '{artifact_id('a/x', 'CLAUDE.md')}'"
                      ).column("n")[0].as_py() == 0


def test_blob_sha_is_preferred_over_content_for_change_detection():
    old = pa.table({"artifact_id": ["1"], "blob_sha": ["abc"], "content": ["[REDACTED:aws_access_key]"],
                    "removed_at": pa.array([None], pa.timestamp("us", tz="UTC"))})
    new = pa.table({"artifact_id": ["1"], "blob_sha": ["abc"], "content": ["AKIA... raw"]})
    assert plan_refresh(old, new).unchanged == ("1",)


def test_aac_refresh_command_reports_the_version_and_per_platform_changes(tmp_path):
    from typer.testing import CliRunner

    from aac.cli import app
    from aac.core.store import Corpus

    main, incoming = Corpus(tmp_path / "main"), Corpus(tmp_path / "in")
    incoming.replace("artifacts", crawl(FILES_V1))
    res = CliRunner().invoke(app, ["refresh", "--corpus", str(main.root), "--incoming", str(incoming.root),
                                   "--no-process"])
    assert res.exit_code == 0, res.output
    assert "version 1: added=4 changed=0 removed=0 unchanged=0" in res.output and "claude: added=2" in res.output
    res = CliRunner().invoke(app, ["refresh", "--corpus", str(main.root), "--incoming", str(incoming.root),
                                   "--no-process"])  # the same crawl again: nothing changed upstream
    assert res.exit_code == 0, res.output
    assert "no change: the corpus stays at version 1 (unchanged=4)" in res.output
    assert (incoming.root / ".merged").exists()  # the run is still marked merged
    res = CliRunner().invoke(app, ["refresh", "--corpus", str(main.root), "--incoming", str(tmp_path / "nothing")])
    assert res.exit_code == 1 and "crawl into it first" in " ".join(res.output.split())


def test_hashes_are_compared_with_the_raw_crawl_rows_not_the_redacted_ones(corpus):
    raw = crawl(FILES_V1)
    corpus.replace("raw_artifacts", raw)  # what processing keeps: original content
    processed = raw.set_column(raw.schema.get_field_index("content"), "content",
                               pa.array(["[REDACTED:x]"] * raw.num_rows))
    corpus.replace("artifacts", processed.append_column("status", pa.array(["kept"] * raw.num_rows)))
    report = apply_refresh(corpus, crawl(FILES_V1), None, now=T2)
    assert (report.added, report.changed, report.removed, report.unchanged) == (0, 0, 0, 4)


def test_a_crawl_of_some_platforms_removes_nothing_of_the_others(corpus):
    apply_refresh(corpus, crawl(FILES_V1), RecordingProcessor(), now=T1)
    only_cursor = {k: v for k, v in FILES_V1.items() if k[2] == "cursor"}  # a crawl of one platform, all unchanged
    report = apply_refresh(corpus, crawl(only_cursor), RecordingProcessor(), now=T2, covered={"cursor"})
    assert (report.added, report.changed, report.removed, report.unchanged) == (0, 0, 0, 1)
    assert report.unjudged == ("agents", "claude")
    assert corpus.sql("SELECT count(*) AS n FROM artifacts WHERE status = 'removed'").column("n")[0].as_py() == 0
    # on a covered platform a vanished file is still removed
    nothing = crawl(FILES_V1).slice(0, 0)
    report = apply_refresh(corpus, nothing, RecordingProcessor(), now=T2, covered={"cursor"})
    assert report.removed == 1 and report.unjudged == ("agents", "claude")


def test_plan_judges_removal_only_on_covered_platforms():
    old = crawl(FILES_V1)
    nothing = old.slice(0, 0)
    plan = plan_refresh(old, nothing, covered={"claude"})
    assert set(plan.removed) == {artifact_id("a/x", "CLAUDE.md"), artifact_id("c/z", "CLAUDE.md")}
    assert len(plan_refresh(old, nothing).removed) == 4  # None: the crawl covered every platform


def test_covered_platforms_are_those_whose_every_query_was_swept_whole(tmp_path):
    from aac.collectors.collect import covered_platforms, platform_queries
    from aac.collectors.partition import MAX_INDEXED
    from aac.core.schema import CRAWL_QUERIES
    from aac.core.store import Corpus

    inc = Corpus(tmp_path / "inc")
    assert covered_platforms(inc) is None  # no frontier (a local collection): every platform
    rows = []
    for platform, query in platform_queries(["claude", "cursor"]):
        cut = MAX_INDEXED if platform == "claude" else 1000  # cursor's sweep stopped at 1000 bytes
        rows.append(dict(query_id=f"{query}:0", platform=platform, query=query, size_lo=0, size_hi=cut,
                         fetched=5, state="done"))
    inc.replace("crawl_queries", pa.Table.from_pylist(rows, schema=CRAWL_QUERIES))
    assert covered_platforms(inc) == {"claude"}
    for flag in ("incomplete", "saturated"):  # a leaf search did not list whole: its platform is not swept whole
        flagged = [dict(r, **{flag: r["platform"] == "claude"}) for r in rows]
        inc.replace("crawl_queries", pa.Table.from_pylist(flagged, schema=CRAWL_QUERIES))
        assert covered_platforms(inc) == set()


def test_aac_refresh_with_platform_leaves_the_other_platforms_alone(tmp_path):
    from typer.testing import CliRunner

    from aac.cli import app
    from aac.core.store import Corpus

    main, first, second = Corpus(tmp_path / "main"), Corpus(tmp_path / "in1"), Corpus(tmp_path / "in2")
    first.replace("artifacts", crawl(FILES_V1))
    second.replace("artifacts", crawl({k: v for k, v in FILES_V1.items() if k[2] == "claude"}))
    for inc, extra in ((first, []), (second, ["--platform", "claude"])):
        res = CliRunner().invoke(app, ["refresh", "--corpus", str(main.root), "--incoming", str(inc.root),
                                       "--no-process", *extra])
        assert res.exit_code == 0, res.output
    assert "no change: the corpus stays at version 1 (unchanged=2)" in res.output
    assert "not judged for removal" in res.output
    assert main.sql("SELECT count(*) AS n FROM artifacts WHERE status = 'removed'").column("n")[0].as_py() == 0


def test_a_relicensed_file_with_the_same_content_is_changed_and_processed_again(corpus):
    def licensed(spdx):
        t = crawl(FILES_V1)
        return t.append_column("license_spdx", pa.array([spdx] * t.num_rows, pa.string()))

    apply_refresh(corpus, licensed("MIT"), RecordingProcessor(), now=T1)
    proc = RecordingProcessor()
    report = apply_refresh(corpus, licensed("GPL-3.0"), proc, now=T2)
    assert (report.changed, report.unchanged) == (4, 0) and len(proc.seen) == 4
    assert set(corpus.sql("SELECT license_spdx FROM artifacts").column("license_spdx").to_pylist()) == {"GPL-3.0"}
    # metadata that did not come (no licence) is not a relicence
    report = apply_refresh(corpus, licensed(None), RecordingProcessor(), now=T2 + dt.timedelta(days=1))
    assert (report.changed, report.unchanged) == (0, 4)


def test_a_refresh_resumes_the_last_unmerged_run_of_the_day_and_never_a_merged_or_old_one(tmp_path):
    import os
    import time

    from aac.refresh import mark_merged, run_folder

    first, resumed = run_folder(tmp_path)
    assert not resumed
    again, resumed = run_folder(tmp_path)  # the first was killed before its merge
    assert resumed and again == first
    mark_merged(first)
    fresh, resumed = run_folder(tmp_path)
    assert not resumed and fresh != first
    old = time.time() - 2 * 24 * 3600
    os.utime(fresh / ".started", (old, old))  # unmerged but two days old: its finished ranges are too stale to keep
    newest, resumed = run_folder(tmp_path)
    assert not resumed and newest not in (first, fresh)
    # the crawl copies left behind are pruned: the stale unmerged one, and every merged one but the newest
    assert first.exists() and not fresh.exists()
    mark_merged(newest)
    latest, _ = run_folder(tmp_path)
    assert newest.exists() and not first.exists() and latest.exists()


def test_a_run_folder_made_before_run_markers_is_never_resumed(tmp_path):
    from aac.refresh import run_folder

    legacy = tmp_path / "refresh-runs" / "20990101T000000Z"  # sorts last, unmerged, but no start marker
    legacy.mkdir(parents=True)
    folder, resumed = run_folder(tmp_path)
    assert not resumed and folder != legacy


def _merge_dying_at(corpus, monkeypatch, table: str, files: dict) -> None:
    """A merge of ``files`` that fails (a full disk) when it writes ``table``, whichever way it writes it."""
    from aac.core.store import Corpus

    real = {"replace": Corpus.replace, "upsert": Corpus.upsert}

    def dying(kind):
        def write(self, name, *a, **kw):
            if name == table:
                raise OSError(f"disk full while writing {name}")
            return real[kind](self, name, *a, **kw)
        return write

    with monkeypatch.context() as patched:
        patched.setattr(Corpus, "replace", dying("replace"))
        patched.setattr(Corpus, "upsert", dying("upsert"))
        with pytest.raises(OSError):
            apply_refresh(corpus, crawl(files), None, now=T2)


@pytest.mark.parametrize("dies_at", ["items", "versions"])
def test_a_merge_stopped_before_its_version_row_is_run_again_as_that_version_with_its_changes(corpus, monkeypatch,
                                                                                              dies_at):
    """Killed (or failed) after the changelog and artifacts writes, a rerun's plan sees the merged rows as unchanged;
    the version still reports and records the changes its changelog holds."""
    apply_refresh(corpus, crawl(FILES_V1), RecordingProcessor(), now=T1)  # v1 has items the edit makes stale
    _merge_dying_at(corpus, monkeypatch, dies_at, _v2_files())
    report = apply_refresh(corpus, crawl(_v2_files()), None, now=T2)
    assert (report.version, report.added, report.changed, report.removed) == (2, 1, 1, 1)
    assert corpus.sql("SELECT added, changed, removed FROM versions WHERE version = 2").to_pylist() == [
        dict(added=1, changed=1, removed=1)]
    assert report.per_platform["claude"] == {"added": 0, "changed": 1, "removed": 1}


def test_a_second_refresh_of_a_corpus_is_refused_while_one_runs(tmp_path):
    import subprocess
    import sys

    from aac.core.corpus_lock import corpus_lock

    with corpus_lock(tmp_path, "aac refresh"):
        probe = ("import sys\nfrom aac.core.corpus_lock import CorpusLocked, corpus_lock\ntry:\n"
                 f"    with corpus_lock({str(tmp_path)!r}, 'aac refresh', wait_s=0):\n        sys.exit(0)\n"
                 "except CorpusLocked as exc:\n    print(exc)\n    sys.exit(3)\n")
        other = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
        assert other.returncode == 3 and "in use by pid" in other.stdout and "aac refresh" in other.stdout
    with corpus_lock(tmp_path, "aac refresh", wait_s=0):  # released at the end (and by the kernel if the holder dies)
        pass


def test_what_a_stopped_merge_logged_but_never_applied_is_not_counted_when_the_crawl_changed_since(corpus,
                                                                                                   monkeypatch):
    apply_refresh(corpus, crawl(FILES_V1), RecordingProcessor(), now=T1)
    seen_then = dict(FILES_V1)
    seen_then[("d/w", ".windsurfrules", "windsurf")] = "- brand new"  # the first attempt sees an addition ...
    _merge_dying_at(corpus, monkeypatch, "artifacts", seen_then)
    report = apply_refresh(corpus, crawl(FILES_V1), None, now=T2)  # ... gone again before the rerun
    assert (report.version, report.added, report.changed, report.removed, report.unchanged) == (1, 0, 0, 0, 4)
    assert not report.recorded  # the corpus is version 1 again: no empty version 2
    assert corpus.sql("SELECT count(*) AS n FROM changelog WHERE version = 2").to_pylist() == [{"n": 0}]
    assert corpus.sql("SELECT max(version) AS v FROM versions").to_pylist() == [{"v": 1}]


def test_items_a_stopped_merge_left_beside_new_content_are_dropped_by_the_rerun(corpus, monkeypatch):
    apply_refresh(corpus, crawl(FILES_V1), RecordingProcessor(), now=T1)
    _merge_dying_at(corpus, monkeypatch, "items", _v2_files())
    apply_refresh(corpus, crawl(_v2_files()), None, now=T2)
    edited = artifact_id("a/x", "CLAUDE.md")
    assert corpus.sql(f"SELECT count(*) AS n FROM items WHERE artifact_id = '{edited}'").to_pylist() == [{"n": 0}]
    assert corpus.sql(f"SELECT status FROM artifacts WHERE artifact_id = '{edited}'").to_pylist() == [
        {"status": PENDING}]  # waits for processing, which itemises its new content


def _log(corpus, version: int) -> dict[str, tuple]:
    """repo -> (change, old_hash, new_hash) of ``version``'s changelog."""
    return {r["repo"]: (r["change"], r["old_hash"], r["new_hash"]) for r in corpus.sql(
        f"SELECT repo, change, old_hash, new_hash FROM changelog WHERE version = {version}").to_pylist()}


def _hash(text: str) -> str:
    from aac.refresh.versioning import content_key

    return content_key({"content": text})


EDITED, GONE, NEW = ("a/x", "CLAUDE.md", "claude"), ("c/z", "CLAUDE.md", "claude"), ("d/w", ".windsurfrules", "windsurf")


def _v3_files():
    """The v2 crawl edited again upstream: the edited file and the new file both changed once more."""
    files = _v2_files()
    files[EDITED], files[NEW] = "- rule one, edited twice", "- brand new, already edited"
    return files


@pytest.mark.parametrize("dies_at", ["changelog", "artifacts", "items", "versions"])
def test_a_rerun_after_the_crawl_changed_again_logs_the_hashes_of_the_version_before(corpus, monkeypatch, dies_at):
    """The rerun's old hashes and kinds of change are against version 1, not against what the stopped attempt had
    already merged (which made the edited file's old hash the first attempt's new one, and the new file 'changed')."""
    apply_refresh(corpus, crawl(FILES_V1), RecordingProcessor(), now=T1)
    _merge_dying_at(corpus, monkeypatch, dies_at, _v2_files())
    report = apply_refresh(corpus, crawl(_v3_files()), None, now=T2)
    v3 = _v3_files()
    assert _log(corpus, 2) == {"a/x": ("changed", _hash(FILES_V1[EDITED]), _hash(v3[EDITED])),
                               "c/z": ("removed", _hash(FILES_V1[GONE]), None),
                               "d/w": ("added", None, _hash(v3[NEW]))}
    assert (report.version, report.added, report.changed, report.removed, report.unchanged) == (2, 1, 1, 1, 2)
    assert corpus.sql("SELECT added, changed, removed FROM versions WHERE version = 2").to_pylist() == [
        dict(added=1, changed=1, removed=1)]
    live = corpus.sql("SELECT repo, path, content FROM artifacts WHERE removed_at IS NULL").to_pylist()
    assert {(r["repo"], r["path"]): r["content"] for r in live} == {(r, p): c for (r, p, _), c in v3.items()}


def test_a_change_undone_upstream_before_the_rerun_is_not_logged_and_the_corpus_is_put_back(corpus, monkeypatch):
    apply_refresh(corpus, crawl(FILES_V1), RecordingProcessor(), now=T1)
    _merge_dying_at(corpus, monkeypatch, "items", _v2_files())  # the edit and the removal are merged ...
    undone = _v2_files()
    undone[EDITED], undone[GONE] = FILES_V1[EDITED], FILES_V1[GONE]  # ... then both undone upstream
    report = apply_refresh(corpus, crawl(undone), None, now=T2)
    assert _log(corpus, 2) == {"d/w": ("added", None, _hash(undone[NEW]))}  # against version 1, only the addition
    assert (report.added, report.changed, report.removed, report.unchanged) == (1, 0, 0, 4)
    back = corpus.sql("SELECT repo, content, removed_at FROM artifacts WHERE repo IN ('a/x', 'c/z') "
                      "AND path = 'CLAUDE.md' ORDER BY repo").to_pylist()
    assert back == [dict(repo="a/x", content=FILES_V1[EDITED], removed_at=None),
                    dict(repo="c/z", content=FILES_V1[GONE], removed_at=None)]


def test_an_addition_a_stopped_merge_made_and_upstream_undid_leaves_no_trace(corpus, monkeypatch):
    apply_refresh(corpus, crawl(FILES_V1), RecordingProcessor(), now=T1)
    _merge_dying_at(corpus, monkeypatch, "versions", _v2_files())  # the new file is merged, no version row yet
    report = apply_refresh(corpus, crawl(dict(FILES_V1)), None, now=T2)  # ... then upstream is back at version 1
    assert not report.recorded and report.version == 1
    assert _log(corpus, 2) == {}
    new = artifact_id(*NEW[:2])
    for table in ("artifacts", "items"):  # not a tombstone that no changelog row explains
        assert corpus.sql(f"SELECT count(*) AS n FROM {table} WHERE artifact_id = '{new}'").to_pylist() == [{"n": 0}]


def test_the_hashes_before_the_version_survive_several_stopped_attempts(corpus, monkeypatch):
    apply_refresh(corpus, crawl(FILES_V1), RecordingProcessor(), now=T1)
    _merge_dying_at(corpus, monkeypatch, "items", _v2_files())  # merges v2, stops before its items
    _merge_dying_at(corpus, monkeypatch, "artifacts", _v3_files())  # logs v3 against v1, stops before writing it
    apply_refresh(corpus, crawl(_v2_files()), None, now=T2)  # upstream is back at v2
    v2 = _v2_files()
    assert _log(corpus, 2) == {"a/x": ("changed", _hash(FILES_V1[EDITED]), _hash(v2[EDITED])),
                               "c/z": ("removed", _hash(FILES_V1[GONE]), None),
                               "d/w": ("added", None, _hash(v2[NEW]))}
    edited = artifact_id(*EDITED[:2])  # its version-1 items, left by the first attempt, are gone too
    assert corpus.sql(f"SELECT count(*) AS n FROM items WHERE artifact_id = '{edited}'").to_pylist() == [{"n": 0}]


def test_plan_against_the_version_before_takes_the_logged_state_of_what_a_stopped_attempt_merged():
    half_merged = crawl({EDITED: "- v2", NEW: "- new"})  # the stopped attempt wrote both
    logged = [dict(artifact_id=artifact_id("a/x", "CLAUDE.md"), change="changed", old_hash="sha256:v1",
                   new_hash=_hash("- v2")),
              dict(artifact_id=artifact_id("d/w", ".windsurfrules"), change="added", old_hash=None,
                   new_hash=_hash("- new"))]
    plan = plan_refresh(half_merged, crawl({EDITED: "- v3", NEW: "- new"}), before=logged)
    assert plan.changed == (artifact_id("a/x", "CLAUDE.md"),) and plan.added == (artifact_id("d/w", ".windsurfrules"),)
    assert plan.old_hash[artifact_id("a/x", "CLAUDE.md")] == "sha256:v1"
    assert plan_refresh(half_merged, crawl({EDITED: "- v3", NEW: "- new"})).changed == (
        artifact_id("a/x", "CLAUDE.md"),)  # without it: against the corpus as it is (what is left to write)


def test_a_rerun_that_does_not_judge_a_platform_keeps_what_the_stopped_attempt_merged_there(corpus, monkeypatch):
    """Rerun with a crawl of one platform: the claude and windsurf files it does not meet stay as the stopped
    attempt merged them, and so do their changelog rows (the edit, the tombstone, the addition)."""
    apply_refresh(corpus, crawl(FILES_V1), RecordingProcessor(), now=T1)
    _merge_dying_at(corpus, monkeypatch, "items", _v2_files())
    only_cursor = {k: v for k, v in _v2_files().items() if k[2] == "cursor"}
    report = apply_refresh(corpus, crawl(only_cursor), None, now=T2, covered={"cursor"})
    v2 = _v2_files()
    assert _log(corpus, 2) == {"a/x": ("changed", _hash(FILES_V1[EDITED]), _hash(v2[EDITED])),
                               "c/z": ("removed", _hash(FILES_V1[GONE]), None),
                               "d/w": ("added", None, _hash(v2[NEW]))}
    assert (report.added, report.changed, report.removed) == (1, 1, 1)
    live = corpus.sql("SELECT repo, path, content FROM artifacts WHERE removed_at IS NULL").to_pylist()
    assert {(r["repo"], r["path"]): r["content"] for r in live} == {(r, p): c for (r, p, _), c in v2.items()}
