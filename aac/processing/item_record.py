"""Which items the table ``items`` holds, and which classifier typed them: what lets ``aac process`` reuse them.

``process_stage`` carries two columns per artifact (``ITEMS_RECORD``): the key of the (path, content) its items
were made from and the fingerprint of the classifier that typed them. Two tables cannot be replaced in one
atomic step, so a small state file next to them says whether the record can be trusted:

- ``pending``: a writer of ``items`` started and has not yet brought the record up to date (or was killed):
  nothing recorded is trusted, the next run segments and types every artifact again;
- ``typed_by`` (optional): a later re-typing of the whole table (``aac classify corpus``) typed every row with
  this fingerprint, whatever the per-artifact column says.

The per-artifact record is also trusted only for artifacts that still have rows in ``items`` (a refresh drops
the items of changed files without touching the record).
"""

from __future__ import annotations

import json
import os
import uuid
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from aac.core.store import Corpus

ITEMS_RECORD = [
    pa.field("_items_key", pa.string()),  # hash of (segmentation code, path, final content) the items were made from
    pa.field("_typed_by", pa.string()),  # fingerprint of the classifier that typed them (null: it had none)
]
Record = dict[str, tuple[str, "str | None"]]  # artifact_id -> (items key, fingerprint)


def state_path(corpus: Corpus) -> Path:
    return corpus.tables_dir / "process_stage.items.json"


def _read_state(corpus: Corpus) -> dict | None:
    try:
        state = json.loads(state_path(corpus).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return state if isinstance(state, dict) else None


def _write_state(corpus: Corpus, state: dict) -> None:
    path = state_path(corpus)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".tmp-{uuid.uuid4().hex}")
    tmp.write_text(json.dumps(state), encoding="utf-8")
    os.replace(tmp, path)


def distrust(corpus: Corpus) -> None:
    """``items`` is about to be replaced by something that keeps no record (e.g. a Hub pull)."""
    if state_path(corpus).parent.is_dir():
        _write_state(corpus, {"pending": True})


RETYPE_IN_PROGRESS = "unknown:retype-in-progress"  # never a classifier's fingerprint


@contextmanager
def rewriting_items(corpus: Corpus, typed_by: str | None = None, whole_table: bool = False,
                    code: dict | None = None) -> Iterator[None]:
    """Wrap every rewrite of ``items``: the record is distrusted until the block completes.

    ``whole_table``: the block re-types every row with the classifier of fingerprint ``typed_by`` (the
    per-artifact record stays right about contents, this overrides its fingerprints; ``None`` = unknown).
    Otherwise the block must itself rewrite ``process_stage`` with an up-to-date record, made by the
    processing code ``code`` (see :func:`recorded_code`).
    """
    before = _read_state(corpus)
    if whole_table:
        # a retype changes no row's membership, only its type: the record stays right about contents throughout,
        # and until the block ends the types are nobody's (a killed or failed run leaves them to be re-typed)
        base = before if before is not None else {"pending": True}  # never recorded: nothing to keep trusting
        _write_state(corpus, {**base, "typed_by": RETYPE_IN_PROGRESS})
        yield
        _write_state(corpus, {**base, "pending": base.get("pending", True) or typed_by is None, "typed_by": typed_by})
        return
    begin_rewrite(corpus)
    yield
    finish_rewrite(corpus, code)


def begin_rewrite(corpus: Corpus) -> None:
    """From now on nothing recorded is trusted (the code that wrote the tables is kept): a run that stops before
    :func:`finish_rewrite` leaves its items to be made again. For rewrites spanning several stages (a processing
    run distrusts the record before replacing ``artifacts`` and trusts it again once ``process_stage`` holds the
    new record); a single block uses :func:`rewriting_items`."""
    _write_state(corpus, {"pending": True, **_code_of(_read_state(corpus))})


def finish_rewrite(corpus: Corpus, code: dict | None = None) -> None:
    """``items`` and ``process_stage``'s record agree again, made by the processing code ``code`` (None: the
    recorded code is kept)."""
    _write_state(corpus, {"pending": False, **({"code": code} if code is not None else _code_of(_read_state(corpus)))})


