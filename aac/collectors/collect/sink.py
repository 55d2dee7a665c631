"""The crawl's sink: a completed partition becomes ``artifacts``, ``repos`` and ``crawl_queries`` rows, durably.

Write order makes SIGKILL safe at any point:

1. a completed leaf's new artifacts go to ``artifacts/<leaf query_id>.parquet`` (atomic; the same part name on a
   re-run replaces it), its new repos to ``repos/<leaf query_id>.parquet``;
2. then the query's frontier rows (``crawl_queries/<query hash>.parquet``) are rewritten with the leaf done.

Killed between 1 and 2, the leaf is crawled again and its parts are replaced with the same rows, plus any row
the part held that the new answer lacks (search order changes between runs: a split range's first page is not
the same page twice); killed before 1, nothing of it exists. Repository metadata is asked across partitions
(see :class:`CorpusSink`): a completed partition may wait in memory for it, and steps 1-2 then run when it
arrives, in completion order; a kill loses only waiting partitions, which are not in the frontier and are
crawled again. A file already stored by another part (found by two queries, or by a verification half) is
not written again, so ``artifacts`` holds each (repo, path) once. A rerun resumes every query from
its completed leaves: no completed partition is searched again.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime

import pyarrow as pa
import pyarrow.parquet as pq

from aac.collectors.collect.frontier import done_leaves, frontier_rows, learn_model
from aac.collectors.collect.rows import artifact_row, repo_row, utc_now
from aac.collectors.crawl import Hit, LeafRecord
from aac.collectors.partition import LossModel, SizeRange
from aac.collectors.reuse import PreviousContent
from aac.core import platforms as platform_registry
from aac.core.drop_reasons import DropReason
from aac.core.ids import artifact_id, stable_id
from aac.core.schema import ARTIFACTS, CRAWL_QUERIES, REPOS
from aac.core.store import Corpus

log = logging.getLogger(__name__)


@dataclass
class CrawlTotals:
    """What the progress bar and the summary show; updated as leaves complete."""

    queries: int = 0
    queries_done: int = 0
    partitions: int = 0
    splits: int = 0
    checks: int = 0
    files: int = 0
    new_files: int = 0
    reused: int = 0  # files whose content came from the previous corpus (same blob sha), not downloaded
    private_skipped: int = 0  # search results in private repositories (the token can see them), left out
    per_platform: dict[str, int] = field(default_factory=dict)


@dataclass
class _Waiting:
    """A completed partition whose writes (steps 1-2 of the module docstring) wait for its repos' metadata."""

    part: str
    query: str
    records: list[LeafRecord]
    rows: list[dict]  # its ``artifacts`` rows, ``license_spdx`` filled in when the metadata arrives
    repos: list[str]  # its repos, first-seen order
    nbytes: int


MAX_WAITING_BYTES = 64 * 2**20  # content held by waiting partitions before they are written whatever the batch


