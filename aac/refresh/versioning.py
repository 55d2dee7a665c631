"""Corpus versions: what a fresh crawl adds, changes and removes, applied without losing history.

A refresh compares the freshly crawled artifacts with the corpus by a content hash (the git blob sha GitHub
reports, else ``content_sha256``, else the sha256 of the raw content): new and changed artifacts (changed content,
or the same content under another licence: a relicensed repository) are (re)processed, unchanged ones keep their
processed rows and items untouched, and artifacts no longer found get a tombstone (``removed_at`` + status
``removed``) instead of disappearing - but only on platforms the crawl covered whole (every query of the platform
swept to the end): a crawl of some platforms, or one killed half-way, says nothing about the files of the others.
Each run that changes something is a numbered version with one ``changelog`` row per changed artifact and one
``versions`` row, written last as the commit marker, so a run killed half-way is simply run again (changelog rows
are upserted by (version, artifact_id) and written before the artifacts they name, so a rerun takes the state
before the version from them where the stopped run already merged, even if the crawl changed again since). A run
that changes nothing records no version: the latest stays the latest (a corpus with no version yet still gets
version 1 from its first refresh, its baseline, whatever that found).
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import pyarrow as pa
import pyarrow.compute as pc

from aac.core.schema import ARTIFACTS, CHANGELOG, VERSIONS
from aac.core.store import Corpus

# A processor turns raw crawled artifact rows into processed tables: {"artifacts": ..., "items": ...}.
Processor = Callable[[pa.Table], dict[str, pa.Table]]

# Statuses the processing step takes as input (aac.processing.staging.INPUT_STATUSES): a refresh without its own
# processor leaves new/changed rows as freshly "collected" and vanished ones as "removed" for `aac process`.
PENDING = "collected"
REMOVED = "removed"


def content_key(row: dict) -> str | None:
    """The hash a refresh compares: stable across re-crawls of the same bytes."""
    if row.get("blob_sha"):
        return f"git:{row['blob_sha']}"
    if row.get("content_sha256"):
        return f"sha256:{row['content_sha256']}"
    if row.get("content") is not None:
        return "sha256:" + hashlib.sha256(row["content"].encode("utf-8", "surrogatepass")).hexdigest()
    return None


@dataclass(frozen=True)
class RefreshPlan:
    """Artifact ids by what happened to them since the last version, with their old/new hashes."""

    added: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    unchanged: tuple[str, ...] = ()
    old_hash: dict[str, str | None] = field(default_factory=dict)
    new_hash: dict[str, str | None] = field(default_factory=dict)

    @property
    def to_process(self) -> tuple[str, ...]:
        return self.added + self.changed


def _keys(table: pa.Table) -> tuple[dict[str, str | None], set[str]]:
    """artifact_id -> content key, and the ids already tombstoned. Content is read only for rows with no hash."""
    names = table.column_names
    ids = table.column("artifact_id").to_pylist()
    blob = table.column("blob_sha").to_pylist() if "blob_sha" in names else [None] * len(ids)
    sha = table.column("content_sha256").to_pylist() if "content_sha256" in names else [None] * len(ids)
    keys: dict[str, str | None] = {}
    need_content = [i for i in range(len(ids)) if not blob[i] and not sha[i]]
    contents = {}
    if need_content and "content" in names:
        picked = table.column("content").take(pa.array(need_content, pa.int64())).to_pylist()
        contents = dict(zip(need_content, picked))
    for i, aid in enumerate(ids):
        keys[aid] = content_key({"blob_sha": blob[i], "content_sha256": sha[i], "content": contents.get(i)})
    removed = set()
    if "removed_at" in names:
        removed = set(pc.filter(table.column("artifact_id"), pc.is_valid(table.column("removed_at"))).to_pylist())
    return keys, removed


def _licenses(table: pa.Table) -> dict[str, str | None]:
    if "license_spdx" not in table.column_names:
        return {}
    return dict(zip(table.column("artifact_id").to_pylist(), table.column("license_spdx").to_pylist()))


def _restore_pre_merge(old_hash: dict[str, str | None], tombstoned: set[str], before: Iterable[dict]) -> set[str]:
    """Put back, in place, the state before this version of the artifacts an earlier, stopped attempt at it logged
    (the corpus may already hold what that attempt merged): absent for an addition, live with the logged
    ``old_hash`` for a change or a removal. Returns the ids it logged as relicensed only (same hash both sides):
    their earlier licence is not logged, so they stay changed."""
    relicensed = set()
    for r in before:
        aid = r["artifact_id"]
        tombstoned.discard(aid)
        if r["change"] == "added":
            old_hash.pop(aid, None)
            continue
        old_hash[aid] = r["old_hash"]
        if r["change"] == "changed" and r["old_hash"] == r["new_hash"]:
            relicensed.add(aid)
    return relicensed


def _hold_unjudged(before: Iterable[dict], cur_hash: dict[str, str | None], cur_tombstoned: set[str],
                   new_hash: dict[str, str | None], unjudged: set[str]) -> None:
    """Artifacts a stopped attempt logged on a platform this crawl does not judge, and that it did not meet: it
    says nothing of them, so what that attempt merged (the corpus as it is) is their new state. In place: a live
    one joins ``new_hash``; each is judged, so one the attempt tombstoned stays removed."""
    for r in before:
        aid = r["artifact_id"]
        if aid in new_hash or aid not in unjudged:
            continue
        unjudged.discard(aid)
        if aid in cur_hash and aid not in cur_tombstoned:
            new_hash[aid] = cur_hash[aid]


def plan_refresh(current: pa.Table, crawled: pa.Table, covered: set[str] | None = None,
                 before: Sequence[dict] = ()) -> RefreshPlan:
    """Classify every artifact of ``current`` (the corpus) and ``crawled`` (the fresh crawl). Pure.

    ``covered``: the platforms the crawl swept whole; an artifact of another platform that the crawl did not
    meet is not judged removed (None: the crawl covered every platform).
    ``before``: the changelog rows (artifact_id, change, old_hash, new_hash) an earlier attempt at the same version
    logged before it stopped: the plan is then against the version before (what the changelog must say), not
    against the part-merged corpus (what is left to write); of those the crawl does not judge, what the corpus holds
    stands."""
    old_hash, tombstoned = _keys(current)
    new_hash, _ = _keys(crawled)
    unjudged: set[str] = set()
    if covered is not None:
        ids, platforms = current.column("artifact_id").to_pylist(), current.column("platform").to_pylist()
        unjudged = {aid for aid, p in zip(ids, platforms) if p not in covered}
    _hold_unjudged(before, old_hash, tombstoned, new_hash, unjudged)
    relicensed_before = _restore_pre_merge(old_hash, tombstoned, before)
    old_lic, new_lic = _licenses(current), _licenses(crawled)

    def relicensed(aid: str) -> bool:
        """Same content, another licence (the repository changed it): processed again, as its verdict may change.
        An unknown new licence (metadata that did not come) changes nothing."""
        return aid in relicensed_before or (new_lic.get(aid) is not None and new_lic.get(aid) != old_lic.get(aid))

    added, changed, unchanged = [], [], []
    for aid in sorted(new_hash):
        if aid not in old_hash or aid in tombstoned:
            added.append(aid)  # new, or back after a tombstone
        elif old_hash[aid] != new_hash[aid] or new_hash[aid] is None or relicensed(aid):
            changed.append(aid)
        else:
            unchanged.append(aid)
    removed = [aid for aid in sorted(old_hash) if aid not in new_hash and aid not in tombstoned and aid not in unjudged]
    return RefreshPlan(tuple(added), tuple(changed), tuple(removed), tuple(unchanged), old_hash, new_hash)


@dataclass(frozen=True)
class VersionReport:
    version: int
    added: int
    changed: int
    removed: int
    unchanged: int
    processed: tuple[str, ...]
    per_platform: dict[str, dict[str, int]]
    unjudged: tuple[str, ...] = ()  # platforms of the corpus the crawl did not cover whole: nothing removed there
    recorded: bool = True  # False: nothing changed, no version was recorded and ``version`` is still the latest


def _isin(table: pa.Table, column: str, values) -> pa.Array:
    return pc.is_in(table.column(column), value_set=pa.array(sorted(values), pa.string()))


def current_state(corpus: Corpus) -> pa.Table:
    """The crawl-side state to compare against: ``raw_artifacts`` (original content, when processing keeps it)
    overridden by rows of ``artifacts`` not yet staged by processing; else ``artifacts`` itself."""
    arts = corpus.read("artifacts")
    if not corpus.exists("raw_artifacts"):
        return arts
    raw = corpus.read("raw_artifacts")
    raw = raw.select([c for c in ARTIFACTS.names if c in raw.column_names])
    unstaged = arts.filter(pc.fill_null(pc.is_in(arts.column("status"), pa.array([PENDING, REMOVED])), False))
    known = pc.is_in(arts.column("artifact_id"), value_set=raw.column("artifact_id"))
    only_here = arts.filter(pc.invert(known))  # rows never staged at all
    override = pa.concat_tables([unstaged, only_here]).select(raw.column_names)
    raw = raw.filter(pc.invert(pc.is_in(raw.column("artifact_id"), value_set=override.column("artifact_id"))))
    return pa.concat_tables([raw, override.cast(raw.schema)])


def _latest_version(corpus: Corpus) -> int:
    """The newest recorded version; 0 when there is none yet."""
    if not corpus.exists("versions"):
        return 0
    versions = corpus.read("versions", columns=["version"]).column("version").to_pylist()
    return max(versions) if versions else 0


def records_version(latest: int, changes: int) -> bool:
    """Whether a merge is a new version: it changed something, or the corpus has no version yet (its first
    refresh is the baseline that later changelogs count from). An unchanged crawl adds no empty version."""
    return changes > 0 or latest == 0


def _logged(corpus: Corpus, version: int) -> list[dict]:
    """The changelog rows of ``version``: artifact_id, change, platform, old_hash, new_hash."""
    if not corpus.exists("changelog"):
        return []
    return corpus.sql("SELECT artifact_id, change, platform, old_hash, new_hash FROM changelog "
                      f"WHERE version = {int(version)} ORDER BY artifact_id").to_pylist()


def _drop_logged(corpus: Corpus, version: int, ids: set[str]) -> None:
    """Delete ``version``'s changelog rows of ``ids``."""
    log_all = corpus.read("changelog")
    gone = pc.and_(pc.equal(log_all.column("version"), version), _isin(log_all, "artifact_id", ids))
    corpus.replace("changelog", log_all.filter(pc.invert(gone)), allow_empty=True)


