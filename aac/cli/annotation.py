"""`aac annotate ...`: sample, Label Studio export/import, dev-format import, agreement, adjudication."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from aac.core.terminal import plain_console

console = plain_console(stderr=True, soft_wrap=True)  # a message stays one line in logs, whatever the width
CorpusOpt = typer.Option(Path("data"), "--corpus", envvar="AAC_CORPUS", help="Corpus folder.")


def _save_labels(corpus: Path, rows: list[dict], source) -> None:
    """Store imported labels: texts filled from the corpus where the file has none (a label without its item's
    text could be neither trained on nor evaluated, so such an import is refused whole); replaced labels counted."""
    from aac.annotation.store import fill_text, replaced_labels, save
    from aac.core.store import Corpus

    c = Corpus(corpus)
    missing = fill_text(c, rows)
    if missing:
        console.print(f"{source}: {len(missing)} of {len(rows)} labels have no item text in the file, its "
                      f"--items file or corpus {corpus} (first: {missing[0]['item_id']}); nothing imported", style="red")
        raise typer.Exit(2)
    replaced = replaced_labels(c, rows)
    if replaced:
        console.print(f"{replaced} stored labels (same item, annotator and round) replaced by different "
                      "ones", style="yellow")
    save(c, rows)
    c.refresh_catalog()  # a catalog written before the first labels holds an empty annotations view


def register(app: typer.Typer) -> None:
    ann = typer.Typer(help="The annotation loop: sample, label in Label Studio, measure agreement, adjudicate.",
                      no_args_is_help=True)
    app.add_typer(ann, name="annotate")

    @ann.command("sample")
    def sample(corpus: Path = CorpusOpt, repos: int = typer.Option(200, "--repos", min=1),
               items: int = typer.Option(2000, "--items", min=1),
               seed: int = typer.Option(0, "--seed"), out: Path = typer.Option(Path("annotation"), "--out",
                                                                               help="Folder for sample.jsonl + Label Studio tasks.json/label_config.xml"),
               exclude: list[Path] = typer.Option([], "--exclude", help="labelled items to leave out (gold_dev.jsonl "
                                                  "format: repo + text), repeatable"),
               holdout: Optional[Path] = typer.Option(None, "--holdout", help="SHA-256 of lower-case owner/name, one "
                                                      "a line (holdout_repos.sha256): never sample those repositories"),
               prefer: list[str] = typer.Option([], "--prefer", help="lean the sample towards items that are "
                                                "non-english and/or governed (a heading or lead-in carries the force)"),
               prefer_share: float = typer.Option(0.6, "--prefer-share", min=0.0, max=1.0,
                                                  help="share of the items drawn from the preferred ones")) -> None:
        """Stratified sample (star band x language) of repositories, then items; written for Label Studio."""
        from aac.core.jsonl import read_objects
        from aac.annotation.labelstudio import export_tasks
        from aac.annotation.sample import PREFER, labelled_keys, read_holdout, repo_digest, sample_items
        from aac.core.store import Corpus

        c = Corpus(corpus)
        if not c.exists("items") or not c.exists("artifacts"):
            console.print(f"corpus {corpus} needs items and artifacts tables", style="red")
            raise typer.Exit(2)
        unknown = [k for k in prefer if k not in PREFER]
        if unknown:
            console.print(f"--prefer takes {' or '.join(PREFER)}, got {unknown[0]!r}", style="red")
            raise typer.Exit(2)
        try:
            done = labelled_keys(r for path in exclude for r in read_objects(path))
            hidden = read_holdout(holdout) if holdout else set()
        except (OSError, ValueError) as exc:
            console.print(f"{exc}", style="red")
            raise typer.Exit(2)
        left_out = {"holdout repository": 0, "already labelled": 0}

        def skip(it: dict) -> bool:
            if hidden and repo_digest(it["repo"] or "") in hidden:
                left_out["holdout repository"] += 1
                return True
            if (it["repo"] or "", (it["text"] or "").strip()) in done:
                left_out["already labelled"] += 1
                return True
            return False

        tests = [PREFER[k] for k in prefer]
        rows = sample_items(c, repos, items, seed, skip=skip if (done or hidden) else None,
                            prefer=(lambda it: any(t(it) for t in tests)) if tests else None,
                            prefer_share=prefer_share if tests else 0.0)
        if done or hidden:
            console.print("left out before sampling: " + ", ".join(f"{n} items ({k})" for k, n in left_out.items()))
        out.mkdir(parents=True, exist_ok=True)
        with open(out / "sample.jsonl", "w", encoding="utf-8") as f:
            for r in rows:
                f.write(json.dumps(r, ensure_ascii=False, default=str) + "\n")
        tasks, config = export_tasks(rows, out)
        console.print(f"sampled {len(rows)} items from {len({r['repo'] for r in rows})} repositories -> {tasks}, {config}")

    @ann.command("boundary")
    def boundary(corpus: Path = CorpusOpt, items: int = typer.Option(800, "--items", min=1),
                 per_repo: int = typer.Option(20, "--per-repo", min=1, help="at most this many items of one repository"),
                 threshold: Optional[float] = typer.Option(None, "--threshold", min=0.0, max=1.0,
                                                           help="P(C) the boundary sits at "
                                                           "(default: the default classifier's C threshold)"),
                 out: Path = typer.Option(Path("annotation-boundary"), "--out",
                                          help="Folder for sample.jsonl (with P(C)) + blind Label Studio tasks")) -> None:
        """Typed items nearest the constraint boundary, not yet settled in `gold`: a second round's sample."""
        from aac.annotation.labelstudio import export_tasks
        from aac.annotation.sample import boundary_items
        from aac.core.store import Corpus

        if threshold is None:
            from aac.classifiers.base import get_classifier

            threshold = float(get_classifier("trained").model.c_threshold)
        try:
            rows = boundary_items(Corpus(corpus), items, threshold, per_repo)
        except ValueError as exc:
            console.print(f"{exc}", style="red")
            raise typer.Exit(2)
        out.mkdir(parents=True, exist_ok=True)
        with open(out / "sample.jsonl", "w", encoding="utf-8") as f:
            for r in rows:
                f.write(json.dumps(r, ensure_ascii=False, default=str) + "\n")
        tasks, config = export_tasks(rows, out)
        console.print(f"{len(rows)} items with P(C) nearest {threshold:.2f} from {len({r['repo'] for r in rows})} "
                      f"repositories -> {out / 'sample.jsonl'}, {tasks}, {config}")

    @ann.command("import-ls")
    def import_ls(export: Path = typer.Argument(..., help="Label Studio JSON export"), corpus: Path = CorpusOpt,
                  round_: int = typer.Option(1, "--round", min=1),
                  users: Optional[Path] = typer.Option(None, "--users", help="Label Studio's GET /api/users answer "
                                                       "(or a JSON object id -> name): names the annotators a plain "
                                                       "export gives by numeric user id only")) -> None:
        """Import a Label Studio JSON export (one row per annotator and item) into the annotations table."""
        from aac.annotation.labelstudio import import_export, read_users

        try:
            names = read_users(users) if users else None
            rows, problems = import_export(export, round_, names)
        except (OSError, ValueError) as exc:
            console.print(f"{exc}", style="red")
            raise typer.Exit(2)
        for p in problems:
            console.print(f"{p}", style="yellow")
        if not rows:
            console.print(f"{export}: no usable annotations", style="red")
            raise typer.Exit(1)
        _save_labels(corpus, rows, export)
        console.print(f"imported {len(rows)} annotations from {len({r['annotator'] for r in rows})} annotators")

    @ann.command("import-gold")
    def import_gold(path: Path = typer.Argument(..., help="gold_dev.jsonl format"), corpus: Path = CorpusOpt) -> None:
        """Import gold_dev-format labels (annotators A, B and the adjudicated label)."""
        from aac.annotation.formats import import_gold_jsonl

        rows = import_gold_jsonl(path)
        _save_labels(corpus, rows, path)
        console.print(f"imported {len(rows)} annotation rows from {path}")

    @ann.command("import-labels")
    def import_labels(path: Path = typer.Argument(..., help="per-annotator label file (id, label, meta)"),
                      annotator: str = typer.Option(..., "--annotator"), items: Optional[Path] = typer.Option(None, "--items", help="items file with id, text, section"),
                      corpus: Path = CorpusOpt, round_: int = typer.Option(1, "--round", min=1, help="annotation round")) -> None:
        """Import one annotator's label file (e.g. gold_dev_labels_A.jsonl with gold_dev_items.jsonl)."""
        from aac.annotation.formats import import_label_file

        if not annotator.strip():  # an empty name makes a nameless annotator in agreement and the gold view
            console.print("--annotator needs a name", style="red")
            raise typer.Exit(2)
        try:
            rows = import_label_file(path, annotator.strip(), items, round_)
        except (OSError, ValueError, KeyError) as exc:
            console.print(f"{path}: {exc}", style="red")
            raise typer.Exit(2)
        _save_labels(corpus, rows, path)
        console.print(f"imported {len(rows)} labels by {annotator}")

    @ann.command("agreement")
    def agreement(corpus: Path = CorpusOpt, a: Optional[Path] = typer.Option(None, "--a", help="label file A (instead of the corpus)"),
                  b: Optional[Path] = typer.Option(None, "--b", help="label file B"),
                  by: str = typer.Option("annotator", "--by", help="compare each pair of annotators; each pair of "
                                         "rounds (when each round is split among many annotators); or each round "
                                         "against the adjudicated labels (gold items slipped into its batches)")) -> None:
        """Cohen's kappa (five-class and C-vs-other) and the confusion matrix for each annotator (or round) pair."""
        from rich.table import Table

        from aac.annotation.agreement import agreement_report
        from aac.core.schema import TYPES

        if a and b:
            from aac.annotation.formats import _check, _id
            from aac.core.jsonl import read_objects

            la, lb = ({_id(r, f"{f}:{n}"): _check(r.get("label"), f"{f}:{n}") for n, r in enumerate(read_objects(f), 1)}
                      for f in (a, b))
            ids = sorted(set(la) & set(lb))
            pairs = {(a.name, b.name): ([la[i] for i in ids], [lb[i] for i in ids])}
        elif by in ("annotator", "round", "gold"):
            from aac.annotation.store import adjudicated_pairs, annotator_pairs, round_pairs
            from aac.core.store import Corpus

            pairs = {"annotator": annotator_pairs, "round": round_pairs, "gold": adjudicated_pairs}[by](Corpus(corpus))
        else:
            console.print(f"--by must be annotator, round or gold, got {by!r}", style="red")
            raise typer.Exit(2)
        if not pairs:
            what = {"annotator": "by two annotators", "round": "in two rounds", "gold": "by an annotator and adjudicated"}
            console.print(f"no items labelled {what.get(by, 'twice')}", style="yellow")
            raise typer.Exit(1)
        out = plain_console()
        for (x, y), (la_, lb_) in pairs.items():
            rep = agreement_report(la_, lb_)
            out.print(f"{x} vs {y}: n={rep['n']} observed={rep['observed']:.3f} "
                      f"kappa five-class={rep['kappa_5']:.3f} kappa C-vs-other={rep['kappa_c']:.3f}")
            t = Table(title=f"rows {x}, columns {y}")
            t.add_column("")
            for k in TYPES:
                t.add_column(k, justify="right")
            for k, row in zip(TYPES, rep["confusion"]):
                t.add_row(k, *map(str, row))
            out.print(t)

    @ann.command("export")
    def export(out: Path = typer.Option(..., "--out", help="JSONL file to write (gold_dev.jsonl format)"),
               corpus: Path = CorpusOpt,
               labels_only: bool = typer.Option(False, "--labels-only", help="no text: the annotated-labels format "
                                                "of aac/classifiers/data/annotated_sample.jsonl (id = hash of the "
                                                "text, repo, path, label, votes), for `classify train --annotated`")) -> None:
        """Write the `gold` view in gold_dev.jsonl format, with every vote and how each label was settled; train and
        evaluate on it with `aac classify train --gold FILE` / `aac eval classifiers --gold FILE`."""
        from aac.annotation.formats import gold_jsonl_rows, labels_only_rows
        from aac.core.gold_view import gold_rows
        from aac.core.store import Corpus

        gold = gold_rows(Corpus(corpus))
        rows = labels_only_rows(gold) if labels_only else gold_jsonl_rows(gold)
        if labels_only and len(rows) < len(gold):
            console.print(f"{len(gold) - len(rows)} settled items have no repository, path or text to join "
                          "them back by: left out of the labels-only file", style="yellow")
        if not rows:
            console.print(f"corpus {corpus} has no settled labels yet (see `aac annotate queue`)", style="yellow")
            raise typer.Exit(1)
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = out.with_name(out.name + ".tmp")
        with open(tmp, "w", encoding="utf-8") as f:
            for r in rows:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
        tmp.replace(out)
        by = {}
        for r in rows:
            by[r["provenance"]] = by.get(r["provenance"], 0) + 1
        console.print(f"wrote {len(rows)} labelled items to {out} ("
                      + ", ".join(f"{n} {k}" for k, n in sorted(by.items())) + ")")

    @ann.command("queue")
    def queue(corpus: Path = CorpusOpt,
              tasks: Optional[Path] = typer.Option(None, "--tasks", help="also write the queued items as Label Studio "
                                                   "tasks in this folder, without anyone's labels, for a blind "
                                                   "tie-break round (import it with import-ls --round N)")) -> None:
        """Items whose annotators disagree and that no adjudication or majority has settled yet."""
        from aac.annotation.store import adjudication_queue
        from aac.core.store import Corpus

        rows = adjudication_queue(Corpus(corpus))
        for r in rows:
            sys_out = json.dumps({"item_id": r["item_id"], "labels": r["labels"], "text": r["text"]}, ensure_ascii=False)
            typer.echo(sys_out)
        console.print(f"{len(rows)} items awaiting adjudication")
        if tasks is not None and rows:
            from aac.annotation.labelstudio import export_tasks

            tasks_path, config = export_tasks(rows, tasks)
            console.print(f"tie-break tasks -> {tasks_path}, {config}")

    @ann.command("lean-c")
    def lean_c(corpus: Path = CorpusOpt,
               queued_only: bool = typer.Option(False, "--queued-only", help="leave alone items a strict majority "
                                                "already settled (C, F, F stays F)")) -> None:
        """Settle as C every disagreement with a C vote and every item an annotator marked "leans C" on another label
        (the constraint lean), recorded as the adjudicator's label.

        On this project's blind gold checks each annotator under-calls constraints (C recall 0.74-0.86 at precision
        0.95-0.97; 0.94 for one pass counting its "leans C" marks); "either says C" reaches 0.86-0.93 at 0.91-0.95.
        A later `aac annotate adjudicate` supersedes it."""
        from aac.annotation.store import settle_constraint_lean
        from aac.core.store import Corpus

        settled = settle_constraint_lean(Corpus(corpus), queued_only)
        Corpus(corpus).refresh_catalog()
        for item_id in settled:
            typer.echo(item_id)
        console.print(f"{len(settled)} items settled as C by the constraint lean")

    @ann.command("adjudicate")
    def adjudicate_cmd(item_id: str, label: str, corpus: Path = CorpusOpt,
                       meta: Optional[bool] = typer.Option(None, "--meta/--no-meta", help="pointer-only item (default: "
                                                           "the annotators' flag)"),
                       round_: Optional[int] = typer.Option(None, "--round", min=1, help="default: the round after "
                                                            "the item's latest adjudication, so it supersedes it")) -> None:
        """Record the adjudicated label of one item; it then enters the `gold` view."""
        from aac.annotation.store import adjudicate
        from aac.core.store import Corpus

        try:
            recorded = adjudicate(Corpus(corpus), item_id, label, round_, meta)
        except (KeyError, ValueError) as exc:
            console.print(f"error: {exc.args[0] if exc.args else exc}", style="red")
            raise typer.Exit(2)
        Corpus(corpus).refresh_catalog()
        from aac.core.labels import parse_type

        quoted = item_id.replace("'", "''")
        gold = Corpus(corpus).sql(f"SELECT label FROM gold WHERE item_id = '{quoted}'").to_pylist()
        console.print(f"{item_id} -> {parse_type(label)} (adjudication round {recorded})")
        if gold and gold[0]["label"] != parse_type(label):
            console.print(f"gold keeps {gold[0]['label']}: a later adjudication round of this item "
                          "exists", style="yellow")
