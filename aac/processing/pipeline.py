"""Compose the processing steps over the artifacts table, batch-wise, so memory stays bounded at corpus scale.

Flow of one ``process`` run (every step is a pure function from the modules named):

1. **stage** — rows the crawler wrote into ``artifacts`` (status ``collected``/``removed``) are merged into
   ``raw_artifacts`` (original content, keyed by artifact_id). ``artifacts`` is then always *derived* from
   ``raw_artifacts``, so a re-run recomputes the same table instead of re-processing redacted output.
2. **pass 1** (streaming over ``raw_artifacts``): normalise or drop (normalize.py), licence verdict (licenses.py),
   redact secrets (secrets.py), tag (tagging.py), content hash + MinHash signature (dedupe.py). Batches go to a
   staging folder; only small per-artifact metadata and one signature per distinct content stay in memory.
3. **dedupe** over that metadata (order-independent, dedupe.py).
4. **pass 2** (streaming over the staging folder): apply dedupe decisions, final status, template authorship;
   atomically replace ``artifacts``; then ``items`` for the kept artifacts (segment helper's ``itemize_many``).

**Incremental** (default): pass 1's output per artifact is kept in the table ``process_stage`` with a hash of
its input (the whole raw row, the repository licence and the settings pass 1 depends on) and its MinHash
signature. A later run re-runs pass 1 only for rows whose input hash changed (new or changed artifacts on a
refresh) and reuses the stored rows and signatures of the others; dedupe still sees every signature (clusters
are global). The stage table also records, per artifact, which (path, content) its items in ``items`` were
made from and the fingerprint of the classifier that typed them (``aac.classifiers.base``: code version,
options, digest of the model). An artifact whose (path, content) is unchanged keeps its items when the
fingerprint is the same, and has them re-typed (segmentation kept) when the classifier or its model changed;
the others are segmented and typed afresh. Both keys include a digest of the code that
produced them (:mod:`aac.core.codehash`: the step modules, the ``aac`` modules they import and the versions of the
libraries they rest on), so a change of that code redoes the pass on the next run without ``--full``.
``ProcessConfig(incremental=False)`` (``aac process --full``) recomputes everything regardless.

Statuses: ``kept`` (publishable), ``private`` (licence not permissive: content only with ``keep_private``),
``dropped`` (bad input, exact duplicate, not an agent file), ``removed`` (gone upstream).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
import multiprocessing
from collections import deque
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from aac.classifiers.base import fingerprint_of
from aac.core.codehash import code_digest
from aac.core.platforms import platform_of
from aac.core.ids import artifact_id as make_artifact_id
from aac.core import licenses
from aac.processing import item_record, normalize, secrets, tagging
from aac.processing.dedupe import NearDupConfig, content_sha256, dedupe
from aac.core.schema import ARTIFACTS, REPOS
from aac.core.store import Corpus

log = logging.getLogger(__name__)

INPUT_STATUSES = ("collected", "removed")
# Pass 1's and segmentation's outputs are redone when their code changes: the digest covers the step modules (and
# the aac modules they import) and the libraries whose behaviour shapes the rows. The version numbers cover what
# the digests do not: this module's own code that assembles the rows; bump them when that changes the output.
STAGE_VERSION = 1
ITEMS_VERSION = 1
PASS1_MODULES = ("aac.processing.normalize", "aac.core.licenses", "aac.processing.secrets",
                 "aac.processing.tagging", "aac.processing.dedupe")
PASS1_LIBRARIES = ("detect-secrets", "datasketch", "pyyaml")
ITEMS_MODULES = ("aac.processing.items", "aac.processing.item_batches")  # segment, scope, tokens, ids, schema follow from its imports
ITEMS_LIBRARIES = ("markdown-it-py", "pyyaml", "regex")


def stage_code() -> str:
    return code_digest(PASS1_MODULES, PASS1_LIBRARIES)


def items_code() -> str:
    # the classifier that types the items is tracked by its own fingerprint (re-typing, not re-segmenting)
    return code_digest(ITEMS_MODULES, ITEMS_LIBRARIES, exclude=("aac.classifiers",))


def _segmentation_code() -> str:
    """What the items of a (path, content) depend on besides it: part of every items key, and recorded."""
    return f"{ITEMS_VERSION}:{items_code()}"


# Rows the crawler itself wrote as dropped (their reason comes from the collector); processed rows never carry these.
CRAWL_DROP_REASONS = ("content_unavailable", "not_an_agent_file", "symlink")
_TS = pa.timestamp("us", tz="UTC")


@dataclass(frozen=True)
class ProcessConfig:
    keep_private: bool = False
    allow: frozenset[str] = licenses.PERMISSIVE
    near: NearDupConfig = field(default_factory=NearDupConfig)
    template_min_repos: int = tagging.TEMPLATE_MIN_REPOS
    max_bytes: int = normalize.MAX_BYTES
    batch_size: int = 2000
    workers: int = 1
    items: bool = True
    classifier: object | None = None  # an aac.classifiers Classifier; None = get_classifier("default")
    incremental: bool = True  # reuse pass-1 rows, signatures and items of unchanged inputs (see module docstring)

    def stage_fingerprint(self) -> str:
        """The settings pass 1 depends on (not keep_private, dedupe threshold or items: later steps)."""
        return json.dumps([STAGE_VERSION, stage_code(), sorted(self.allow), self.max_bytes, self.near.num_perm,
                           self.near.shingle, self.near.seed])


@dataclass
class StepStat:
    name: str
    rows: int = 0
    seconds: float = 0.0
    peak_rss_mb: float = 0.0


@dataclass
class ProcessReport:
    processed: int = 0  # raw rows run through pass 1 (normalise, licence, secrets, tags, MinHash) this run
    reused: int = 0  # raw rows whose stored pass-1 row and signature were reused
    items_reused: int = 0  # artifacts whose items were kept from the previous run
    items_retyped: int = 0  # artifacts whose stored items were re-typed: the classifier's fingerprint changed
    item_rows_retyped: int = 0  # the item rows of those artifacts
    items_itemised: int = 0  # artifacts segmented and classified this run
    classifier: str | None = None  # fingerprint of the classifier that typed the items (None: it has none)
    artifacts: int = 0
    kept: int = 0
    private: int = 0
    dropped: int = 0
    items: int = 0
    drop_reasons: dict[str, int] = field(default_factory=dict)
    steps: list[StepStat] = field(default_factory=list)

    def to_dict(self) -> dict:
        """Plain JSON-able dict (steps as dicts): what the ``process`` flow returns and the refresh report holds."""
        return asdict(self)


# ---- input from records (demo, tests, bench) --------------------------------------------------------------

def _ts(value) -> datetime | None:
    if value is None or isinstance(value, datetime):
        return value
    try:
        return datetime.fromisoformat(str(value).replace("Z", "+00:00")).astimezone(timezone.utc)
    except ValueError:
        return None


def _as_text(content) -> str | None:
    """Arrow strings must be UTF-8: raw bytes are decoded with replacement (normalize judges the damage)."""
    if content is None or isinstance(content, str):
        return content
    return bytes(content).decode("utf-8", errors="replace")


def artifacts_from_records(records: Iterable[dict], collected_at: datetime | None = None) -> tuple[pa.Table, pa.Table]:
    """``artifacts`` rows (status ``collected``) and ``repos`` rows from snapshot-style records, as a crawl writes them.

    Records: {repo, path, content, license_spdx?, license_text?, stars?, language?, commit?, pushed_at?}.
    """
    collected_at = collected_at or datetime(2026, 1, 1, tzinfo=timezone.utc)
    arts: dict[str, dict] = {}
    repos: dict[str, dict] = {}
    for r in records:
        repo, path = r["repo"], r["path"]
        text = _as_text(r.get("content"))
        spdx = r.get("license_spdx")
        source = "api" if spdx else "none"
        if not spdx and r.get("license_text"):
            spdx = licenses.detect_license(r["license_text"])
            source = "license_file" if spdx else "none"
        aid = make_artifact_id(repo, path)
        arts[aid] = {
            "artifact_id": aid, "repo": repo, "path": path, "platform": platform_of(path),
            "size_bytes": len(text.encode("utf-8")) if text is not None else None,
            "commit_sha": r.get("commit"), "html_url": f"https://github.com/{repo}/blob/{r.get('commit') or 'HEAD'}/{path}",
            "license_spdx": spdx, "content": text, "status": "collected", "collected_at": collected_at,
        }
        repos[repo] = {
            "full_name": repo, "stars": r.get("stars"), "language": r.get("language"), "license_spdx": spdx,
            "license_source": source, "pushed_at": _ts(r.get("pushed_at")), "fetched_at": collected_at,
        }
    art_cols = {f.name: [a.get(f.name) for a in arts.values()] for f in ARTIFACTS}
    repo_cols = {f.name: [x.get(f.name) for x in repos.values()] for f in REPOS}
    return pa.Table.from_pydict(art_cols, schema=ARTIFACTS), pa.Table.from_pydict(repo_cols, schema=REPOS)


def load_records(corpus: Corpus, records: Iterable[dict], collected_at: datetime | None = None) -> int:
    """Write records into ``artifacts``/``repos`` as a crawl would (upsert by key); returns artifacts written."""
    arts, repos = artifacts_from_records(records, collected_at)
    corpus.upsert("repos", repos)
    corpus.upsert("artifacts", arts)
    return arts.num_rows


# ---- step 1: stage ----------------------------------------------------------------------------------------

def _crawler_rows(b: pa.RecordBatch) -> pa.Array:
    """Mask of rows written by the crawler (not yet processed)."""
    fresh = pc.is_in(b.column("status"), pa.array(INPUT_STATUSES))
    crawl_dropped = pc.and_(pc.equal(b.column("status"), "dropped"),
                            pc.is_in(b.column("drop_reason"), pa.array(CRAWL_DROP_REASONS)))
    return pc.fill_null(pc.or_(fresh, crawl_dropped), False)


def _as_baseline(b: pa.RecordBatch) -> pa.RecordBatch:
    """Processed rows taken as raw input: a kept or private file with its content is ``collected`` again (pass 1
    judges its content anew); a dropped, removed or content-less private row keeps its status and reason
    (:func:`process_row` passes such rows through)."""
    status = b.column("status")
    again = pc.fill_null(pc.and_(pc.is_in(status, pa.array(["kept", "private"])), pc.is_valid(b.column("content"))),
                         False)
    return b.set_column(b.schema.get_field_index("status"), "status",
                        pc.if_else(again, pa.scalar("collected"), status))


def stage_raw(corpus: Corpus, batch_size: int = 8192) -> int:
    """Merge the crawler's new rows in ``artifacts`` into ``raw_artifacts`` (new rows win). Returns rows staged.

    Rows of ``artifacts`` that no processing run made from ``raw_artifacts`` - a corpus installed by ``aac pull``
    (a release carries no raw rows), or one whose ``raw_artifacts`` was deleted before it was shared - are
    staged too, as the baseline (:func:`_as_baseline`): otherwise the run would rebuild ``artifacts`` from the
    raw rows alone and lose every one of them, and a refresh of a pulled release would keep only what it
    crawled anew."""
    if not corpus.exists("artifacts"):
        return 0
    raw_ids = set()
    for b in corpus.iter_batches("raw_artifacts", columns=["artifact_id"], batch_size=batch_size):
        raw_ids.update(b.column("artifact_id").to_pylist())
    new_ids: set[str] = set()
    baseline: set[str] = set()
    for b in corpus.iter_batches("artifacts", columns=["artifact_id", "status", "drop_reason"], batch_size=batch_size):
        crawler = _crawler_rows(b)
        new_ids.update(pc.filter(b.column("artifact_id"), crawler).to_pylist())
        baseline.update(a for a in pc.filter(b.column("artifact_id"), pc.invert(crawler)).to_pylist()
                        if a not in raw_ids)
    baseline -= new_ids
    if not new_ids and not baseline:
        return 0
    if baseline:
        log.info("%d processed artifacts have no raw row (a pulled release?): staged as the baseline", len(baseline))
    id_set = pa.array(sorted(new_ids | baseline))
    adopt = pa.array(sorted(baseline))

    def merged() -> Iterator[pa.RecordBatch]:
        for b in corpus.iter_batches("raw_artifacts", batch_size=batch_size):
            keep = pc.invert(pc.is_in(b.column("artifact_id"), id_set))
            yield b.filter(keep)
        for b in corpus.iter_batches("artifacts", batch_size=batch_size):
            yield b.filter(_crawler_rows(b))
            if baseline:
                yield _as_baseline(b.filter(pc.is_in(b.column("artifact_id"), adopt)))

    corpus.replace("raw_artifacts", merged())
    return len(new_ids) + len(baseline)


# ---- step 2: per-artifact work (pure) ---------------------------------------------------------------------

_STAGE_EXTRA = [
    pa.field("_publishable", pa.bool_()),
    pa.field("_stars", pa.int64()),
    pa.field("_pushed_at", _TS),
    pa.field("_input_key", pa.string()),  # hash of what pass 1 read: a stored row is reused while it matches
    pa.field("_signature", pa.list_(pa.uint32())),  # MinHash of the redacted text (None when no content)
]
_STAGE_ONLY = [f.name for f in _STAGE_EXTRA]
STAGE_SCHEMA = pa.schema(list(ARTIFACTS) + _STAGE_EXTRA)


def _base_row(row: dict, repo: dict) -> dict:
    out = {k: row.get(k) for k in ARTIFACTS.names}
    out["_stars"] = repo.get("stars")
    out["_pushed_at"] = repo.get("pushed_at")
    out["_publishable"] = False
    out.update(near_dup_of=None, dup_cluster_size=None, dup_cluster_repos=None, secrets_found=None, secret_kinds=None,
               content_sha256=None, input_fixes=None, drop_reason=None)
    return out


def process_row(row: dict, repo: dict | None, cfg: ProcessConfig) -> dict:
    """One raw artifact -> its processed row (without dedupe decisions). Never raises on bad content."""
    repo = repo or {}
    out = _base_row(row, repo)
    if row.get("status") in ("removed", "dropped") or (row.get("status") == "private" and row.get("content") is None):
        # gone upstream, dropped by the crawler with its reason, or a processed row staged as a baseline whose
        # content is gone (stage_raw): nothing to judge again
        out.update(status=row["status"], drop_reason=row.get("drop_reason"), content=None)
        return out
    platform = row.get("platform") or platform_of(row["path"])
    out["platform"] = platform
    norm = normalize.normalize(row.get("content"), cfg.max_bytes)
    out["input_fixes"] = ",".join(norm.fixes) or None
    if not norm.kept:
        out.update(status="dropped", drop_reason=norm.drop_reason, content=None)
        return out
    if platform is None:
        out.update(status="dropped", drop_reason="not_an_agent_file", content=None)
        return out
    text = norm.text
    spdx = licenses.resolve_spdx(row.get("license_spdx"), repo.get("license_spdx"))
    verdict = licenses.license_verdict(spdx, cfg.allow)
    scrubbed = secrets.scrub(text)
    tags = tagging.tag(row["repo"], row["path"], text)
    out.update(
        license_spdx=spdx, content_sha256=content_sha256(text), content=scrubbed.text,
        size_bytes=len(text.encode("utf-8")), secrets_found=scrubbed.found, secret_kinds=list(scrubbed.kinds),
        function=tags.function, authorship=tags.authorship, specificity=tags.specificity,
        status="kept" if verdict.keep else "private", drop_reason=verdict.reason, _publishable=verdict.keep,
    )
    return out


def process_row_or_drop(row: dict, repo: dict | None, cfg: ProcessConfig) -> dict:
    """:func:`process_row`, or, if a bug in a step raises on this file, the file dropped as ``processing_error``
    (logged with its repo and path and the exception's type, never its content): one file must not stop a run."""
    try:
        return process_row(row, repo, cfg)
    except Exception as exc:  # noqa: BLE001 - any step's failure on one input
        log.warning("processing %s:%s failed (%s); dropped as processing_error", row.get("repo"), row.get("path"),
                    type(exc).__name__)
        out = _base_row(row, repo or {})
        out.update(status="dropped", drop_reason="processing_error", content=None)
        return out


def input_key(row: dict, repo: dict | None, fingerprint: str) -> str:
    """Hash of everything pass 1 reads for one artifact: the raw row, the repository licence, the settings."""
    h = hashlib.sha256(fingerprint.encode())
    h.update(json.dumps([row.get(k) for k in ARTIFACTS.names], default=str, ensure_ascii=False).encode("utf-8", "surrogatepass"))
    h.update(json.dumps((repo or {}).get("license_spdx")).encode())
    return h.hexdigest()


def _process_batch(args: tuple[list[dict], dict[str, dict], ProcessConfig]) -> tuple[pa.Table, dict[str, np.ndarray]]:
    """Worker: raw rows (with their ``_input_key``) -> (staged table, {content_sha256: signature})."""
    rows, repos, cfg = args
    out, sigs = [], {}
    for row in rows:
        o = process_row_or_drop(row, repos.get(row["repo"]), cfg)
        sha = o["content_sha256"]
        if sha is not None and sha not in sigs:
            sigs[sha] = cfg.near.signature(o["content"])  # the redacted text: identical for identical contents
        o["_input_key"] = row["_input_key"]
        o["_signature"] = sigs[sha].tolist() if sha is not None else None
        out.append(o)
    return pa.Table.from_pylist(out, schema=STAGE_SCHEMA), sigs


# ---- orchestration ----------------------------------------------------------------------------------------

def _one_classify_process() -> None:
    os.environ["AAC_CLASSIFY_WORKERS"] = "1"  # see aac.classifiers.parallel


def ordered_map(fn: Callable, items: Iterable, workers: int) -> Iterator:
    """``map`` over worker processes, results in input order, at most ``2 * workers`` inputs in flight.

    (``Executor.map`` would read the whole input up front; here memory stays bounded.) Workers are spawned,
    not forked: forking a process that runs DuckDB or Prefect threads can deadlock. They already share out the
    cores, so the classifier inside each stays in one process (no pool of its own per worker).
    """
    if workers <= 1:
        yield from map(fn, items)
        return
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                             initializer=_one_classify_process) as pool:
        pending: deque = deque()
        for item in items:
            pending.append(pool.submit(fn, item))
            if len(pending) >= 2 * workers:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()