def _changelog(plan: RefreshPlan, version: int, rows: dict[str, dict], now: dt.datetime) -> pa.Table:
    out = []
    for change, ids in (("added", plan.added), ("changed", plan.changed), ("removed", plan.removed)):
        for aid in ids:
            r = rows[aid]
            out.append(dict(version=version, artifact_id=aid, repo=r.get("repo"), path=r.get("path"),
                            platform=r.get("platform"), change=change,
                            old_hash=None if change == "added" else plan.old_hash.get(aid),
                            new_hash=None if change == "removed" else plan.new_hash.get(aid), at=now))
    return pa.Table.from_pylist(out, schema=CHANGELOG)


def _delete_artifacts(corpus: Corpus, ids: set[str]) -> None:
    """Remove ``ids`` from ``artifacts`` and ``items`` outright (rows that belong to no version)."""
    for table in ("artifacts", "items"):
        if corpus.exists(table):
            rows = corpus.read(table)
            gone = _isin(rows, "artifact_id", ids)
            if pc.any(gone).as_py():
                corpus.replace(table, rows.filter(pc.invert(gone)), allow_empty=True)


def _tally(changelog: pa.Table) -> tuple[dict[str, int], dict[str, dict[str, int]]]:
    """Changes by kind, overall and per platform."""
    counts = {"added": 0, "changed": 0, "removed": 0}
    per_platform: dict[str, dict[str, int]] = {}
    for r in changelog.select(["change", "platform"]).to_pylist():
        counts[r["change"]] += 1
        d = per_platform.setdefault(r["platform"] or "unknown", {"added": 0, "changed": 0, "removed": 0})
        d[r["change"]] += 1
    return counts, per_platform


