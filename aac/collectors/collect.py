"""A resumable crawl into a corpus: the engine's leaves become ``artifacts``, ``repos`` and ``crawl_queries`` rows.

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

A refresh crawls into a fresh folder but learns from the ``previous`` corpus: the previous leaves seed each
query's sweep (no probing and splitting from scratch, see ``partition``), the stored checks rebuild the loss
model, and the ``http_cache`` validators make repo and search requests conditional (a 304 spends no quota).
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timezone

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from aac.core import platforms as platform_registry
from aac.collectors.crawl import CrawlEngine, Hit, LeafRecord, SearchFn
from aac.collectors.partition import MAX_INDEXED, LossModel, SizePrior, SizeRange
from aac.collectors.reuse import PreviousContent
from aac.core.config import DEFAULT_FETCH_WORKERS
from aac.core.drop_reasons import DropReason
from aac.core.ids import artifact_id, stable_id
from aac.core.schema import ARTIFACTS, CRAWL_QUERIES, REPOS
from aac.core.store import Corpus

log = logging.getLogger(__name__)


def _now() -> datetime:
    return datetime.now(timezone.utc)


def _ts(value) -> datetime | None:
    if value is None or isinstance(value, datetime):
        return value
    try:
        return datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return None


def decode_content(raw: bytes) -> str:
    """Text as stored: UTF-16 when a UTF-16 BOM says so, else UTF-8 with undecodable bytes replaced (U+FFFD) so
    Arrow can hold it. A UTF-8 BOM is kept: the processing stage strips it and records the fix, as it judges the
    replacement characters; and the text then re-encodes to the file's own bytes (a refresh can reuse it)."""
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        return raw.decode("utf-16", errors="replace")
    return raw.decode("utf-8", errors="replace")


def artifact_row(hit: Hit, raw: bytes | None, repo: dict | None, platform: str | None, when: datetime) -> dict:
    """One ``artifacts`` row; a file whose content is gone is kept with its drop reason."""
    status, reason = "collected", None
    if raw is None:
        status, reason = "dropped", DropReason.CONTENT_UNAVAILABLE
    elif platform is None:
        status, reason = "dropped", DropReason.NOT_AN_AGENT_FILE
    return {
        "artifact_id": artifact_id(hit.repo, hit.path),
        "repo": hit.repo,
        "path": hit.path,
        "platform": platform,
        "function": platform_registry.BY_NAME[platform].function if platform in platform_registry.BY_NAME else None,
        "size_bytes": len(raw) if raw is not None else None,
        "blob_sha": hit.blob_sha,
        "commit_sha": hit.ref,
        "html_url": hit.html_url,
        "license_spdx": (repo or {}).get("license_spdx"),
        "content_sha256": hashlib.sha256(raw).hexdigest() if raw is not None else None,
        "status": status,
        "drop_reason": reason,
        "content": decode_content(raw) if raw is not None else None,
        "collected_at": when,
    }


def repo_row(meta: dict, when: datetime) -> dict:
    return {**meta, "pushed_at": _ts(meta.get("pushed_at")), "fetched_at": when}


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
            when = _now()
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
        when = _now()
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
        when = _now()
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
                "pages_done": rec.pages, "fetched": rec.fetched, "state": rec.state, "updated_at": _now(),
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


def frontier_rows(corpus: Corpus) -> dict[str, dict[str, dict]]:
    """A corpus' ``crawl_queries`` rows by query, then by query_id."""
    out: dict[str, dict[str, dict]] = {}
    for row in corpus.read("crawl_queries").to_pylist():
        out.setdefault(row["query"], {})[row["query_id"]] = row
    return out


def covered_platforms(corpus: Corpus) -> set[str] | None:
    """Platforms every registry query of which the corpus' crawl swept to the end (its finished leaves tile the
    size axis) and listed whole (no leaf left incomplete by search or saturated past its result cap): only there
    does a file the crawl did not meet say the file is gone. None when the corpus holds no crawl frontier (a
    collection of local checkouts reads every platform's files whole)."""
    if not corpus.exists("crawl_queries"):
        return None
    rows = frontier_rows(corpus)
    queries: dict[str, list[str]] = {}
    for platform, query in platform_queries():
        queries.setdefault(platform, []).append(query)
    def whole(q: str) -> bool:
        done = [r for r in rows.get(q, {}).values() if r["state"] == "done"]
        return _tiles(done_leaves(rows.get(q, {}))) and not any(r.get("incomplete") or r.get("saturated") for r in done)

    return {p for p, qs in queries.items() if all(whole(q) for q in qs)}


