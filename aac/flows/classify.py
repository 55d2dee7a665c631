"""Prefect flow that (re)types a corpus's items table, one task per Parquet part, on threads or on Dask.

Thin by design: the job is :func:`aac.jobs.classify.classify` (lock, staging, the atomic swap, the record of who
typed the items); the flow fans the parts out to a task runner (``prefect``: Prefect's thread pool; ``dask``:
prefect-dask's DaskTaskRunner on a LocalCluster or on the scheduler at ``address``). Its parameters are the fields
of :class:`~aac.jobs.classify.ClassifyOptions`.
"""

from __future__ import annotations

from prefect import flow, task

from aac.jobs.classify import ClassifyOptions, ClassifyStages
from aac.jobs.classify import classify as classify_job
from aac.jobs.classify import retype_part as retype_part_stage
from aac.jobs.options import as_parameters, takes_fields_of

DASK_HINT = "pip install 'aac[dask]'"


@task(name="retype-part", retries=1)
def retype_part(part: str, classifier: str, staging: str, llm_base_url: str | None = None,
                llm_model: str | None = None) -> tuple[str, str | None]:
    """One Parquet part retyped (:func:`aac.jobs.classify.retype_part`): a worker builds the classifier from its own
    environment (an LLM key, AAC_CLASSIFIER_MODEL), never from flow parameters."""
    return retype_part_stage(part, classifier, staging, llm_base_url, llm_model)


def retype_parts(parts: list[str], options: ClassifyOptions, staging: str) -> list[tuple[str, str | None]]:
    """The job's parts stage: a task per part on the flow's task runner, gathered in order."""
    futures = [retype_part.submit(p, options.classifier, staging, options.llm_base_url, options.llm_model)
               for p in parts]
    return [f.result() for f in futures]


@flow(name="classify-corpus")
@takes_fields_of(ClassifyOptions, document=True)
def classify_corpus(options: ClassifyOptions) -> dict:
    """Retype a corpus's items (or type a JSONL file): the classify job with a task per Parquet part."""
    return classify_job(options, ClassifyStages(parts=retype_parts)).to_dict()


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
    """The flow's task runner: ``local`` and ``prefect``, Prefect's thread pool; ``dask``, a Dask cluster."""
    if runner in ("local", "prefect"):
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


def run_classify_flow(options: ClassifyOptions, cluster_kwargs: dict | None = None) -> dict:
    """Run the flow on the task runner ``options.runner`` names; returns the classify report as a dict."""
    runner = task_runner(options.runner, options.address, cluster_kwargs)
    return classify_corpus.with_options(task_runner=runner)(**as_parameters(options))


@takes_fields_of(ClassifyOptions)
def classify_corpus_flow(options: ClassifyOptions, cluster_kwargs: dict | None = None) -> int:
    """Retype a corpus on the flow (Python callers): the number of items written."""
    return run_classify_flow(options, cluster_kwargs)["items"]
