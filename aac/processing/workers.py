"""Worker processes for the per-artifact work: an ordered, bounded ``map`` over a spawned process pool."""

from __future__ import annotations

import multiprocessing
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor


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


def chunks(it: Iterable, n: int) -> Iterator[list]:
    chunk: list = []
    for x in it:
        chunk.append(x)
        if len(chunk) >= n:
            yield chunk
            chunk = []
    if chunk:
        yield chunk