def _peak_rss_mb() -> float:
    """Peak resident memory so far of this process and of its (finished) worker processes, in MiB."""
    import resource

    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return max(own, children) / 1024


def _repos_lookup(corpus: Corpus) -> dict[str, dict]:
    if not corpus.exists("repos"):
        return {}
    t = corpus.read("repos", columns=["full_name", "stars", "license_spdx", "pushed_at"])
    return {r["full_name"]: r for r in t.to_pylist()}


def _write_stage(path: Path, tbl: pa.Table) -> None:
    tmp = path.with_name(f".tmp-{uuid.uuid4().hex}")
    pq.write_table(tbl, tmp, compression="zstd")
    os.replace(tmp, path)


def _stored_keys(corpus: Corpus, cfg: ProcessConfig) -> dict[str, str]:
    """artifact_id -> input key of the stored pass-1 rows (empty when not incremental or never processed)."""
    if not cfg.incremental or not corpus.exists("process_stage"):
        return {}
    t = corpus.read("process_stage", columns=["artifact_id", "_input_key"])
    return dict(zip(t.column("artifact_id").to_pylist(), t.column("_input_key").to_pylist()))


def _raw_batches(corpus: Corpus, batch_size: int, repos: dict[str, dict], cfg: ProcessConfig,
                 stored: dict[str, str], reuse: dict[str, str]):
    """Raw rows whose input changed since the stored pass-1 row; the unchanged ones go to ``reuse`` instead."""
    fp = cfg.stage_fingerprint()
    for b in corpus.iter_batches("raw_artifacts", batch_size=batch_size):
        todo = []
        for row in b.to_pylist():
            key = input_key(row, repos.get(row["repo"]), fp)
            if stored.get(row["artifact_id"]) == key:
                reuse[row["artifact_id"]] = key
            else:
                row["_input_key"] = key
                todo.append(row)
        if todo:
            names = {r["repo"] for r in todo}
            yield todo, {r: repos[r] for r in names if r in repos}, cfg