def typed_incompletely(corpus: Corpus, typed_by: str | None, n_failed: int) -> None:
    """A whole-table retype left ``n_failed`` rows untyped (an LLM stage failed): the table is no classifier's
    work, so the next run re-types it instead of trusting ``typed_by``."""
    state = _read_state(corpus) or {"pending": True}
    _write_state(corpus, {**state, "typed_by": f"{typed_by or 'unknown'}+{n_failed}-failed"})


def _code_of(state: dict | None) -> dict:
    return {"code": state["code"]} if state and isinstance(state.get("code"), dict) else {}


def unfinished(corpus: Corpus) -> bool:
    """Whether a rewrite of ``items`` began and never finished (a processing run failed or was killed between
    its stages, or a pull replaced ``items``): the next run has work whatever changed upstream."""
    state = _read_state(corpus)
    return bool(state and state.get("pending", False))


def recorded_code(corpus: Corpus) -> dict | None:
    """The digests of the processing code that wrote ``process_stage`` and ``items`` (None: not recorded)."""
    return _code_of(_read_state(corpus)).get("code")


def stored(corpus: Corpus) -> Record:
    """The trusted record: artifact_id -> (items key, fingerprint) for artifacts whose items are in ``items``."""
    state = _read_state(corpus)
    if not state or state.get("pending", True) or not corpus.exists("process_stage") or not corpus.exists("items"):
        return {}
    if not {f.name for f in ITEMS_RECORD} <= set(corpus.schema("process_stage").names):
        return {}  # a stage table written before the record existed
    with_items = pc.unique(corpus.read("items", columns=["artifact_id"]).column("artifact_id"))
    t = corpus.read("process_stage", columns=["artifact_id", "_items_key", "_typed_by"],
                    filter=pc.field("_items_key").is_valid() & pc.field("artifact_id").isin(with_items))
    override = "typed_by" in state
    by = [state["typed_by"]] * t.num_rows if override else t.column("_typed_by").to_pylist()
    return dict(zip(t.column("artifact_id").to_pylist(), zip(t.column("_items_key").to_pylist(), by)))


def types_outdated(corpus: Corpus, fingerprint: str | None) -> bool:
    """Whether ``items`` has rows not known to be typed by ``fingerprint`` (then a run re-types or re-makes them,
    even when no input changed: a refresh that found no changed file still has work after a model change)."""
    if not corpus.exists("items") or corpus.count("items") == 0:
        return False
    if fingerprint is None:
        return True
    record = stored(corpus)
    with_items = len(pc.unique(corpus.read("items", columns=["artifact_id"]).column("artifact_id")))
    return len(record) < with_items or any(by != fingerprint for _, by in record.values())


_RECORD_SCHEMA = pa.schema([pa.field("artifact_id", pa.string()), *ITEMS_RECORD])


def save(record: Record, path: Path) -> None:
    """Write ``record`` to ``path`` (a Parquet file, replaced atomically): what a later stage of the same run reads."""
    ids = sorted(record)
    t = pa.table([pa.array(ids, pa.string()), pa.array([record[a][0] for a in ids], pa.string()),
                  pa.array([record[a][1] for a in ids], pa.string())], schema=_RECORD_SCHEMA)
    tmp = path.with_name(f".tmp-{uuid.uuid4().hex}")
    pq.write_table(t, tmp)
    os.replace(tmp, path)


def load(path: Path) -> Record:
    """The record :func:`save` wrote to ``path``."""
    t = pq.read_table(path, schema=_RECORD_SCHEMA)
    return dict(zip(t.column("artifact_id").to_pylist(),
                    zip(t.column("_items_key").to_pylist(), t.column("_typed_by").to_pylist())))


def with_record(tables: Iterator[pa.Table], record: Record) -> Iterator[pa.Table]:
    """Staged pass-1 tables plus the record's two columns for their artifacts (null: no items)."""
    for t in tables:
        rec = [record.get(a) for a in t.column("artifact_id").to_pylist()]
        t = t.append_column(ITEMS_RECORD[0], pa.array([r[0] if r else None for r in rec], pa.string()))
        yield t.append_column(ITEMS_RECORD[1], pa.array([r[1] if r else None for r in rec], pa.string()))