def learn_model(rows: dict[str, dict[str, dict]], model: LossModel) -> None:
    """Feed stored checks and leaf counts into the loss model (order-independent aggregates)."""
    for by_id in rows.values():
        for r in by_id.values():
            if r.get("lost") is not None:
                model.record_check(int(r["fetched"] or 0), int(r["lost"]))
            if r["state"] == "done":
                model.record_ratio(r["reported_total"], int(r["fetched"] or 0))


def done_leaves(rows: dict[str, dict]) -> list[tuple[SizeRange, int]]:
    return [(SizeRange(r["size_lo"], r["size_hi"]), int(r["fetched"] or 0)) for r in rows.values()
            if r["state"] == "done"]


def seed_ranges(rows: dict[str, dict]) -> list[SizeRange]:
    """The previous crawl's final ranges of one query, finest known: a leaf whose check found files missing
    is replaced by the checked halves that found them (recursively), so a re-crawl asks ranges known to be
    complete instead of splitting the lossy leaf again. Empty unless the leaves tile the whole axis."""
    leaves = done_leaves(rows)
    if not _tiles(leaves):
        return []
    checked = {(r["size_lo"], r["size_hi"]): r for r in rows.values() if r["state"] == "checked"}
    lost = {(r["size_lo"], r["size_hi"]): r["lost"] for r in rows.values() if r["state"] in ("done", "checked")}

    def finest(rng: SizeRange) -> list[SizeRange]:
        if not lost.get((rng.lo, rng.hi)):
            return [rng]
        for (lo, hi) in checked:
            if lo == rng.lo and hi < rng.hi and (hi, rng.hi) in checked:
                return finest(SizeRange(lo, hi)) + finest(SizeRange(hi, rng.hi))
        return [rng]

    return [r for rng, _ in sorted(leaves) for r in finest(rng)]


def platform_queries(names: Iterable[str] | None = None) -> list[tuple[str, str]]:
    """(platform, query) pairs for the chosen platforms (all by default), in registry order."""
    chosen = [platform_registry.get(n) for n in names] if names else list(platform_registry.PLATFORMS)
    return [(p.name, q) for p in chosen for q in p.queries]


def crawl_queries_into(corpus: Corpus, search: SearchFn, queries: list[tuple[str, str]],
                       fetch_content: Callable[[Hit], bytes | None] | None,
                       fetch_repo: Callable[[str], dict | None] | None,
                       reserve: Callable[[int], None] | None = None,
                       on_progress: Callable[[CrawlTotals], None] | None = None,
                       on_query: Callable[[str, str], None] | None = None,
                       previous: Corpus | None = None, reuse_content: bool = True,
                       fetch_workers: int = 1,
                       fetch_repos: Callable[[list[str]], dict[str, dict | None]] | None = None,
                       repo_batch: int = 1,
                       pause: Callable[[float], None] | None = None) -> tuple[CrawlEngine, CorpusSink]:
    """Crawl ``queries`` into ``corpus``, resuming from its ``crawl_queries`` frontier; a ``previous`` corpus'
    finished leaves seed each query's sweep, its checks the loss model, and (``reuse_content``) its stored
    files the content of hits whose blob sha did not change. ``repo_batch``: repos asked per ``fetch_repos``
    call, across partitions (see :class:`CorpusSink`). ``pause(seconds)``: the wait between tries of a page
    search calls incomplete (the client's clock)."""
    other = previous is not None and previous.root.resolve() != corpus.root.resolve()
    reuse = PreviousContent(previous) if other and reuse_content else None
    sink = CorpusSink(corpus, {q: p for p, q in queries}, fetch_content, fetch_repo, on_progress,
                      reuse=reuse, fetch_workers=fetch_workers, fetch_repos=fetch_repos, repo_batch=repo_batch)
    # exact file sizes (from the contents the sink downloads anyway) sharpen the partitioner's predictions
    engine = CrawlEngine(search, reserve=reserve, file_sizes=sink.sizes if fetch_content is not None else None,
                         pause=pause)
    sink.rebuild_model(engine.model)
    sink.refetch_unavailable()
    seeds: dict[str, list[SizeRange]] = {}
    if other:
        before = frontier_rows(previous)
        learn_model(before, engine.model)
        for query, by_id in before.items():
            seeds[query] = seed_ranges(by_id)
            if seeds[query] and query not in sink.rows:  # a finished query of the previous crawl
                engine.prior.add_query(done_leaves(by_id))
    sink.totals.queries = len(queries)
    for query in sink.rows:  # finished queries (of any earlier run or task) shape the size prior
        done = sink.done_leaves(query)
        if _tiles(done):
            engine.prior.add_query(done)
    try:
        for platform, query in queries:
            if on_query:
                on_query(platform, query)
            done = sink.done_leaves(query)
            if not _tiles(done):
                engine.crawl_query(query, sink, done=done, seeds=seeds.get(query))
            sink.totals.queries_done += 1
            if on_progress:
                on_progress(sink.totals)
        sink.flush()  # partitions still waiting for repository metadata (after an error they are crawled again)
    finally:
        if reuse is not None:
            reuse.close()
    return engine, sink


