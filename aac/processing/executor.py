"""The row executor: runs the row steps over each raw artifact, isolates a failing row, counts per step, keys reuse.

What it owns, so that no step has to:

- the stage row: ``artifacts`` columns plus the stage's own (:data:`STAGE_SCHEMA`), from a raw row and its repo;
- rows judged upstream (``removed``, dropped by the crawler, a pulled baseline's private row without content)
  pass through untouched by the steps;
- a :class:`~aac.processing.steps.base.Drop` ends the row: status ``dropped`` with the reason, content gone;
- a step that raises drops that one row as ``processing_error`` (logged with repo, path and the exception's
  type, never its content): one file must not stop a run;
- per-step counters (rows, drops, errors, seconds), summed over batches and worker processes;
- the reuse key of a stored row (:meth:`RowExecutor.input_key`): a hash of the raw row, the repository licence,
  this module's code and every step's fingerprint, so a new, removed or changed step re-runs the stored rows.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pyarrow as pa

from aac.core.codehash import code_digest
from aac.core.drop_reasons import DropReason
from aac.core.schema import ARTIFACTS
from aac.processing.steps.base import Drop, RowStep

if TYPE_CHECKING:
    from aac.processing.config import ProcessConfig

log = logging.getLogger(__name__)

_TS = pa.timestamp("us", tz="UTC")
_STAGE_EXTRA = [
    pa.field("_publishable", pa.bool_()),
    pa.field("_stars", pa.int64()),
    pa.field("_pushed_at", _TS),
    pa.field("_input_key", pa.string()),  # hash of what pass 1 read: a stored row is reused while it matches
    pa.field("_signature", pa.list_(pa.uint32())),  # MinHash of the redacted text (None when no content)
]
STAGE_SCHEMA = pa.schema(list(ARTIFACTS) + _STAGE_EXTRA)
_DERIVED = dict(near_dup_of=None, dup_cluster_size=None, dup_cluster_repos=None, secrets_found=None,
                secret_kinds=None, content_sha256=None, input_fixes=None, drop_reason=None)
_KNOWN = frozenset(r.value for r in DropReason)
UPSTREAM_STATUSES = ("removed", "dropped")  # gone upstream, or dropped by the crawler with its reason


@dataclass
class StepCount:
    """What one step did this run: rows it was applied to, rows it dropped, rows it failed on, time spent."""

    name: str
    rows: int = 0
    dropped: int = 0
    errors: int = 0
    seconds: float = 0.0

    def add(self, other: "StepCount") -> None:
        self.rows += other.rows
        self.dropped += other.dropped
        self.errors += other.errors
        self.seconds += other.seconds


def base_row(row: dict, repo: dict) -> dict:
    """The stage row before any step: the raw columns, the repository's facts, derived columns empty."""
    out = {k: row.get(k) for k in ARTIFACTS.names}
    out.update(_DERIVED, _stars=repo.get("stars"), _pushed_at=repo.get("pushed_at"), _publishable=False,
               _signature=None, _repo_license=repo.get("license_spdx"))
    return out


class RowExecutor:
    """The row steps of one run (classes, in order) with the run's configuration; picklable for worker processes
    (each batch gets fresh step instances: no state outlives a batch)."""

    def __init__(self, steps: list[type[RowStep]], cfg: "ProcessConfig") -> None:
        self.step_types = list(steps)
        self.cfg = cfg
        names = [s.name for s in self.step_types]
        if len(set(names)) != len(names):
            raise ValueError(f"row step names must be unique: {names}")

    def steps(self) -> list[RowStep]:
        return [s.from_config(self.cfg) for s in self.step_types]

    def fingerprint(self) -> str:
        """Everything a stored stage row depends on besides its input: this module's code and every step's
        fingerprint (name, version, parameters, code digest), in order."""
        return json.dumps([code_digest([__name__]), [s.fingerprint() for s in self.steps()]])

    @staticmethod
    def input_key(row: dict, repo: dict | None, fingerprint: str) -> str:
        """Hash of everything pass 1 reads for one artifact: the raw row, the repository licence, the steps."""
        h = hashlib.sha256(fingerprint.encode())
        h.update(json.dumps([row.get(k) for k in ARTIFACTS.names], default=str,
                            ensure_ascii=False).encode("utf-8", "surrogatepass"))
        h.update(json.dumps((repo or {}).get("license_spdx")).encode())
        return h.hexdigest()

    def run_row(self, row: dict, repo: dict | None, steps: list[RowStep], counts: list[StepCount]) -> dict:
        """One raw artifact -> its stage row (without dedupe decisions). Never raises."""
        repo = repo or {}
        out = base_row(row, repo)
        if row.get("status") in UPSTREAM_STATUSES or (row.get("status") == "private" and row.get("content") is None):
            # gone upstream, dropped by the crawler with its reason, or a processed row staged as a baseline whose
            # content is gone (aac.processing.staging.stage_raw): nothing to judge again
            out.update(status=row["status"], drop_reason=row.get("drop_reason"), content=None)
            return out
        for step, count in zip(steps, counts):
            t0 = time.perf_counter()
            try:
                result = step.apply(out)
                if isinstance(result, Drop) and result.reason not in _KNOWN and result.reason not in step.reasons:
                    raise ValueError(f"step {step.name} dropped with an undeclared reason")
            except Exception as exc:  # noqa: BLE001 - any step's failure on one input
                count.errors += 1
                count.seconds += time.perf_counter() - t0
                log.warning("processing %s:%s failed in step %s (%s); dropped as processing_error", row.get("repo"),
                            row.get("path"), step.name, type(exc).__name__)
                out = base_row(row, repo)
                out.update(status="dropped", drop_reason=DropReason.PROCESSING_ERROR.value, content=None)
                return out
            count.rows += 1
            count.seconds += time.perf_counter() - t0
            if isinstance(result, Drop):
                count.dropped += 1
                out.update(status="dropped", drop_reason=str(result.reason), content=None, content_sha256=None,
                           _signature=None)
                return out
            out = result
        return out

    def run_batch(self, rows: list[dict], repos: dict[str, dict]) -> tuple[pa.Table, list[StepCount]]:
        """Raw rows (each with its ``_input_key``) -> (stage table, per-step counts)."""
        steps = self.steps()
        counts = [StepCount(s.name) for s in steps]
        out = []
        for row in rows:
            o = self.run_row(row, repos.get(row["repo"]), steps, counts)
            o["_input_key"] = row["_input_key"]
            out.append(o)
        return pa.Table.from_pylist(out, schema=STAGE_SCHEMA), counts


def run_batch(args: tuple[RowExecutor, list[dict], dict[str, dict]]) -> tuple[pa.Table, list[StepCount]]:
    """Worker entry point (a module-level function: picklable)."""
    executor, rows, repos = args
    return executor.run_batch(rows, repos)