def _reused_batches(corpus: Corpus, reuse: dict[str, str], repos: dict[str, dict]) -> Iterator[pa.Table]:
    """The stored pass-1 rows of ``reuse`` (stars and push date refreshed from ``repos``: dedupe ranks by them)."""
    if not reuse:
        return
    ids = pa.array(sorted(reuse))
    for b in corpus.iter_batches("process_stage", batch_size=4096):
        t = pa.Table.from_batches([b]).filter(pc.is_in(b.column("artifact_id"), ids))
        if not t.num_rows:
            continue
        repo_col = t.column("repo").to_pylist()
        t = t.set_column(t.schema.get_field_index("_stars"), "_stars",
                         pa.array([(repos.get(r) or {}).get("stars") for r in repo_col], pa.int64()))
        t = t.set_column(t.schema.get_field_index("_pushed_at"), "_pushed_at",
                         pa.array([(repos.get(r) or {}).get("pushed_at") for r in repo_col], _TS))
        yield t.select(STAGE_SCHEMA.names).cast(STAGE_SCHEMA)


def _final_batches(stage_dir: Path, decisions: pa.Table, cfg: ProcessConfig, report: ProcessReport) -> Iterator[pa.Table]:
    """The artifacts table: each staged part with the dedupe decisions applied, column by column with Arrow compute
    (only the id lookup is per row: the paper-size corpus has 400k rows)."""
    row_of = {a: i for i, a in enumerate(decisions.column("artifact_id").to_pylist())}  # built once, not per part
    for part in sorted(stage_dir.glob("part-*.parquet")):
        t = pq.read_table(part)
        at = pa.array([row_of.get(a) for a in t.column("artifact_id").to_pylist()], pa.int64())  # null: no decision

        def decision(name: str, keep: pa.ChunkedArray) -> pa.ChunkedArray:
            return pc.if_else(pc.is_valid(at), decisions.column(name).take(at).cast(keep.type), keep)

        exact = pc.fill_null(decisions.column("exact_duplicate").take(at), False)
        near_of = decision("near_dup_of", t.column("near_dup_of"))
        size = decision("dup_cluster_size", t.column("dup_cluster_size"))
        repos_n = decision("dup_cluster_repos", t.column("dup_cluster_repos"))
        status = pc.if_else(exact, pa.scalar("dropped"), t.column("status"))
        drop_reason = pc.if_else(exact, pa.scalar("exact_duplicate"), t.column("drop_reason"))
        copied = pc.fill_null(pc.and_(pc.equal(t.column("authorship"), "human"),
                                      pc.greater_equal(repos_n, cfg.template_min_repos)), False)
        authorship = pc.if_else(pc.and_(pc.invert(exact), copied), pa.scalar("template_copy"), t.column("authorship"))
        gone = exact if cfg.keep_private else pc.or_(exact, pc.fill_null(pc.equal(status, "private"), False))
        content = pc.if_else(gone, pa.scalar(None, t.schema.field("content").type), t.column("content"))
        for name, col in (("near_dup_of", near_of), ("dup_cluster_size", size), ("dup_cluster_repos", repos_n),
                          ("status", status), ("drop_reason", drop_reason), ("authorship", authorship),
                          ("content", content)):
            t = t.set_column(t.schema.get_field_index(name), name, col)
        report.artifacts += t.num_rows
        for value in pc.value_counts(t.column("status")).to_pylist():
            if value["values"] in ("kept", "private", "dropped"):
                setattr(report, value["values"], getattr(report, value["values"]) + value["counts"])
        reasons = t.column("drop_reason").filter(pc.fill_null(pc.not_equal(t.column("status"), "kept"), True))
        for value in pc.value_counts(reasons.filter(pc.fill_null(pc.not_equal(reasons, ""), False))).to_pylist():
            report.drop_reasons[value["values"]] = report.drop_reasons.get(value["values"], 0) + value["counts"]
        yield t.select(ARTIFACTS.names).cast(ARTIFACTS)


