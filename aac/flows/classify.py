"""Prefect flow that (re)types a corpus's items table, one task per Parquet part, on threads or on Dask.

Thin by design: the work is :func:`aac.classifiers.batch.retype_batch`; the flow only fans parts out to a task
runner (``prefect``: Prefect's thread pool; ``dask``: prefect-dask's DaskTaskRunner on a LocalCluster or on the
scheduler at ``address``) and swaps the retyped parts in atomically with ``Corpus.replace``.
"""

from __future__ import annotations

import shutil
import uuid
from pathlib import Path

from prefect import flow, task

DASK_HINT = "pip install 'aac[dask]'"


def _classifier(classifier: str, llm_base_url: str | None, llm_model: str | None):
    from aac.classifiers.base import get_classifier
    from aac.classifiers.llm import llm_options

    return get_classifier(classifier, **llm_options(classifier, llm_base_url, llm_model))


@task(name="retype-part", retries=1)
def retype_part(part: str, classifier: str, staging: str, llm_base_url: str | None = None,
                llm_model: str | None = None) -> tuple[str, str | None]:
    """One Parquet part retyped; returns the staged file and the fingerprint of the classifier that typed it (a worker
    builds the classifier from its own environment: an LLM key, AAC_CLASSIFIER_MODEL - never flow parameters)."""
    import pyarrow.parquet as pq

    from aac.classifiers.base import fingerprint_of
    from aac.classifiers.batch import retype_batch

    clf = _classifier(classifier, llm_base_url, llm_model)
    table = retype_batch(clf, pq.read_table(part))
    out = Path(staging) / Path(part).name
    pq.write_table(table, out)
    return str(out), fingerprint_of(clf)


def check_same_classifier(typed_by: str | None, worker_fingerprints: list[str | None]) -> None:
    """Refuse a retype whose workers built another classifier than the one the record will name (e.g.
    AAC_CLASSIFIER_MODEL set here but not on the Dask workers); the items table is then left as it was."""
    others = sorted({str(fp) for fp in worker_fingerprints if fp != typed_by})
    if others:
        raise RuntimeError(f"the workers typed with another classifier ({', '.join(others)}) than this process "
                           f"({typed_by}): give the workers the same environment (AAC_CLASSIFIER_MODEL, the model "
                           "files); the items table is unchanged")


@flow(name="classify-corpus")
def classify_corpus(root: str, classifier: str = "default", llm_base_url: str | None = None,
                    llm_model: str | None = None) -> int:
    from aac.core.corpus_lock import corpus_lock
    from aac.core.store import Corpus

    with corpus_lock(root, "classify-corpus flow", create=False):  # re-entrant: `aac classify --corpus` holds it
        return _classify_held(Corpus(root), classifier, llm_base_url, llm_model)


def _classify_held(corpus, classifier: str, llm_base_url: str | None, llm_model: str | None) -> int:
    import pyarrow.parquet as pq

    from aac.core.store import remove_stale_dirs

    from aac.classifiers.base import fingerprint_of
    from aac.processing.item_record import rewriting_items

    root = str(corpus.root)
    parts = [str(p) for p in corpus.part_files("items")]
    remove_stale_dirs(Path(root), ".classify-staging-*")  # a killed run's
    staging = Path(root) / f".classify-staging-{uuid.uuid4().hex}"
    staging.mkdir(parents=True)
    try:  # the record of `aac process` learns which classifier typed every row
        typed_by = fingerprint_of(_classifier(classifier, llm_base_url, llm_model))
        with rewriting_items(corpus, typed_by, whole_table=True):
            futures = [retype_part.submit(p, classifier, str(staging), llm_base_url, llm_model) for p in parts]
            staged = [f.result() for f in futures]
            check_same_classifier(typed_by, [fp for _, fp in staged])
            return corpus.replace("items", (pq.read_table(p) for p, _ in staged))
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def check_scheduler(address: str, timeout: float = 5.0) -> None:
    """A Dask scheduler address must parse and answer a TCP connect before a flow (and its server) starts."""
    import socket
    from urllib.parse import urlsplit

    parts = urlsplit(address if "://" in address else f"tcp://{address}")  # Dask reads host:port as tcp
    try:
        host, port = parts.hostname, parts.port
    except ValueError:
        host = port = None
    if parts.scheme not in ("tcp", "tls", "ws", "wss") or not host or not port:
        raise ValueError(f"--address must look like tcp://host:port (or host:port), not {address!r}")
    try:
        socket.create_connection((host, port), timeout=timeout).close()
    except OSError as exc:
        raise RuntimeError(f"no Dask scheduler answers at {address} ({exc.strerror or exc})") from None


def task_runner(runner: str, address: str | None = None, cluster_kwargs: dict | None = None):
    if runner == "prefect":
        from prefect.task_runners import ThreadPoolTaskRunner

        return ThreadPoolTaskRunner(max_workers=2)
    if runner == "dask":
        try:
            from prefect_dask import DaskTaskRunner
        except ImportError:
            raise RuntimeError(f"--runner dask needs the dask extra: {DASK_HINT}") from None
        if address:
            check_scheduler(address)
            return DaskTaskRunner(address=address)
        return DaskTaskRunner(cluster_kwargs=cluster_kwargs or {"n_workers": 2, "threads_per_worker": 1})
    raise ValueError(f"unknown runner {runner!r}; use prefect or dask")


def classify_corpus_flow(root: str, classifier: str = "default", runner: str = "prefect", address: str | None = None,
                         cluster_kwargs: dict | None = None, llm_base_url: str | None = None,
                         llm_model: str | None = None) -> int:
    """Run the flow with the chosen task runner; returns the number of items written."""
    return classify_corpus.with_options(task_runner=task_runner(runner, address, cluster_kwargs))(
        root, classifier, llm_base_url, llm_model)