def _tiles(done: list[tuple[SizeRange, int]], hi: int = MAX_INDEXED) -> bool:
    pos = 0
    for rng, _ in sorted(done):
        if rng.lo == pos:
            pos = rng.hi
    return pos >= hi


@dataclass
class CrawlSummary:
    platforms: dict[str, int]
    files: int
    new_files: int  # files the corpus did not hold (a refresh: not live in the previous corpus)
    partitions: int
    splits: int
    checks: int
    search_requests: int
    core_requests: int
    raw_requests: int
    rate_limit_waits: int
    waited_seconds: float
    secondary_limits: int
    server_errors: int
    not_modified: int = 0  # conditional requests answered 304 (no quota spent), search ones included
    search_not_modified: int = 0
    reused: int = 0  # files whose content came from the previous corpus (blob sha unchanged)
    graphql_requests: int = 0  # batched repository metadata (up to 100 repos per request)
    incomplete_ranges: int = 0  # leaves search kept calling incomplete: their platforms are not judged for removals
    private_skipped: int = 0  # results in private repositories the token could see: left out

    def line(self) -> str:
        return (f"crawl: {self.files} files ({self.new_files} new) from {self.partitions} partitions "
                f"({self.splits} split, {self.checks} checks); {self.search_requests} search requests, "
                f"{self.core_requests} core, {self.graphql_requests} graphql, {self.raw_requests} raw "
                f"({self.reused} files reused), "
                f"{self.not_modified} not modified (304); "
                f"{self.rate_limit_waits} rate-limit waits "
                f"({self.waited_seconds / 3600:.2f} h), {self.secondary_limits} secondary limits, "
                f"{self.server_errors} server errors"
                + (f"; {self.incomplete_ranges} ranges stayed incomplete (files there may be missing)"
                   if self.incomplete_ranges else "")
                + (f"; {self.private_skipped} results in private repositories left out" if self.private_skipped
                   else ""))


def _new_since(previous: Corpus, found) -> int:
    """Files of a refresh crawl that ``previous`` does not hold live: new to the corpus, not merely to the fresh
    folder the crawl wrote (where every file is new)."""
    if not previous.exists("artifacts"):
        return len(found)
    t = previous.read("artifacts", columns=["artifact_id", "removed_at"])
    live = set(pc.filter(t.column("artifact_id"), pc.is_null(t.column("removed_at"))).to_pylist())
    return sum(1 for aid in found if aid not in live)