def _item_key(path: str, content: str) -> str:
    key = f"{_segmentation_code()}\0{path}\0{content}"
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


def _item_records(corpus: Corpus, keep_private: bool, before: dict[str, tuple[str, str | None]],
                  fingerprint: str | None, sort: dict[str, set], typed: dict[str, str]) -> Iterator[tuple[str, str, str]]:
    """Artifacts to segment and type; those whose (path, content) key is unchanged since ``before`` go to
    ``sort["reuse"]`` (same classifier fingerprint) or ``sort["retype"]`` (another one, or none) instead."""
    statuses = ("kept", "private") if keep_private else ("kept",)
    for b in corpus.iter_batches("artifacts", columns=["artifact_id", "path", "status", "content"], batch_size=2048):
        for r in b.to_pylist():
            if r["status"] in statuses and r["content"] is not None:
                aid, key = r["artifact_id"], _item_key(r["path"], r["content"])
                typed[aid] = key
                old = before.get(aid)
                if old is not None and old[0] == key:
                    same = fingerprint is not None and old[1] == fingerprint
                    sort["reuse" if same else "retype"].add(aid)
                    continue
                sort["made"].add(aid)
                yield aid, r["path"], r["content"]


def _items_chunk(records: list[tuple[str, str, str]]) -> list[pa.RecordBatch]:
    from aac.processing.item_batches import itemize_many

    return list(itemize_many(records))