def apply_refresh(corpus: Corpus, crawled: pa.Table, process: Processor | None = None,
                  now: dt.datetime | None = None, source: str = "crawl",
                  covered: set[str] | None = None) -> VersionReport:
    """Merge ``crawled`` into ``corpus`` as the next version; only new/changed rows go through ``process``.
    ``covered``: the platforms whose vanished artifacts may be tombstoned (see :func:`plan_refresh`).

    Without a processor, new and changed artifacts are stored raw with status ``collected`` and vanished ones as
    ``removed`` tombstones (their old items are dropped), which is what the processing step takes as input."""
    now = now or dt.datetime.now(dt.timezone.utc)
    current = current_state(corpus)
    latest = _latest_version(corpus)
    version = latest + 1
    # A changelog for this version already, with no versions row: an earlier attempt stopped part-way, and the
    # corpus may hold part of what it merged. ``work`` is what is left to write (against the corpus as it is);
    # ``plan`` is what this version changed since the last (against the state before the first attempt, which
    # its rows keep), so a crawl that changed again meanwhile still gets the true old hashes and kinds of change.
    earlier = _logged(corpus, version)
    work = plan_refresh(current, crawled, covered)
    plan = plan_refresh(current, crawled, covered, before=earlier) if earlier else work

    meta_cols = ["artifact_id", "repo", "path", "platform"]
    rows = {r["artifact_id"]: r for r in current.select(meta_cols).to_pylist()}
    rows.update({r["artifact_id"]: r for r in crawled.select([c for c in meta_cols if c in crawled.column_names]).to_pylist()})
    changelog = _changelog(plan, version, rows, now)
    if changelog.num_rows:  # logged before anything is written, so a rerun knows what was there before
        corpus.upsert("changelog", changelog)
    # what this version adds or changes and an earlier attempt may have merged already goes through again (its
    # items may not have been rewritten); what it merged that the crawl has undone since is in ``work``
    merged_before = {r["artifact_id"] for r in earlier} & set(plan.to_process)

    fresh = crawled.filter(_isin(crawled, "artifact_id", sorted(set(work.to_process) | merged_before)))
    if process is not None and fresh.num_rows:
        produced = process(fresh)
        new_artifacts = produced["artifacts"]
        new_items = produced.get("items")
    else:
        extra = [c for c in fresh.column_names if c not in ARTIFACTS.names]
        new_artifacts = fresh.drop_columns(extra)
        if "status" in new_artifacts.column_names:
            new_artifacts = new_artifacts.drop_columns(["status"])
        new_artifacts = new_artifacts.append_column("status", pa.array([PENDING] * new_artifacts.num_rows, pa.string()))
        new_items = None

    # an addition a stopped attempt merged and the crawl has undone since was in no version: it goes, not tombstoned
    never_there = {r["artifact_id"] for r in earlier if r["change"] == "added"} & set(work.removed)
    tomb = current.filter(_isin(current, "artifact_id", sorted(set(work.removed) - never_there)))
    if tomb.num_rows:
        tomb = tomb.set_column(tomb.schema.get_field_index("removed_at"), "removed_at",
                               pa.array([now] * tomb.num_rows, ARTIFACTS.field("removed_at").type))
        tomb = tomb.set_column(tomb.schema.get_field_index("status"), "status", pa.array([REMOVED] * tomb.num_rows, pa.string()))
    if new_artifacts.num_rows or tomb.num_rows:
        from aac.core.schema import conform

        corpus.upsert("artifacts", pa.concat_tables([conform(new_artifacts, ARTIFACTS), conform(tomb, ARTIFACTS)]))

    if work.changed or new_items is not None or merged_before:
        stale = set(work.to_process) | merged_before
        items = corpus.read("items")
        kept = items.filter(pc.invert(_isin(items, "artifact_id", stale))) if items.num_rows else items
        if new_items is not None and new_items.num_rows:
            from aac.core.schema import ITEMS, conform

            kept = pa.concat_tables([kept, conform(new_items, ITEMS)])
        if kept.num_rows != items.num_rows or new_items is not None:
            corpus.replace("items", kept, allow_empty=True)  # every item's file changed or went

    if never_there:
        _delete_artifacts(corpus, never_there)

    # Rows an earlier attempt logged that this version no longer changes (the crawl is back to the state before):
    # dropped only now that the corpus holds the crawl, as until then they keep that state for a further rerun.
    outdated = {r["artifact_id"] for r in earlier} - set(changelog.column("artifact_id").to_pylist())
    if outdated:
        _drop_logged(corpus, version, outdated)

    # The version's changelog (``plan``), not what was left to write (``work``), says what changed: a merge
    # stopped before its versions row is run again as the same version, and by then part of it is already merged.
    counts, per_platform = _tally(changelog)
    unchanged = len(plan.unchanged)
    recorded = records_version(latest, changelog.num_rows)
    if recorded:
        live = corpus.sql("SELECT count(*) AS n FROM artifacts WHERE removed_at IS NULL").column("n")[0].as_py()
        corpus.upsert("versions", pa.Table.from_pylist([dict(
            version=version, created_at=now, source=source, added=counts["added"], changed=counts["changed"],
            removed=counts["removed"], unchanged=unchanged, live_artifacts=live)], schema=VERSIONS))
    else:
        version = latest
    unjudged: tuple[str, ...] = ()
    if covered is not None:
        alive = current.filter(pc.is_null(current.column("removed_at"))) if "removed_at" in current.column_names \
            else current
        unjudged = tuple(sorted({p or "unknown" for p in alive.column("platform").to_pylist()} - set(covered)))
    return VersionReport(version, counts["added"], counts["changed"], counts["removed"], unchanged,
                         tuple(fresh.column("artifact_id").to_pylist()) if process is not None else (), per_platform,
                         unjudged, recorded)


