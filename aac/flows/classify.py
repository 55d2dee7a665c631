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
                llm_model: str | None = None) -> str:
    """One Parquet part retyped (an LLM variant's key comes from the worker's environment, never a parameter)."""
    import pyarrow.parquet as pq

    from aac.classifiers.batch import retype_batch

    table = retype_batch(_classifier(classifier, llm_base_url, llm_model), pq.read_table(part))
    out = Path(staging) / Path(part).name
    pq.write_table(table, out)
    return str(out)


@flow(name="classify-corpus")
def classify_corpus(root: str, classifier: str = "default", llm_base_url: str | None = None,
                    llm_model: str | None = None) -> int:
    import pyarrow.parquet as pq

    from aac.store import Corpus

    from aac.classifiers.base import fingerprint_of
    from aac.processing.item_record import rewriting_items

    corpus = Corpus(root)
    parts = [str(p) for p in corpus.part_files("items")]
    staging = Path(root) / f".classify-staging-{uuid.uuid4().hex}"
    staging.mkdir(parents=True)
    try:  # the record of `aac process` learns which classifier typed every row
        typed_by = fingerprint_of(_classifier(classifier, llm_base_url, llm_model))
        with rewriting_items(corpus, typed_by, whole_table=True):
            futures = [retype_part.submit(p, classifier, str(staging), llm_base_url, llm_model) for p in parts]
            staged = [f.result() for f in futures]
            return corpus.replace("items", (pq.read_table(p) for p in staged))
    finally:
        shutil.rmtree(staging, ignore_errors=True)


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
            return DaskTaskRunner(address=address)
        return DaskTaskRunner(cluster_kwargs=cluster_kwargs or {"n_workers": 2, "threads_per_worker": 1})
    raise ValueError(f"unknown runner {runner!r}; use prefect or dask")


def classify_corpus_flow(root: str, classifier: str = "default", runner: str = "prefect", address: str | None = None,
                         cluster_kwargs: dict | None = None, llm_base_url: str | None = None,
                         llm_model: str | None = None) -> int:
    """Run the flow with the chosen task runner; returns the number of items written."""
    return classify_corpus.with_options(task_runner=task_runner(runner, address, cluster_kwargs))(
        root, classifier, llm_base_url, llm_model)