def _retype_chunk(table: pa.Table) -> pa.Table:
    from aac.classifiers.batch import retype_batch
    from aac.processing.items import resolve_classifier

    return retype_batch(resolve_classifier(None), table)


def _chunks(it: Iterable, n: int) -> Iterator[list]:
    chunk: list = []
    for x in it:
        chunk.append(x)
        if len(chunk) >= n:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def write_items(corpus: Corpus, cfg: ProcessConfig, before: dict[str, tuple[str, str | None]] | None = None,
                report: ProcessReport | None = None, typed: dict[str, str] | None = None) -> int:
    """Replace ``items`` with the typed items of the kept artifacts (the segment helper's ``itemize_many``).

    Items are deterministic per artifact, so chunks typed in worker processes give the same table. ``before``
    (:func:`item_record.stored`) says which items the table holds: an artifact whose (path, content) is
    unchanged keeps its rows when they were typed under the current classifier's fingerprint, and has the same
    rows re-typed otherwise (``retype_batch`` reads exactly what ``itemize`` feeds the classifier). ``typed``
    receives artifact_id -> items key of every artifact that has items afterwards (the next run's record)."""
    from aac.classifiers.batch import retype_batch
    from aac.processing.item_batches import itemize_many
    from aac.processing.items import resolve_classifier

    clf = resolve_classifier(cfg.classifier)
    fingerprint = fingerprint_of(clf)
    sort: dict[str, set] = {"reuse": set(), "retype": set(), "made": set()}
    typed = {} if typed is None else typed
    retyped_rows = [0]
    records = _item_records(corpus, cfg.keep_private, before or {}, fingerprint, sort, typed)
    in_workers = cfg.workers > 1 and cfg.classifier is None
    if in_workers:
        fresh = (b for bs in ordered_map(_items_chunk, _chunks(records, 500), cfg.workers) for b in bs)
    else:
        fresh = itemize_many(records, classifier=clf)

    def stored(ids: set[str]) -> Iterator[pa.Table]:
        wanted = pa.array(sorted(ids))
        for b in corpus.iter_batches("items", batch_size=8192):
            t = pa.Table.from_batches([b]).filter(pc.is_in(b.column("artifact_id"), wanted))
            if t.num_rows:
                yield t

    def retyped() -> Iterator[pa.Table]:
        for t in (ordered_map(_retype_chunk, stored(sort["retype"]), cfg.workers) if in_workers
                  else (retype_batch(clf, t) for t in stored(sort["retype"]))):
            retyped_rows[0] += t.num_rows
            yield t

    def fresh_then_stored():
        yield from fresh  # first: it sorts every artifact while the artifacts are read
        if sort["reuse"]:
            yield from stored(sort["reuse"])
        if sort["retype"]:
            yield from retyped()

    n = corpus.replace("items", fresh_then_stored(), allow_empty=True)  # no kept artifacts: no items
    if report is not None:
        report.items_reused, report.items_retyped = len(sort["reuse"]), len(sort["retype"])
        report.items_itemised, report.item_rows_retyped = len(sort["made"]), retyped_rows[0]
        report.classifier = fingerprint
    return n


