"""Classify a big batch on every core of the machine.

The featuriser is pure Python, so one process keeps one core busy; the linear map after it is cheap numpy. A batch of
at least ``MIN_ITEMS`` is cut into one contiguous chunk per worker: the calling process scores the first chunk while
a reusable pool of worker processes (joblib's loky, which starts workers without re-running the caller's
``__main__``) scores the rest, and the rows are put back in order. Every item's scores are computed by the same
elementwise code whatever its chunk, so the result equals a single process's, bit for bit.

``AAC_CLASSIFY_WORKERS`` sets the number of processes (default: the CPUs this process may run on; 1 turns the pool
off). Inside a daemonic process (a Dask worker, which already is one of many) the batch stays in-process, and a
pool that cannot start or breaks falls back to scoring in-process with a warning: nothing is lost.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
from collections.abc import Callable, Sequence

import numpy as np

from aac.core.config import Settings

log = logging.getLogger(__name__)

MIN_ITEMS = 2048  # below this, shipping items to a worker costs more than it saves
IDLE_SECONDS = 120  # workers left idle this long exit; the next big batch starts them again
_disabled = False  # set when a pool failed: the rest of the run stays in-process


_workers: int | None = None  # set in a worker process of the processing pool: its own classifier stays in-process


def set_worker_count(n: int | None) -> None:
    """Fix the processes a big batch is scored with in this process (None: back to the settings' default)."""
    global _workers
    _workers = n


def worker_count() -> int:
    """Processes to score a big batch with (:func:`set_worker_count`, else ``AAC_CLASSIFY_WORKERS``, else the CPUs)."""
    configured = _workers or Settings.from_env().classify_workers
    if configured:
        return max(1, configured)
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def _processes_for(n_items: int, min_items: int) -> int:
    """The number of processes for a batch of ``n_items`` (1: stay in-process)."""
    if _disabled or n_items < min_items or multiprocessing.current_process().daemon:
        return 1
    return min(worker_count(), max(1, n_items // (min_items // 2)))


def score_rows(fn: Callable[[Sequence], np.ndarray], items: Sequence, min_items: int = MIN_ITEMS) -> np.ndarray:
    """``fn(items)``, a row per item, computed on every core for a big batch (see the module docstring)."""
    global _disabled
    n = _processes_for(len(items), min_items)
    if n < 2:
        return fn(items)
    bounds = [len(items) * k // n for k in range(n + 1)]
    chunks = [items[bounds[k]:bounds[k + 1]] for k in range(n)]
    try:
        from joblib.externals.loky import get_reusable_executor

        pool = get_reusable_executor(max_workers=n - 1, timeout=IDLE_SECONDS)
        futures = [pool.submit(fn, chunk) for chunk in chunks[1:]]
    except Exception as exc:  # no pool here (no semaphores, no fork): score in-process
        _disabled = True
        log.warning("classifying in one process: the worker pool did not start (%s)", exc)
        return fn(items)
    rows = [fn(chunks[0])]
    for chunk, future in zip(chunks[1:], futures):
        try:
            rows.append(future.result())
        except Exception as exc:  # a worker died or the pool broke: this chunk is scored here instead
            _disabled = True
            log.warning("a classification worker failed (%s); scoring its items in-process", exc)
            rows.append(fn(chunk))
    return np.concatenate(rows, axis=0)