def run_github_crawl(corpus: Corpus, api_url: str, tokens, platforms: Iterable[str] | None = None,
                     clock=None, on_progress=None, on_query=None, on_wait=None,
                     previous: Corpus | None = None, conditional: bool = True, reuse_content: bool = True,
                     fetch_workers: int = DEFAULT_FETCH_WORKERS, graphql_batch: int | None = None) -> CrawlSummary:
    """The whole GitHub crawl of the chosen platforms into ``corpus`` (resumable; see module docstring).

    ``previous``: the corpus a refresh crawl learns from (frontier seeds, loss model, validators, and — with
    ``reuse_content`` — the content of files whose blob sha is unchanged); the validators live in ``previous``
    (else ``corpus``) and are updated there. ``conditional=False`` sends no validators. ``fetch_workers``: raw
    downloads of one partition run in this many threads (the raw route spends no quota; latency dominates).
    A file whose download fails for good is kept with drop reason ``content_unavailable`` (and downloaded again
    by the next crawl into the same corpus, see :meth:`CorpusSink.refetch_unavailable`). Repository metadata
    is asked ``graphql_batch`` repos per GraphQL request, across partitions (default 100; 0 = one REST request
    per repo, each partition written as soon as it completes).
    ``on_progress(totals, client_stats)`` is called after every partition."""
    from contextlib import ExitStack

    from aac.core.corpus_lock import corpus_lock

    with ExitStack() as locks:  # the corpus it writes, and the previous corpus whose validators it updates
        locks.enter_context(corpus_lock(corpus.root, "aac crawl"))
        if previous is not None:
            locks.enter_context(corpus_lock(previous.root, "aac crawl (refresh)"))
        return _run_github_crawl(corpus, api_url, tokens, platforms, clock, on_progress, on_query, on_wait, previous,
                                 conditional, reuse_content, fetch_workers, graphql_batch)


def _run_github_crawl(corpus: Corpus, api_url: str, tokens, platforms, clock, on_progress, on_query, on_wait,
                      previous: Corpus | None, conditional: bool, reuse_content: bool, fetch_workers: int,
                      graphql_batch: int | None) -> CrawlSummary:
    import threading

    from aac.collectors.github import GRAPHQL_BATCH, GitHubClient, GitHubError
    from aac.collectors.validators import ValidatorCache

    validators = ValidatorCache(previous or corpus) if conditional else None
    client = GitHubClient(tokens, api_url=api_url, clock=clock, on_wait=on_wait, validators=validators,
                          graphql_batch=GRAPHQL_BATCH if graphql_batch is None else graphql_batch)
    api = threading.Lock()  # the API side of the client (tokens, limits) is used by one thread at a time
    try:
        def content(hit: Hit) -> bytes | None:
            ref = hit.ref
            if not ref:  # (search results carry their commit; else the default branch, cached per repo)
                with api:
                    meta = client.repo_meta(hit.repo)
                ref = (meta or {}).get("default_branch") or "HEAD"
            try:
                return client.raw(hit.repo, ref, hit.path)
            except GitHubError as exc:
                log.warning("content of %s/%s not fetched: %s", hit.repo, hit.path, client.scrub(str(exc)))
                return None

        progress = (lambda t: on_progress(t, client.stats)) if on_progress else None
        engine, sink = crawl_queries_into(corpus, client.search_code, platform_queries(platforms), content,
                                          client.repo_meta, reserve=lambda n: client.reserve("search", n),
                                          on_progress=progress, on_query=on_query, previous=previous,
                                          reuse_content=reuse_content, fetch_workers=fetch_workers,
                                          fetch_repos=client.repo_meta_many, repo_batch=max(client.graphql_batch, 1),
                                          pause=client.pause)
        st = client.stats
        t = sink.totals
        counts = {r["platform"]: r["n"] for r in corpus.sql(
            "select platform, count(*) as n from artifacts where status = 'collected' group by platform").to_pylist()}
        new_files = t.new_files if previous is None else _new_since(previous, sink.owner)
        return CrawlSummary(dict(sorted(counts.items())), len(sink.owner), new_files, t.partitions,
                            t.splits, t.checks, st.search_requests, st.core_requests, st.raw_requests,
                            st.rate_limit_waits, st.waited_seconds, st.secondary_limits, st.server_errors,
                            st.not_modified, st.search_not_modified, t.reused, st.graphql_requests,
                            engine.stats.incomplete, t.private_skipped)
    finally:
        if validators is not None:
            validators.save()
        client.close()