def processing_code(cfg: ProcessConfig, before: dict | None = None) -> dict:
    """What the stored rows of a run with ``cfg`` depend on besides their inputs: pass 1's settings and code,
    and the segmentation code (carried over from ``before`` when this run makes no items)."""
    items = _segmentation_code() if cfg.items else (before or {}).get("items")
    return {"stage": cfg.stage_fingerprint(), "items": items}


def awaiting_processing(corpus: Corpus) -> int:
    """Artifacts a merge or crawl stored as ``collected`` that no processing run has judged yet (a refresh killed
    or failed after its merge leaves them; publishing holds them back until processed)."""
    if not corpus.exists("artifacts"):
        return 0
    return corpus.sql("SELECT count(*) AS n FROM artifacts WHERE status = 'collected'").to_pylist()[0]["n"]


def processing_outdated(corpus: Corpus, cfg: ProcessConfig = ProcessConfig()) -> bool:
    """Whether a run has work although no input changed since the last refresh: artifacts still wait as
    ``collected`` (an earlier run stopped after its merge), the classifier or its model changed (items re-typed),
    or the processing code did (pass 1 or segmentation redone). Else False, and False before any run."""
    from aac.processing.items import resolve_classifier

    if awaiting_processing(corpus):
        return True
    if not corpus.exists("process_stage"):
        return False
    if cfg.items and item_record.types_outdated(corpus, fingerprint_of(resolve_classifier(cfg.classifier))):
        return True
    before = item_record.recorded_code(corpus)
    return before != processing_code(cfg, before)


