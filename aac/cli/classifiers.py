"""`aac classify`, `aac classify train`, `aac annotate ...` and `aac eval classifiers`.

Heavy imports (scikit-learn, Prefect, httpx, DuckDB) stay inside the command functions: `aac classify --in`
runs the default classifier with numpy + regex only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from aac.core.terminal import plain_console

console = plain_console(stderr=True, soft_wrap=True)  # a message stays one line in logs, whatever the width
SHARED_HINT = "e.g. ../shared/data/gold_dev.jsonl"


def _print_llm_stats(clf) -> None:
    from aac.classifiers.llm import stats_of

    s = stats_of(clf)
    if s:
        console.print(f"LLM: {s['calls']} requests, {s['cache_hits']} cached, {s['retries']} retries, {s['errors']} "
                      f"failed items; {s['prompt_tokens']} prompt + {s['completion_tokens']} completion tokens; "
                      f"mean latency {s['mean_latency_ms']:.0f} ms")


def register(app: typer.Typer, eval_app: typer.Typer) -> None:
    classify_app = typer.Typer(help="Type items as C/P/B/F/E (Constraint, Procedural, Belief, Preference, Episodic).",
                               invoke_without_command=True)
    app.add_typer(classify_app, name="classify")

    @classify_app.callback()
    def classify(
        ctx: typer.Context,
        src: Optional[Path] = typer.Option(None, "--in", help="JSONL items: id, text, optional section (list of headings)."),
        out: Optional[Path] = typer.Option(None, "--out", help="JSONL output: input fields + type, proba, confidence, abstained."),
        corpus: Optional[Path] = typer.Option(None, "--corpus", envvar="AAC_CORPUS", help="Retype the corpus items table instead."),
        classifier: str = typer.Option("default", "--classifier", "-c", help="regex | encoder | trained | cascade | llm | safetymargin | default"),
        runner: str = typer.Option("local", "--runner", help="Corpus mode: local | prefect | dask."),
        address: Optional[str] = typer.Option(None, "--address", help="Dask scheduler (tcp://host:port); default a LocalCluster."),
        llm_base_url: Optional[str] = typer.Option(None, "--llm-base-url", help="OpenAI-compatible endpoint (key from AAC_LLM_API_KEY / OPENAI_API_KEY)."),
        llm_model: Optional[str] = typer.Option(None, "--llm-model"),
    ) -> None:
        """Classify a JSONL file (--in/--out) or retype a corpus (--corpus)."""
        if ctx.invoked_subcommand:
            return
        from aac.classifiers.base import get_classifier
        from aac.classifiers.llm import llm_options

        if src is None and corpus is None:
            console.print("give --in ITEMS.jsonl --out OUT.jsonl, or --corpus DIR", style="red")
            raise typer.Exit(2)
        try:
            clf = get_classifier(classifier, **llm_options(classifier, llm_base_url, llm_model))
        except (KeyError, RuntimeError, FileNotFoundError, ValueError) as exc:
            message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc  # not KeyError's quoted repr
            console.print(f"{message}", style="red")
            raise typer.Exit(2)
        if src is not None:
            if out is None:
                console.print("--in needs --out", style="red")
                raise typer.Exit(2)
            if not src.is_file():
                console.print(f"no such file: {src}", style="red")
                raise typer.Exit(2)
            if out.is_dir() or not out.resolve().parent.is_dir():
                console.print(f"cannot write {out}: {'a folder' if out.is_dir() else 'no such folder'}", style="red")
                raise typer.Exit(2)
            from aac.classifiers.batch import classify_jsonl

            counts = classify_jsonl(clf, src, out)
            console.print(f"classified {counts['items']} items with {classifier} -> {out}"
                          + (f" ({counts['errors']} bad lines kept with an error field)" if counts["errors"] else ""))
            _print_llm_stats(clf)
            if counts["failed"]:
                _report_failed(counts["failed"], counts["items"], classifier, clf)
                raise typer.Exit(1)
            if counts["errors"]:  # the output holds them, flagged; the exit status says the input was not clean
                console.print(f"{counts['errors']} lines of {src} are not items (see their error field)", style="red")
                raise typer.Exit(1)
            return
        _retype(corpus, classifier, runner, address, clf, llm_base_url, llm_model)

    @classify_app.command("train")
    def train(
        gold: list[Path] = typer.Option([], "--gold", help=f"Labelled JSONL (gold or phrasing format), repeatable; {SHARED_HINT}"),
        corpus: Optional[Path] = typer.Option(None, "--corpus", help="Train on the corpus's adjudicated `gold` view."),
        out: Path = typer.Option(Path("models"), "--out", help="Folder for trained.npz + trained.md (model card)."),
        c_reg: float = typer.Option(1.0, "--c", help="Inverse L2 regularisation strength."),
        no_cv: bool = typer.Option(False, "--no-cv", help="Skip the grouped cross-validation figures."),
        clusters: bool = typer.Option(False, "--clusters", help="Add HDBSCAN cluster ids over PCA-reduced static embeddings (implies --single-stage)."),
        single_stage: bool = typer.Option(False, "--single-stage", help="One five-way softmax instead of a constraint stage + a four-way model."),
        beta: float = typer.Option(2.0, "--beta", min=0.01, help="F-beta on constraints that picks the C threshold "
                                   "out of fold."),
        annotated: list[Path] = typer.Option([], "--annotated", help="Labels of segmented sample items without their text "
                                             "(id, repo, path, label), repeatable; the package's own: "
                                             "aac/classifiers/data/annotated_sample.jsonl."),
        sample: Optional[Path] = typer.Option(None, "--sample", help="The files those labels point into "
                                              "(agent_configs_sample.jsonl format); default: the shared dev sample."),
        union: bool = typer.Option(False, "--union", help="The shipped recipe: every real labelled item (gold_dev + "
                                   "gold_train, holdout repositories left out), phrasing_dev, the multilingual phrasing "
                                   "set and the package's annotated sample, from the shared data folder."),
    ) -> None:
        """Fit the `trained` model (own examples + given labels) and write it with its model card."""
        from aac.classifiers.datasets import load_annotated, load_any
        from aac.classifiers.paths import shared_data
        from aac.classifiers.model_card import train_and_write
        from aac.classifiers.training import FitOptions

        golds, phrasing, sources = [], [], []
        for path in gold:
            data = load_any(path)
            (phrasing if data and data[0].source == "phrasing" else golds).extend(data)
            sources.append(f"{path.name} ({len(data)} items)")
        if corpus is not None:
            from aac.classifiers.datasets import gold_from_corpus

            if not corpus.is_dir():  # a mistyped --corpus must not train on the package's examples alone
                console.print(f"no corpus folder at {corpus}", style="red")
                raise typer.Exit(2)
            data = gold_from_corpus(corpus)
            golds.extend(data)
            sources.append(f"gold view of corpus {corpus} ({len(data)} items)")
        notes = []
        for path in annotated:
            src = sample or shared_data() / "agent_configs_sample.jsonl"
            unmatched: list[str] = []
            try:
                data = load_annotated(path, src, unmatched)
            except (OSError, ValueError) as exc:
                console.print(f"{exc}", style="red")
                raise typer.Exit(2)
            notes.extend(data)
            sources.append(f"{path.name}: {len(data)} annotated items of {src.name} (text read from it, never stored)"
                           + (f"; {len(unmatched)} labels left out, their items no longer segmented so"
                              if unmatched else ""))
        if union:
            from aac.classifiers.training import SHIPPED_WITH_ANNOTATED
            from aac.classifiers.union_report import shipped_data

            skipped: list[str] = []
            data = shipped_data(with_annotated=SHIPPED_WITH_ANNOTATED, skipped=skipped)
            for what in skipped:
                console.print(f"skipped {what}", style="yellow")
            golds.extend(d for d in data if d.source == "gold")
            phrasing.extend(d for d in data if d.source == "phrasing")
            notes.extend(d for d in data if d.source == "annotated")
            for name in ("gold_dev.jsonl", "gold_train.jsonl"):
                n = sum(d.extra.get("file") == name for d in golds)
                sources.append(f"{name} ({n} items; repositories in holdout_repos.sha256 left out)")
            sources.append(f"phrasing_dev.jsonl + data/phrasing_multilingual.jsonl ({len(phrasing)} items)")
            for labels, sample in (("annotated_sample.jsonl", "agent_configs_sample.jsonl"),
                                   ("annotated_train_round1.jsonl", "agent_configs_train.jsonl")):
                n = sum(d.extra.get("labels") == labels for d in notes)
                if n:
                    sources.append(f"{labels}: {n} annotated items of {sample} (text read from it, never stored)")
        if not golds and not phrasing and not notes:
            console.print("no labelled data given: training on the package's own examples only", style="yellow")
        path, card = train_and_write(out, golds, phrasing, sources, FitOptions(c_reg=c_reg, clusters=clusters, beta=beta,
                                                                                two_stage=not (single_stage or clusters)),
                                     with_cv=not no_cv, annotated=notes)
        console.print(card)
        console.print(f"wrote {path}; use it with AAC_CLASSIFIER_MODEL={out}")

    @eval_app.command("classifiers")
    def eval_classifiers(
        gold: Optional[Path] = typer.Option(None, "--gold", help=f"gold_dev-format JSONL; {SHARED_HINT}"),
        phrasing: Optional[Path] = typer.Option(None, "--phrasing", help="phrasing_dev-format JSONL"),
        corpus: Optional[Path] = typer.Option(None, "--corpus", help="Use the corpus's `gold` view as gold."),
        classifiers: str = typer.Option("regex,encoder,trained,cascade", "--classifiers", help="Comma-separated variants (llm and safetymargin are added when --llm-base-url is given)."),
        cv: bool = typer.Option(True, "--cv/--no-cv", help="Add the trained model's grouped cross-validation row."),
        holdout: str = typer.Option("repo", "--holdout", help="What the CV folds hold out: repo (whole repositories), "
                                    "item (single gold items, their files' annotated items kept in training), or both."),
        union: bool = typer.Option(True, "--union/--no-union", help="With --cv and no --gold/--corpus: the shipped "
                                   "recipe's CV grouped by repository over every real labelled item (gold_dev + "
                                   "gold_train), per language group and platform, at both operating points (slow: "
                                   "minutes)."),
        llm_base_url: Optional[str] = typer.Option(None, "--llm-base-url"),
        llm_model: Optional[str] = typer.Option(None, "--llm-model"),
    ) -> None:
        """One table: every variant's C recall, C F1, macro-F1, accuracy, ms/item and C recall per form."""
        from aac.classifiers.report import eval_table

        holdouts = {"repo": ("repo",), "item": ("item",), "both": ("repo", "item")}.get(holdout)
        if holdouts is None:
            console.print(f"--holdout must be repo, item or both, not {holdout!r}", style="red")
            raise typer.Exit(2)
        names = [c.strip() for c in classifiers.split(",") if c.strip()]
        from aac.classifiers.base import available

        unknown = [n for n in names if n != "default" and n not in available()]
        if unknown:
            console.print(f"unknown classifier {', '.join(map(repr, unknown))}; available: "
                          f"{', '.join(available())}", style="red")
            raise typer.Exit(2)
        if llm_base_url:
            names += [n for n in ("llm", "safetymargin") if n not in names]
        if corpus is not None and not corpus.is_dir():  # a mistyped --corpus must not score phrasing alone
            console.print(f"no corpus folder at {corpus}", style="red")
            raise typer.Exit(2)
        if not eval_table(gold, phrasing, corpus, names, cv, llm_base_url, llm_model, holdouts=holdouts, union=union):
            raise typer.Exit(2)  # nothing was evaluated (the reason is printed)

    from aac.cli.annotation import register as register_annotation

    register_annotation(app)


