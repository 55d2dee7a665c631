"""`aac eval classifiers`: every variant on the gold and phrasing files in one rich table, paper figures beside."""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from rich.console import Console
from rich.text import Text
from rich.table import Table

from aac.core.terminal import plain_console
from aac.classifiers.evaluation import PAPER_DECLARATIVE_RECALL, Scores, cross_validated, score

FORMS = ("imperative", "declarative", "conditional", "passive")


def _default_path(name: str) -> Path | None:
    from aac.classifiers.paths import shared_data

    p = shared_data() / name
    return p if p.exists() else None


def _cascade_beside(data, P, rep, cache: Path, console: Console):
    """The teacher-cascade's grouped report on the union's folds (None, with the reason printed, when its teachers
    cannot be had: the minilm extra missing for a fold not cached, or a cache file of another split)."""
    from aac.classifiers.cascade_eval import cascade_report, fold_teacher_proba
    from aac.classifiers.datasets import prevalence_weights
    from aac.classifiers.training import FitOptions, fold_splits

    try:
        T = fold_teacher_proba(data, fold_splits(data, FitOptions()), cache, log=lambda m: console.print(m))
    except (RuntimeError, ValueError, OSError) as exc:
        console.print(f"teacher-cascade left out: {exc}", style="red")
        return None
    return cascade_report(data, P, T, prevalence_weights(list(data)), rep.type_threshold, rep.hard_threshold)


def eval_table(gold_path: Path | None, phrasing_path: Path | None, corpus: Path | None, names: Sequence[str],
               with_cv: bool, llm_base_url: str | None = None, llm_model: str | None = None,
               console: Console | None = None, holdouts: Sequence[str] = ("repo",), union: bool = True,
               teacher_folds: Path | None = None) -> list[Scores]:
    """Every variant's scores in one table (returned); with ``with_cv`` the grouped CV of the shipped recipe too, over
    the union when no other gold is named, and with ``teacher_folds`` (a cache folder) the teacher-cascade beside it."""
    from aac.classifiers.base import get_classifier
    from aac.classifiers.datasets import load_annotated, load_gold, load_phrasing, own_examples, packaged_annotations

    console = console or plain_console(width=150)
    # the union CV is the shipped recipe's: it runs when no other gold is named (and --union is left on)
    union = union and gold_path is None and corpus is None and _default_path("gold_train.jsonl") is not None
    gold_path = gold_path or (None if corpus else _default_path("gold_dev.jsonl"))
    phrasing_path = phrasing_path or _default_path("phrasing_dev.jsonl")
    gold = load_gold(gold_path) if gold_path else []
    if corpus is not None:
        from aac.classifiers.datasets import gold_from_corpus

        gold += gold_from_corpus(corpus)
    phrasing = load_phrasing(phrasing_path) if phrasing_path else []
    if not gold and not phrasing:
        console.print("no gold or phrasing data: pass --gold / --phrasing (or --corpus)", style="red")
        return []
    rows: list[Scores] = []
    for name in names:
        from aac.classifiers.llm import llm_options

        opts = llm_options(name, llm_base_url, llm_model)
        try:
            rows.append(score(get_classifier(name, **opts), gold, phrasing))
            rows[-1].name = name
        except Exception as exc:  # one broken variant must not hide the others
            rows.append(Scores(name, error=str(exc).splitlines()[0][:80]))
    union_data = []
    if with_cv and union:
        from aac.classifiers.union_report import print_union_report, shipped_data, union_report
        from aac.classifiers.training import SHIPPED_WITH_ANNOTATED

        union_data = shipped_data(with_annotated=SHIPPED_WITH_ANNOTATED)
        rep, P = union_report(union_data)
        cascade = _cascade_beside(union_data, P, rep, teacher_folds, console) if teacher_folds else None
        print_union_report(rep, console, len({d.group for d in union_data if d.source == "gold"}), cascade)
    elif teacher_folds is not None:
        console.print("--teacher-folds adds the teacher-cascade to the grouped CV over every real labelled item: it "
                      "needs --cv, --union and no --gold / --corpus", style="yellow")
    if with_cv and not union_data:  # gold_dev only: the package's annotated sample items train every fold that does not hold out their repo
        sample = _default_path("agent_configs_sample.jsonl")
        annotated = load_annotated(packaged_annotations(), sample) if sample else []
        data = [*own_examples(), *annotated, *gold, *phrasing]
        for holdout in holdouts:
            # item-level folds are judged at the shipped model's threshold (picked on repository folds), as in its card
            threshold = get_classifier("trained").model.c_threshold if holdout == "item" else None
            rows.append(cross_validated(data, gold, phrasing, holdout=holdout, threshold=threshold))
    t = Table(title=f"classifiers on {len(gold)} gold + {len(phrasing)} phrasing items")
    for col in ("variant", "C rec", "C prec", "C F1", "mF1", "acc", "ms/item", "imper.", "decl.", "cond.", "passive",
                "distr.→C"):
        t.add_column(col, justify="left" if col == "variant" else "right", no_wrap=True)
    f = lambda d, k: f"{d[k]:.2f}" if k in d else "-"  # noqa: E731
    for s in rows:
        if s.error:
            t.add_row(s.name, Text(str(s.error), style="red"), *[""] * 10)
            continue
        t.add_row(s.name, f(s.gold, "c_rec"), f(s.gold, "c_prec"), f(s.gold, "c_f1"), f(s.gold, "macro_f1"),
                  f(s.gold, "acc"), f"{s.ms_per_item:.3f}" if s.ms_per_item else "-",
                  *[f(s.forms, k) for k in FORMS], f(s.forms, "distractor_to_c"))
    for name, decl in PAPER_DECLARATIVE_RECALL.items():
        t.add_row(Text(f"paper: {name}", style="dim"), *["-"] * 7, Text(f"{decl:.2f}", style="dim"), *["-"] * 3)
    console.print(t)
    console.print("paper figures: regex declarative recall 0.00, SafetyMargin (LLM) declarative recall 0.90 — "
                  "the only figures quoted; in-sample rows of `trained`/`cascade` were fitted on these files, "
                  "the grouped-CV row holds out whole repositories / rules, the item-level one single gold items. ms/item: one cold pass over these items "
                  "(bench/classify.py measures steady-state throughput).")
    return rows
