"""The ``classify`` job: type the items of a JSONL file (``--in/--out``), or retype a corpus's items table.

``aac classify`` and the Prefect flow ``classify-corpus`` both call :func:`classify`. A corpus is retyped in this
process (one pass, with progress) unless a front end passes its parts stage through :class:`ClassifyStages`: the
flow's retried task per Parquet part, on Prefect's threads or on Dask. Either way the job holds the corpus lock,
records which classifier typed the table (so ``aac process`` knows) and counts the items left untyped.
"""

from __future__ import annotations

import shutil
import uuid
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from aac.core.errors import InputError
from aac.jobs.options import option

RUNNERS = ("local", "prefect", "dask")


@dataclass(frozen=True)
class ClassifyOptions:
    """What a classify run may be told; the CLI options and the flow parameters are these fields."""

    corpus: Path | None = option(None, "Retype the corpus items table instead.", "--corpus", envvar="AAC_CORPUS")
    classifier: str = option("default", "regex | encoder | trained | cascade | teacher-cascade (AAC_TEACHER) | llm | "
                             "safetymargin | default", "--classifier", "-c")
    runner: str = option("local", "Corpus mode: local | prefect | dask.", "--runner")
    address: str | None = option(None, "Dask scheduler (tcp://host:port); default a LocalCluster.", "--address")
    llm_base_url: str | None = option(None, "OpenAI-compatible endpoint (key from AAC_LLM_API_KEY / OPENAI_API_KEY).",
                                      "--llm-base-url")
    llm_model: str | None = option(None, "Model name at the LLM endpoint (default: AAC_LLM_MODEL).", "--llm-model")
    src: Path | None = option(None, "JSONL items: id, text, optional section (list of headings).", "--in")
    out: Path | None = option(None, "JSONL output: input fields + type, proba, confidence, abstained.", "--out")


class BadClassifyInput(InputError, ValueError):
    """Neither a file nor a corpus, a file that cannot be read or written, a corpus without items, a bad runner."""


@dataclass
class ClassifyReport:
    """What one classify run typed; ``to_dict()`` is what the flow returns."""

    classifier: str  # the name asked for
    typed_by: str | None  # the classifier's fingerprint
    items: int  # items typed (a file) or written (a corpus)
    failed: int = 0  # items the classifier could not type (an LLM error): written abstained
    errors: int = 0  # lines of the input file that are not items (kept with an error field)
    llm: dict = field(default_factory=dict)  # an LLM stage's figures in this process ({} when workers typed)

    def to_dict(self) -> dict:
        return asdict(self)


def build_classifier(classifier: str, llm_base_url: str | None = None, llm_model: str | None = None):
    """The classifier a run types with; raises KeyError (unknown name), RuntimeError, FileNotFoundError or
    ValueError (a model or endpoint that cannot be used)."""
    from aac.classifiers.base import get_classifier
    from aac.classifiers.llm import llm_options

    return get_classifier(classifier, **llm_options(classifier, llm_base_url, llm_model))


def check(options: ClassifyOptions) -> None:
    """Refuse, before any work (and before a flow starts), what cannot run."""
    if options.src is None and options.corpus is None:
        raise BadClassifyInput("give --in ITEMS.jsonl --out OUT.jsonl, or --corpus DIR")
    if options.src is not None:
        src, out = Path(options.src), options.out
        if out is None:
            raise BadClassifyInput("--in needs --out")
        out = Path(out)
        if not src.is_file():
            raise BadClassifyInput(f"no such file: {src}")
        if out.is_dir() or not out.resolve().parent.is_dir():
            raise BadClassifyInput(f"cannot write {out}: {'a folder' if out.is_dir() else 'no such folder'}")
        return
    if options.runner not in RUNNERS:
        raise BadClassifyInput(f"unknown runner {options.runner!r}; use local, prefect or dask")
    _check_items(options.corpus)


def _check_items(corpus: str | Path) -> None:
    from aac.core.store import Corpus

    if not Corpus(corpus).exists("items"):
        raise BadClassifyInput(f"corpus {corpus} has no items table")