class CorpusSink:
    """Persists leaves; ``fetch_content`` turns a hit into raw bytes (None: gone), ``fetch_repo`` a repo into
    metadata, and ``fetch_repos`` (optional) many repos at once (GraphQL: one request per 100 repos); any repo
    it leaves out goes to ``fetch_repo``. Content — unless ``reuse`` holds it under the same blob sha — is
    fetched when a partition completes, in up to ``fetch_workers`` threads (``fetch_content`` must then be
    thread-safe); repo metadata in the calling thread (API quota, token state).

    Metadata is batched across partitions: a completed partition whose repos are not all known yet waits in
    memory, rows made, until ``repo_batch`` unknown repos are waiting (or its content passes
    ``MAX_WAITING_BYTES``, or :meth:`flush` is called at the end of the crawl); then the first ``repo_batch``
    of them are asked in one call, and the waiting partitions whose repos are now all known are written in the
    order they completed, each as before: its ``artifacts``/``repos`` parts, then its frontier rows. So a
    first crawl asks about ceil(repos / 100) GraphQL requests instead of about one per partition.

    Why whole partitions wait rather than being stored with the licence pending and patched later: every part
    is still written once, with its final rows, by the same atomic replace, and the frontier still marks a
    partition done only after its parts exist, so the kill/resume argument is unchanged — a kill loses only
    waiting partitions, absent from the frontier, which the rerun searches again (at most the partitions
    holding one batch of new repos). Patching would rewrite content-bearing parts a second time and need a
    recovery pass for rows whose metadata never arrived. Files are claimed for their partition when it
    completes, so a file met again by a later (even still waiting) partition is not stored twice; waiting
    partitions are written in completion order, so each query's stored leaves stay a prefix of its sweep.
    ``repo_batch=1`` writes every partition as soon as it completes (one request per partition)."""

    def __init__(self, corpus: Corpus, platform_of_query: dict[str, str],
                 fetch_content: Callable[[Hit], bytes | None] | None,
                 fetch_repo: Callable[[str], dict | None] | None,
                 on_progress: Callable[[CrawlTotals], None] | None = None,
                 reuse: PreviousContent | None = None, fetch_workers: int = 1,
                 fetch_repos: Callable[[list[str]], dict[str, dict | None]] | None = None,
                 repo_batch: int = 1):
        if fetch_workers < 1:
            raise ValueError(f"fetch_workers must be >= 1, got {fetch_workers}")
        if repo_batch < 1:
            raise ValueError(f"repo_batch must be >= 1, got {repo_batch}")
        self.corpus = corpus
        self.platform_of_query = platform_of_query
        self.fetch_content = fetch_content
        self.fetch_repo = fetch_repo
        self.fetch_repos = fetch_repos
        self.on_progress = on_progress
        self.reuse = reuse
        self.fetch_workers = fetch_workers
        self.repo_batch = repo_batch
        self.totals = CrawlTotals()
        # artifact_id -> part that holds it (or will, once its partition is written), and -> bytes (a file met
        # again is not downloaded again)
        self.owner, self.stored_size = self._stored_artifacts()
        self.repo_owner = self._owners("repos", "full_name")
        self.meta = self._stored_repos()  # repo -> metadata (None: gone); a resumed crawl does not ask again
        self.rows = frontier_rows(corpus)  # query -> query_id -> crawl_queries row
        self._prefetched: dict[str, bytes | None] = {}  # contents fetched for sizes, until the leaf is written
        self._waiting: list[_Waiting] = []  # completed partitions, in completion order
        self._unknown: dict[str, None] = {}  # their repos without metadata yet, first-seen order
        self._private: set[tuple[str, str]] = set()  # results in private repositories, each counted once

    def _owners(self, table: str, key: str) -> dict[str, str]:
        out: dict[str, str] = {}
        for f in self.corpus.part_files(table):
            for k in pq.read_table(f, columns=[key]).column(key).to_pylist():
                out.setdefault(k, f.stem)
        return out

    def _stored_repos(self) -> dict[str, dict | None]:
        out: dict[str, dict | None] = {}
        for f in self.corpus.part_files("repos"):
            for row in pq.read_table(f).to_pylist():
                out.setdefault(row["full_name"], row)
        return out

    def _stored_artifacts(self) -> tuple[dict[str, str], dict[str, int]]:
        owner: dict[str, str] = {}
        size: dict[str, int] = {}
        for f in self.corpus.part_files("artifacts"):
            t = pq.read_table(f, columns=["artifact_id", "size_bytes"])
            for k, n in zip(t.column("artifact_id").to_pylist(), t.column("size_bytes").to_pylist()):
                owner.setdefault(k, f.stem)
                if n is not None:
                    size.setdefault(k, n)
        return owner, size

    # ---- resume ------------------------------------------------------------------------------------
    def done_leaves(self, query: str) -> list[tuple[SizeRange, int]]:
        return done_leaves(self.rows.get(query, {}))

    def rebuild_model(self, model: LossModel) -> None:
        learn_model(self.rows, model)

    def refetch_unavailable(self) -> int:
        """Download again the files an earlier run stored as ``content_unavailable`` (raw throttled or failing
        then): their leaves are finished and never searched again, so this is their way back. Each part holding
        such rows is rewritten with the files that came back; returns how many did."""
        if self.fetch_content is None:
            return 0
        back = 0
        for f in self.corpus.part_files("artifacts"):
            reasons = pq.read_table(f, columns=["drop_reason"]).column("drop_reason").to_pylist()
            if DropReason.CONTENT_UNAVAILABLE not in reasons:
                continue
            rows = pq.read_table(f).to_pylist()
            failed = [Hit(r["repo"], r["path"], r["blob_sha"], r["commit_sha"], r["html_url"])
                      for r in rows if r["drop_reason"] == DropReason.CONTENT_UNAVAILABLE]
            got = {aid: raw for aid, raw in self._contents(failed).items() if raw is not None}
            if not got:
                continue
            when = utc_now()
            for i, r in enumerate(rows):
                if r["drop_reason"] == DropReason.CONTENT_UNAVAILABLE and r["artifact_id"] in got:
                    hit = Hit(r["repo"], r["path"], r["blob_sha"], r["commit_sha"], r["html_url"])
                    rows[i] = artifact_row(hit, got[r["artifact_id"]], r, platform_registry.platform_of(r["path"]),
                                           when)
                    self.stored_size[r["artifact_id"]] = rows[i]["size_bytes"]
            self.corpus.write_part("artifacts", f.stem, pa.Table.from_pylist(rows, schema=ARTIFACTS))
            back += len(got)
        if back:
            log.info("%d files unavailable in an earlier run were downloaded now", back)
        return back

    # ---- writing -----------------------------------------------------------------------------------
    def sizes(self, hits: dict[tuple[str, str], Hit]) -> dict[tuple[str, str], int]:
        """Exact sizes of ``hits`` for the partitioner, from their contents; the contents are kept until the
        leaf is written, so each file is still downloaded once."""
        known = {k: self.stored_size[aid] for k, h in hits.items()
                 if (aid := artifact_id(h.repo, h.path)) in self.stored_size}
        got = self._contents([h for k, h in hits.items() if k not in known])
        self._prefetched.update(got)
        return known | {k: len(raw) for k, h in hits.items()
                        if k not in known and (raw := got.get(artifact_id(h.repo, h.path))) is not None}

    def _contents(self, hits: list[Hit]) -> dict[str, bytes | None]:
        """artifact_id -> bytes for ``hits``: already fetched for :meth:`sizes`, the previous corpus' copy when
        the blob sha is unchanged, else downloaded (in a thread pool when ``fetch_workers > 1``; results do not
        depend on completion order)."""
        out: dict[str, bytes | None] = {}
        for h in hits:
            aid = artifact_id(h.repo, h.path)
            if aid in self._prefetched:
                out[aid] = self._prefetched[aid]
        rest = [h for h in hits if artifact_id(h.repo, h.path) not in out]
        reused = self.reuse.lookup(rest) if self.reuse is not None and rest else {}
        self.totals.reused += len(reused)
        out.update(reused)
        todo = [h for h in hits if artifact_id(h.repo, h.path) not in out]
        if self.fetch_content is None or not todo:
            return out
        if self.fetch_workers == 1 or len(todo) == 1:
            got = [self.fetch_content(h) for h in todo]
        else:
            with ThreadPoolExecutor(max_workers=min(self.fetch_workers, len(todo)),
                                    thread_name_prefix="aac-fetch") as pool:
                got = list(pool.map(self.fetch_content, todo))
        out.update((artifact_id(h.repo, h.path), raw) for h, raw in zip(todo, got))
        return out

    def _complete(self, part: str, query: str, records: list[LeafRecord], hits: dict[tuple[str, str], Hit]) -> None:
        """A completed partition: its new files are claimed and their rows made now; the rows wait for the
        metadata of their repos (written at once when every repo is known, see the class docstring)."""
        when = utc_now()
        private = {h.key for h in hits.values() if h.private}
        if private:  # counted in the partition's search results, but a public corpus holds no trace of them
            self._private |= private
            self.totals.private_skipped = len(self._private)
        mine = [h for h in sorted(hits.values(), key=lambda h: h.key)
                if not h.private and self.owner.get(artifact_id(h.repo, h.path), part) == part]
        held = self._held_rows(part)
        rows = self._rows_of(mine, {aid: r for aid, r in held.items() if r["content_sha256"] is not None}, when)
        fresh = [r for r in rows if r["artifact_id"] not in self.owner]  # claimed by no part before
        for r in rows:
            self.owner[r["artifact_id"]] = part
            if r["size_bytes"] is not None:
                self.stored_size[r["artifact_id"]] = r["size_bytes"]
        for r in fresh:
            if r["status"] == "collected":
                self.totals.per_platform[r["platform"]] = self.totals.per_platform.get(r["platform"], 0) + 1
        self.totals.new_files += len(fresh)
        found = {r["artifact_id"] for r in rows}
        rows += [r for aid, r in held.items() if aid not in found]
        rows.sort(key=lambda r: (r["repo"], r["path"]))
        repos = list(dict.fromkeys(r["repo"] for r in rows))  # first-seen order: deterministic
        self._waiting.append(_Waiting(part, query, records, rows, repos, sum(r["size_bytes"] or 0 for r in rows)))
        if self.fetch_repos is not None or self.fetch_repo is not None:
            self._unknown.update((r, None) for r in repos if r not in self.meta)
        if sum(w.nbytes for w in self._waiting) > MAX_WAITING_BYTES:
            self.flush()
        else:
            self._write_ready(full=False)

    def _rows_of(self, hits: list[Hit], stored: dict[str, dict], when: datetime) -> list[dict]:
        """``artifacts`` rows for ``hits``. A file the part already stored with its content (``stored``: a leaf
        rewritten after its check, or completed again on resume) keeps that row when its blob sha is unchanged,
        and also when downloading its new version fails: only new or changed files are downloaded, and a
        collected row never turns into a dropped one."""
        same = {aid for h in hits if (aid := artifact_id(h.repo, h.path)) in stored
                and stored[aid]["blob_sha"] == h.blob_sha}
        contents = self._contents([h for h in hits if artifact_id(h.repo, h.path) not in same])
        self._prefetched.clear()
        rows = []
        for h in hits:
            aid = artifact_id(h.repo, h.path)
            if aid in same or (aid in stored and contents.get(aid) is None):
                rows.append(dict(stored[aid]))
            else:
                rows.append(artifact_row(h, contents.get(aid), None, platform_registry.platform_of(h.path), when))
        return rows

    def _held_rows(self, part: str) -> dict[str, dict]:
        """The rows ``part`` holds now (its latest waiting rows, else its stored file) that it still owns, by
        artifact id. A part completed again (a resumed sweep asks the same range; search order has changed since)
        keeps them: the owner map says they are stored there, so no other part will store them."""
        for w in reversed(self._waiting):
            if w.part == part:
                rows = w.rows
                break
        else:
            stored = self.corpus.table_dir("artifacts") / f"{part}.parquet"
            rows = pq.read_table(stored).to_pylist() if stored.exists() else []
        return {r["artifact_id"]: r for r in rows if self.owner.get(r["artifact_id"]) == part}

    def _write_ready(self, full: bool) -> None:
        """Ask metadata a batch at a time (all of it when ``full``, else only full batches) and write the waiting
        partitions, in order, up to the first one whose repos are not all known yet."""
        while self._unknown and (full or len(self._unknown) >= self.repo_batch):
            names = list(self._unknown)[:self.repo_batch]
            got = self.fetch_repos(names) if self.fetch_repos is not None else {}
            for name in names:
                self.meta[name] = got[name] if name in got else (self.fetch_repo(name) if self.fetch_repo else None)
                del self._unknown[name]
            self._write_known()
        self._write_known()

    def _write_known(self) -> None:
        while self._waiting and not any(r in self._unknown for r in self._waiting[0].repos):
            self._write(self._waiting.pop(0))

    def flush(self) -> None:
        """Write every waiting partition (metadata asked in batches of ``repo_batch``): at the end of a crawl."""
        self._write_ready(full=True)

    def _write(self, w: _Waiting) -> None:
        """Steps 1-2 of the module docstring for one partition whose repos' metadata is known."""
        when = utc_now()
        repos: dict[str, dict] = {}
        for name in w.repos:
            meta = self.meta.get(name)
            if meta is not None and self.repo_owner.get(meta["full_name"], w.part) == w.part:
                repos[meta["full_name"]] = repo_row(meta, when)
                self.repo_owner[meta["full_name"]] = w.part
        for r in w.rows:
            r["license_spdx"] = (self.meta.get(r["repo"]) or {}).get("license_spdx")
        if repos:
            self.corpus.write_part("repos", w.part, pa.Table.from_pylist(list(repos.values()), schema=REPOS))
        if w.rows:
            self.corpus.write_part("artifacts", w.part, pa.Table.from_pylist(w.rows, schema=ARTIFACTS))
        self._write_frontier(w.query, w.records)

    def _frontier_row(self, rec: LeafRecord) -> dict:
        return {"query_id": rec.query_id, "platform": self.platform_of_query.get(rec.query), "query": rec.query,
                "size_lo": rec.rng.lo, "size_hi": rec.rng.hi, "reported_total": rec.reported_total,
                "pages_done": rec.pages, "fetched": rec.fetched, "state": rec.state, "updated_at": utc_now(),
                "lost": rec.lost, "saturated": rec.saturated, "incomplete": rec.incomplete}

    def _write_frontier(self, query: str, records: Iterable[LeafRecord]) -> None:
        rows = self.rows.setdefault(query, {})
        for rec in records:
            if rec.state == "done":  # a range left pending by an unanswered search is now (partly) swept
                for qid in [k for k, r in rows.items() if r["state"] == "pending"
                            and r["size_lo"] < rec.rng.hi and rec.rng.lo < r["size_hi"]]:
                    del rows[qid]
            rows[rec.query_id] = self._frontier_row(rec)
        self.corpus.write_part("crawl_queries", stable_id("query", query),
                               pa.Table.from_pylist(list(rows.values()), schema=CRAWL_QUERIES))

    def leaf_done(self, query: str, records: list[LeafRecord], hits: dict[tuple[str, str], Hit]) -> None:
        leaf = records[-1]
        self._complete(leaf.query_id, query, records, hits)
        self.totals.partitions += 1
        self.totals.checks += sum(r.role == "check" for r in records)
        self.totals.files = len(self.owner)
        if leaf.saturated:
            log.warning("size %d of %r holds more files than search lists; some are unreachable", leaf.rng.lo, query)
        if leaf.state == "pending":
            log.warning("search answered %s of %r only with empty incomplete pages: left pending, the next run asks "
                        "again", leaf.rng, query)
        elif leaf.incomplete:
            log.warning("search kept saying %s of %r was incomplete; files there may be missing (its platform is "
                        "not judged for removals)", leaf.rng, query)
        if self.on_progress:
            self.on_progress(self.totals)

    def split(self, query: str, record: LeafRecord, hits: dict[tuple[str, str], Hit]) -> None:
        self._complete(record.query_id, query, [record], hits)
        self.totals.splits += 1
        self.totals.files = len(self.owner)
        if self.on_progress:
            self.on_progress(self.totals)
