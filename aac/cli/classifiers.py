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


def _print_llm_stats(s: dict) -> None:
    if s:
        console.print(f"LLM: {s['calls']} requests, {s['cache_hits']} cached, {s['retries']} retries, {s['errors']} "
                      f"failed items; {s['prompt_tokens']} prompt + {s['completion_tokens']} completion tokens; "
                      f"mean latency {s['mean_latency_ms']:.0f} ms")


def register(app: typer.Typer, eval_app: typer.Typer) -> None:
    from aac.cli.options import job_options
    from aac.jobs.classify import ClassifyOptions

    classify_app = typer.Typer(help="Type items as C/P/B/F/E (Constraint, Procedural, Belief, Preference, Episodic).",
                               invoke_without_command=True)
    app.add_typer(classify_app, name="classify")

    @classify_app.callback()
    @job_options(ClassifyOptions)
    def classify(options: ClassifyOptions, ctx: typer.Context) -> None:
        """Classify a JSONL file (--in/--out) or retype a corpus (--corpus)."""
        if ctx.invoked_subcommand:
            return
        from aac.jobs.classify import BadClassifyInput, build_classifier, check

        try:
            check(options)
            clf = build_classifier(options.classifier, options.llm_base_url, options.llm_model)
        except BadClassifyInput as exc:
            console.print(f"{exc}", style="red")
            raise typer.Exit(exc.exit_code)
        except (KeyError, RuntimeError, FileNotFoundError, ValueError) as exc:  # the classifier cannot be built
            message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc  # not KeyError's quoted repr
            console.print(f"{message}", style="red")
            raise typer.Exit(2)
        if options.src is None and options.runner != "local":
            try:
                report = _retype_on_flow(options)
            except RuntimeError as exc:  # e.g. the dask extra is missing: say which install line fixes it
                console.print(f"{exc}", style="red")
                raise typer.Exit(2)
        else:
            report = _classify_here(options, clf)
        _print_classified(options, report)

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
                                   ("annotated_train.jsonl", "agent_configs_train.jsonl"),
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

    @classify_app.command("train-teacher")
    def train_teacher(
        out: Path = typer.Option(Path("models/teacher.pt"), "--out", help="Where to write the teacher's weights "
                                 "(about 90 MB; keep them out of git)."),
        epochs: int = typer.Option(1, "--epochs", min=1, help="Passes over the training items (about 20 min each "
                                   "on 2 cores)."),
        max_len: int = typer.Option(64, "--max-len", min=16, help="Tokens of (headings + lead-in, text) read."),
        seed: int = typer.Option(0, "--seed"),
    ) -> None:
        """Fine-tune the MiniLM teacher of the `teacher-cascade` classifier on the shipped recipe's data (needs the
        minilm extra and the shared data); use it with AAC_TEACHER=PATH aac classify --classifier teacher-cascade."""
        import time

        from aac.classifiers.teacher_cascade import TEACHER_ENV, CascadeParams, train_union_teacher

        skipped: list[str] = []
        t0 = time.perf_counter()
        try:
            path, n = train_union_teacher(out, epochs=epochs, max_len=max_len, seed=seed, skipped=skipped,
                                          log=lambda m: console.print(m))
        except (RuntimeError, FileNotFoundError) as exc:  # the minilm extra or the shared data is missing
            console.print(f"{exc}", style="red")
            raise typer.Exit(2)
        for what in skipped:
            console.print(f"skipped {what}", style="yellow")
        console.print(f"trained on {n} items in {time.perf_counter() - t0:.0f} s; cascade parameters "
                      f"{CascadeParams()}; wrote {path} and its card {path}.md; use it with {TEACHER_ENV}={path} "
                      "aac classify --classifier teacher-cascade")

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
        teacher_folds: Optional[Path] = typer.Option(None, "--teacher-folds", help="With the union CV: add the "
                                                     "teacher-cascade beside it, its teachers fine-tuned per fold "
                                                     "(about 16 min a fold on 2 cores; needs aac[minilm]) and cached "
                                                     "in this folder for later runs."),
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
        if not eval_table(gold, phrasing, corpus, names, cv, llm_base_url, llm_model, holdouts=holdouts, union=union,
                          teacher_folds=teacher_folds):
            raise typer.Exit(2)  # nothing was evaluated (the reason is printed)

    from aac.cli.annotation import register as register_annotation

    register_annotation(app)


def _report_failed(n_failed: int, n_items: int, classifier: str, first: str | None = None) -> None:
    console.print(f"{n_failed} of {n_items} items could not be typed by {classifier} (written abstained, "
                  f"classifier '…:error')" + (f"; first error: {first}" if first else "") + "", style="red")


def _classify_here(options, clf):
    """The job in this process with the classifier built already; a corpus retype shows a progress bar."""
    from aac.jobs.classify import classify as classify_job

    if options.src is not None:
        return classify_job(options, clf=clf)
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    with Progress(TextColumn("{task.description}", markup=False), BarColumn(), MofNCompleteColumn(),
                  TimeRemainingColumn(), console=console) as bar:
        task = bar.add_task(f"classify ({options.classifier})", total=None)
        return classify_job(options, on_progress=lambda k, total: bar.update(task, advance=k, total=total), clf=clf)


def _retype_on_flow(options):
    """The Prefect flow ``classify-corpus`` on Prefect's threads or on Dask."""
    from aac.flows.classify import run_classify_flow
    from aac.flows.interrupt import exit_at_once_on_interrupt
    from aac.jobs.classify import ClassifyReport

    with exit_at_once_on_interrupt("retyping"):
        return ClassifyReport(**run_classify_flow(options))


def _print_classified(options, report) -> None:
    """The run's lines; exit 1 when items could not be typed or input lines were not items."""
    name = options.classifier
    if options.src is not None:
        console.print(f"classified {report.items} items with {name} -> {options.out}"
                      + (f" ({report.errors} bad lines kept with an error field)" if report.errors else ""))
    else:
        console.print(f"retyped {report.items} items in {options.corpus} with {name}")
    _print_llm_stats(report.llm)
    if report.failed:
        _report_failed(report.failed, report.items, name, report.llm.get("first_error"))
        raise typer.Exit(1)
    if report.errors:  # the output holds them, flagged; the exit status says the input was not clean
        console.print(f"{report.errors} lines of {options.src} are not items (see their error field)", style="red")
        raise typer.Exit(1)