def retype_part(part: str, classifier: str, staging: str, llm_base_url: str | None = None,
                llm_model: str | None = None) -> tuple[str, str | None]:
    """One Parquet part retyped into ``staging``; returns the staged file and the fingerprint of the classifier
    that typed it (a worker builds the classifier from its own environment: an LLM key, AAC_CLASSIFIER_MODEL)."""
    import pyarrow.parquet as pq

    from aac.classifiers.base import fingerprint_of
    from aac.classifiers.batch import retype_batch

    clf = build_classifier(classifier, llm_base_url, llm_model)
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
                           f"({typed_by}): give the workers the same environment (AAC_CLASSIFIER_MODEL, AAC_TEACHER, "
                           "the model files); the items table is unchanged")


PartsStage = Callable[[list[str], ClassifyOptions, str], list[tuple[str, "str | None"]]]


@dataclass(frozen=True)
class ClassifyStages:
    """``parts``: None retypes the corpus in this process; the flow gives its fan-out of retried part tasks
    (``parts, options, staging folder -> [(staged file, fingerprint)]``)."""

    parts: PartsStage | None = None


def classify(options: ClassifyOptions, stages: ClassifyStages = ClassifyStages(),
             on_progress: Callable[[int, int], None] | None = None, clf=None) -> ClassifyReport:
    """Type ``options.src`` into ``options.out``, or retype ``options.corpus`` under its writer lock.
    ``on_progress(items done since the last call, total)`` hears an in-process corpus retype. Raises
    :class:`BadClassifyInput` and the classifier's errors (see :func:`build_classifier`) before any work.
    ``clf``: the classifier when the caller built it already (the CLI does, to answer a bad name first)."""
    check(options)
    if clf is None:
        clf = build_classifier(options.classifier, options.llm_base_url, options.llm_model)
    if options.src is not None:
        return _classify_file(options, clf)
    from aac.core.corpus_lock import corpus_lock

    with corpus_lock(options.corpus, "aac classify --corpus", create=False):  # never beside an `aac process`
        return _retype(options, clf, stages, on_progress)


def _classify_file(options: ClassifyOptions, clf) -> ClassifyReport:
    from aac.classifiers.base import fingerprint_of
    from aac.classifiers.batch import classify_jsonl
    from aac.classifiers.llm import stats_of

    counts = classify_jsonl(clf, options.src, options.out)
    return ClassifyReport(options.classifier, fingerprint_of(clf), counts["items"], counts["failed"],
                          counts["errors"], dict(stats_of(clf)))


def _retype(options: ClassifyOptions, clf, stages: ClassifyStages,
            on_progress: Callable[[int, int], None] | None) -> ClassifyReport:
    from aac.classifiers.base import fingerprint_of
    from aac.classifiers.batch import count_failed
    from aac.classifiers.llm import stats_of
    from aac.core.store import Corpus
    from aac.processing.item_record import rewriting_items, typed_incompletely

    _check_items(options.corpus)  # again, under the lock
    c = Corpus(options.corpus)
    typed_by = fingerprint_of(clf)
    if stages.parts is None:
        from aac.classifiers.batch import retype_corpus

        total = c.count("items")
        with rewriting_items(c, typed_by, whole_table=True):  # so `aac process` knows who typed them
            n = retype_corpus(c, clf, on_progress=(lambda k: on_progress(k, total)) if on_progress else None)
        llm = dict(stats_of(clf))
    else:
        n = _retype_parts(c, options, typed_by, stages.parts)
        llm = {}  # the workers keep their own figures
    c.refresh_catalog()
    n_failed = count_failed(c)
    if n_failed:
        typed_incompletely(c, typed_by, n_failed)
    return ClassifyReport(options.classifier, typed_by, n, n_failed, 0, llm)


def _retype_parts(c, options: ClassifyOptions, typed_by: str | None, parts_stage: PartsStage) -> int:
    """Retype each part into a staging folder (the stage fans them out), then swap them in atomically."""
    import pyarrow.parquet as pq

    from aac.core.store import remove_stale_dirs
    from aac.processing.item_record import rewriting_items

    parts = [str(p) for p in c.part_files("items")]
    remove_stale_dirs(Path(c.root), ".classify-staging-*")  # a killed run's
    staging = Path(c.root) / f".classify-staging-{uuid.uuid4().hex}"
    staging.mkdir(parents=True)
    try:
        with rewriting_items(c, typed_by, whole_table=True):
            staged = parts_stage(parts, options, str(staging))
            check_same_classifier(typed_by, [fp for _, fp in staged])
            return c.replace("items", (pq.read_table(p) for p, _ in staged))
    finally:
        shutil.rmtree(staging, ignore_errors=True)