def _report_failed(n_failed: int, n_items: int, classifier: str, clf=None) -> None:
    from aac.classifiers.llm import stats_of

    first = stats_of(clf).get("first_error") if clf is not None else ""
    console.print(f"{n_failed} of {n_items} items could not be typed by {classifier} (written abstained, "
                  f"classifier '…:error')" + (f"; first error: {first}" if first else "") + "", style="red")


def _retype(corpus: Path, classifier: str, runner: str, address: str | None, clf=None,
            llm_base_url: str | None = None, llm_model: str | None = None) -> None:
    """Retype the corpus's items under its writer lock (aac.core.corpus_lock): never beside an `aac process`."""
    from aac.core.corpus_lock import corpus_lock

    with corpus_lock(corpus, "aac classify --corpus", create=False):
        _retype_held(corpus, classifier, runner, address, clf, llm_base_url, llm_model)


def _retype_held(corpus: Path, classifier: str, runner: str, address: str | None, clf=None,
                 llm_base_url: str | None = None, llm_model: str | None = None) -> None:
    from aac.core.store import Corpus

    c = Corpus(corpus)
    if not c.exists("items"):
        console.print(f"corpus {corpus} has no items table", style="red")
        raise typer.Exit(2)
    if runner == "local":
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        from aac.classifiers.base import get_classifier
        from aac.classifiers.batch import retype_corpus

        from aac.classifiers.base import fingerprint_of
        from aac.processing.item_record import rewriting_items

        total = c.count("items")
        clf = clf if clf is not None else get_classifier(classifier)
        with Progress(TextColumn("{task.description}", markup=False), BarColumn(), MofNCompleteColumn(),
                      TimeRemainingColumn(), console=console) as bar, \
                rewriting_items(c, fingerprint_of(clf), whole_table=True):  # so `aac process` knows who typed them
            task = bar.add_task(f"classify ({classifier})", total=total)
            n = retype_corpus(c, clf, on_progress=lambda k: bar.advance(task, k))
    elif runner in ("prefect", "dask"):
        from aac.flows.classify import classify_corpus_flow
        from aac.flows.interrupt import exit_at_once_on_interrupt

        try:
            with exit_at_once_on_interrupt("retyping"):
                n = classify_corpus_flow(str(corpus), classifier, runner, address,
                                         llm_base_url=llm_base_url, llm_model=llm_model)
        except RuntimeError as exc:  # e.g. the dask extra is missing: say which install line fixes it
            console.print(f"{exc}", style="red")
            raise typer.Exit(2)
    else:
        console.print(f"unknown runner {runner!r}; use local, prefect or dask", style="red")
        raise typer.Exit(2)
    c.refresh_catalog()
    console.print(f"retyped {n} items in {corpus} with {classifier}")
    if clf is not None and runner == "local":  # a flow's workers keep their own figures
        _print_llm_stats(clf)
    from aac.classifiers.batch import count_failed

    n_failed = count_failed(c)
    if n_failed:
        from aac.classifiers.base import fingerprint_of
        from aac.processing.item_record import typed_incompletely

        typed_incompletely(c, fingerprint_of(clf) if clf is not None else None, n_failed)
        _report_failed(n_failed, n, classifier, clf if runner == "local" else None)
        raise typer.Exit(1)