def adopt_frontier(corpus: Corpus, incoming: Corpus) -> None:
    """The crawl's frontier (final size ranges per query) becomes the corpus' own, so the next refresh is
    seeded from it; queries the crawl did not run keep their earlier rows."""
    if not incoming.exists("crawl_queries"):
        return
    fresh = incoming.read("crawl_queries")
    if corpus.exists("crawl_queries"):
        old = corpus.read("crawl_queries")
        old = old.filter(pc.invert(pc.is_in(old.column("query"), value_set=pc.unique(fresh.column("query")))))
        fresh = pa.concat_tables([old, fresh])
    corpus.replace("crawl_queries", fresh)


def merge_incoming(corpus: Corpus, incoming: Corpus, process: Processor | None = None,
                   now: dt.datetime | None = None, source: str = "crawl",
                   platforms: Iterable[str] | None = None) -> VersionReport:
    """Refresh ``corpus`` from a crawl written into its own folder: repository metadata (licenses, stars) is
    upserted first, then the artifacts are merged as the next version (removals judged only on the platforms
    the crawl swept whole, by its ``crawl_queries`` frontier, and among ``platforms`` when given: a collection of
    local checkouts has no frontier and says which platforms it read only through them), then the crawl's
    frontier replaces the corpus' (the seed of the next refresh) and its request validators join the corpus'."""
    if not incoming.exists("artifacts"):
        raise FileNotFoundError(f"no artifacts table under {incoming.root}: crawl into it first")
    from aac.core.corpus_lock import corpus_lock

    with corpus_lock(corpus.root, "aac refresh (merge)"):  # re-entrant: `aac refresh` holds it already
        return _merge_incoming(corpus, incoming, process, now, source, platforms)


def _merge_incoming(corpus: Corpus, incoming: Corpus, process: Processor | None, now: dt.datetime | None,
                    source: str, platforms: Iterable[str] | None) -> VersionReport:
    from aac.collectors.collect.frontier import covered_platforms

    if incoming.exists("repos"):
        corpus.upsert("repos", incoming.read("repos"))
    covered = covered_platforms(incoming)
    if platforms:
        covered = set(platforms) if covered is None else covered & set(platforms)
    report = apply_refresh(corpus, incoming.read("artifacts"), process=process, now=now, source=source,
                           covered=covered)
    adopt_frontier(corpus, incoming)
    if incoming.exists("http_cache"):  # validators of a crawl that did not write them to the corpus itself
        corpus.upsert("http_cache", incoming.read("http_cache"))
    corpus.refresh_catalog()
    return report