def run(corpus: Corpus, cfg: ProcessConfig = ProcessConfig(),
        on_step: Callable[[StepStat], None] | None = None) -> ProcessReport:
    """The whole processing pass; atomic per table and idempotent (a re-run yields identical tables). Holds the
    corpus lock (:mod:`aac.core.corpus_lock`): a second run on the same corpus waits, then refuses."""
    from aac.core.corpus_lock import corpus_lock

    with corpus_lock(corpus.root, "aac process"):
        return _run(corpus, cfg, on_step)


def _run(corpus: Corpus, cfg: ProcessConfig, on_step: Callable[[StepStat], None] | None) -> ProcessReport:
    report = ProcessReport()

    def step(name: str, fn: Callable[[], int]):
        t0 = time.perf_counter()
        rows = fn()
        stat = StepStat(name, rows, time.perf_counter() - t0, _peak_rss_mb())
        report.steps.append(stat)
        if on_step:
            on_step(stat)
        return rows

    step("stage", lambda: stage_raw(corpus))
    stage_dir = corpus.root / "tmp" / "process-stage"
    shutil.rmtree(stage_dir, ignore_errors=True)
    stage_dir.mkdir(parents=True)
    repos = _repos_lookup(corpus)
    metas: list[pa.Table] = []
    sigs: dict[str, np.ndarray] = {}
    stored = _stored_keys(corpus, cfg)
    reuse: dict[str, str] = {}

    def keep(i: int, tbl: pa.Table) -> None:
        _write_stage(stage_dir / f"part-{i:06d}.parquet", tbl)
        live = tbl.filter(pc.is_valid(tbl.column("content_sha256")))
        metas.append(live.select(["artifact_id", "repo", "path", "_stars", "_pushed_at", "collected_at",
                                  "_publishable", "content_sha256"]))

    def pass1() -> int:
        i = 0
        batches = _raw_batches(corpus, cfg.batch_size, repos, cfg, stored, reuse)
        for tbl, batch_sigs in ordered_map(_process_batch, batches, cfg.workers):
            keep(i, tbl)
            i += 1
            for sha, sig in batch_sigs.items():
                sigs.setdefault(sha, sig)
            report.processed += tbl.num_rows
        for tbl in _reused_batches(corpus, reuse, repos):
            keep(i, tbl)
            i += 1
            live = tbl.filter(pc.is_valid(tbl.column("content_sha256")))
            for sha, sig in zip(live.column("content_sha256").to_pylist(), live.column("_signature").to_pylist()):
                if sha not in sigs:
                    sigs[sha] = np.asarray(sig, dtype=np.uint32)
            report.reused += tbl.num_rows
        return report.processed + report.reused

    step("normalize+license+secrets+tags+minhash", pass1)
    decisions_box: list[pa.Table] = []

    def dedupe_step() -> int:
        meta = pa.concat_tables(metas) if metas else STAGE_SCHEMA.empty_table().select(
            ["artifact_id", "repo", "path", "_stars", "_pushed_at", "collected_at", "_publishable", "content_sha256"])
        meta = meta.rename_columns(["artifact_id", "repo", "path", "stars", "pushed_at", "collected_at", "publishable",
                                    "content_sha256"])
        decisions_box.append(dedupe(meta, sigs, cfg.near))
        metas.clear()
        sigs.clear()
        return meta.num_rows

    step("dedupe exact+near", dedupe_step)
    record = item_record.stored(corpus)  # which items ``items`` holds: read before either table is rewritten
    step("write artifacts", lambda: corpus.replace("artifacts", _final_batches(stage_dir, decisions_box[0], cfg, report)))
    code = processing_code(cfg, item_record.recorded_code(corpus))
    with item_record.rewriting_items(corpus, code=code):  # the record is distrusted until both tables are written
        if cfg.items:
            typed: dict[str, str] = {}
            report.items = step("items+classify",
                                lambda: write_items(corpus, cfg, record if cfg.incremental else {}, report, typed))
            record = {a: (k, report.classifier) for a, k in typed.items()}
        # without items this run, ``items`` is untouched and its (trusted) record carries over
        staged = (pq.read_table(f) for f in sorted(stage_dir.glob("part-*.parquet")))
        corpus.replace("process_stage", item_record.with_record(staged, record))
    shutil.rmtree(stage_dir, ignore_errors=True)
    corpus.refresh_catalog()
    return report


def report_json(report: ProcessReport) -> str:
    d = {k: v for k, v in report.__dict__.items() if k != "steps"}
    d["steps"] = [s.__dict__ for s in report.steps]
    return json.dumps(d, indent=2, sort_keys=True)
