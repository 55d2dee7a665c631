"""`aac compact`, `aac decompose`, `aac retrieve` and `aac eval operators`.

Start-up matters (the yardstick calls `aac compact` hundreds of times): everything beyond typer is imported
inside the command functions, and the compact path never touches Prefect, torch or scikit-learn.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import typer


def _parse_budget(value: str) -> float | int:
    try:
        if any(c in value for c in ".eE"):
            v = float(value)
            if not 0 < v <= 1:
                raise ValueError
            return v
        v = int(value)
        if v < 0:
            raise ValueError
        return v
    except ValueError:
        raise typer.BadParameter(f"{value!r}: give a share in (0, 1] like 0.5, or a token count like 2000")


def _kb_from_file(path: Path, classifier: str, keep_secrets: bool = False):
    """The typed items of a user's file, its secrets redacted with the pipeline's shapes unless ``keep_secrets``.
    A folder, a missing file or binary content is an input error: one line, exit status 2."""
    from aac.operators.ingest import NotATextFile, read_text_file, rows_from_text
    from aac.operators.model import KnowledgeBase
    from aac.core.tokens import count_tokens

    try:
        text = read_text_file(path)
    except NotATextFile as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2)
    if not keep_secrets:
        from aac.processing.secrets import scrub  # the corpus pipeline's detectors: one source of secret shapes

        scrubbed = scrub(text)
        if scrubbed.found:
            typer.echo(f"redacted {scrubbed.found} secret(s) in {path} ({', '.join(scrubbed.kinds)}); "
                       f"--keep-secrets prints them as they are", err=True)
        text = scrubbed.text
    return KnowledgeBase.from_rows(rows_from_text(text, path, classifier), source_tokens=count_tokens(text))


_KEEP_SECRETS = typer.Option(False, "--keep-secrets", help="Print secrets found in the file as they are "
                             "(default: replaced by [REDACTED:<kind>], as the corpus pipeline does).")


def compact(
    file: Path = typer.Argument(..., help="A CLAUDE.md / AGENTS.md / rules / policy file."),
    budget: str = typer.Option(..., "--budget", "-b", help="Share of the file's tokens (0.5) or a token count (2000)."),
    out: Path = typer.Option(None, "--out", "-o", help="Write the compacted text here (default: stdout)."),
    as_json: bool = typer.Option(False, "--json", help="Print the result report as one JSON object."),
    allow_unsafe: bool = typer.Option(False, "--allow-unsafe", help="Exit 0 even when the hard lane does not fit."),
    classifier: str = typer.Option("default", "--classifier", help="Classifier registry name."),
    keep_secrets: bool = _KEEP_SECRETS,
) -> None:
    """Compact a file to a token budget: constraints and procedures verbatim, the rest compressed (TypeCompact)."""
    from aac.operators.compact import type_compact

    kb = _kb_from_file(file, classifier, keep_secrets)
    res = type_compact(kb, _parse_budget(budget))
    if not res.unsafe or allow_unsafe:
        if out is not None:
            out.write_text(res.text + ("\n" if res.text else ""), encoding="utf-8")
        elif not as_json:
            sys.stdout.write(res.text + "\n")
    elif out is not None and out.exists() and not out.samefile(file):
        out.unlink()  # an earlier run's output must not pass for this one's (never the input itself)
    if as_json:
        report = res.as_dict()
        if out is None and (not res.unsafe or allow_unsafe):  # "no output written" holds for the report too
            report["text"] = res.text
        sys.stdout.write(json.dumps(report, ensure_ascii=False) + "\n")
    if res.unsafe:
        typer.echo(f"UNSAFE: {res.reason}; {len(res.dropped)} item(s) not in the output"
                   + ("" if allow_unsafe else " (no output written; --allow-unsafe writes the best effort)"), err=True)
        if not allow_unsafe:
            raise typer.Exit(3)


def decompose(
    file: Path = typer.Argument(..., help="The file to partition."),
    partition_budget: int = typer.Option(..., "--partition-budget", "-p", min=1, help="Tokens per partition."),
    out: Path = typer.Option(..., "--out", "-o", help="Folder for partition-NNN.md files and report.json."),
    recursive: bool = typer.Option(False, "--recursive", help="Split topics over --split-threshold items with KMeans."),
    split_threshold: int = typer.Option(500, "--split-threshold", min=1,
                                         help="Items per topic before a recursive split."),
    classifier: str = typer.Option("default", "--classifier", help="Classifier registry name."),
    keep_secrets: bool = _KEEP_SECRETS,
) -> None:
    """Split a file into partitions that fit a budget, each carrying every constraint in its scope (TypeDecompose)."""
    from aac.operators.decompose import locality_violations, type_decompose

    kb = _kb_from_file(file, classifier, keep_secrets)
    res = type_decompose(kb, partition_budget, recursive=recursive, split_threshold=split_threshold)
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("partition-*.md"):
        old.unlink()
    for n, part in enumerate(res.partitions):
        (out / f"partition-{n:03d}.md").write_text(part.text + "\n", encoding="utf-8")
    violated, required = locality_violations(kb, res.partitions)
    report = res.as_dict() | {"locality_violations": violated, "locality_pairs": required}
    (out / "report.json").write_text(json.dumps(report, indent=1, ensure_ascii=False), encoding="utf-8")
    typer.echo(f"{len(res.partitions)} partitions in {out}; overhead {res.overhead:+.1%}; "
               f"locality violations {violated}/{required}", err=True)
    if res.infeasible:
        typer.echo(f"INFEASIBLE: {len(res.infeasible)} topic(s)/item(s) cannot fit next to their constraints "
                   f"(see report.json)", err=True)
        raise typer.Exit(3)


def retrieve(
    query: str = typer.Argument(..., help="The query text."),
    k: int = typer.Option(10, "-k", min=1, help="How many items to return."),
    file: list[Path] = typer.Option(None, "--file", help="Items from these files (repeatable)."),
    corpus: Path = typer.Option(None, "--corpus", help="Items from a corpus folder's items table."),
    topics: str = typer.Option(None, "--topics", help="Comma-separated query topics (default: inferred)."),
    path: list[str] = typer.Option(None, "--path", help="A file path the query is about (repeatable): rules scoped "
                                   "to a matching glob (.mdc `globs`) are pinned too."),
    scorer: str = typer.Option("bm25", "--scorer", help="bm25 | dense"),
    authority_weighted: bool = typer.Option(False, "--authority-weighted", help="Order pinned constraints by risk."),
    no_pin: bool = typer.Option(False, "--no-pin", help="Relevance only (the baseline)."),
    classifier: str = typer.Option("default", "--classifier", help="Classifier for --file items."),
    as_json: bool = typer.Option(False, "--json", help="One JSON object instead of lines."),
    allow_unsafe: bool = typer.Option(False, "--allow-unsafe", help="Exit 0 even when more constraints are in "
                                      "scope than -k lets through."),
    keep_secrets: bool = _KEEP_SECRETS,
) -> None:
    """Top-k items for a query with in-scope constraints pinned first (TypeRetrieve)."""
    from aac.operators.context import render_with_context
    from aac.operators.model import item_from_row
    from aac.operators.retrieve import TypeRetriever, namespaced, resolve_topics

    items = []  # each document's topics and scopes live under its own namespace in the shared store
    names: dict[str, int] = {}
    for f in file or []:  # one agent's files: their global rules hold whatever the query
        names[f.name] = names.get(f.name, 0) + 1  # two CLAUDE.md of different folders stay two documents
        ns = f.name if names[f.name] == 1 else f"{f.name}#{names[f.name]}"
        items += [namespaced(i, ns, len(items) + n, keep_global=True)
                  for n, i in enumerate(_kb_from_file(f, classifier, keep_secrets).items)]
    if corpus is not None:
        from aac.core.store import Corpus

        for row in Corpus(corpus).read("items").to_pylist():
            items.append(namespaced(item_from_row(row, len(items)), str(row.get("artifact_id") or "corpus"), len(items)))
    if not items:
        raise typer.BadParameter("give --file FILE (repeatable) or --corpus DIR with items")
    r = TypeRetriever(items, scorer)
    tags = resolve_topics(topics.split(","), sorted(r.tree.parents)) if topics else None
    if tags and any(t not in r.tree.parents for t in tags):
        # a tag no section of any document matches: each document's own global rules still apply to it
        tags += sorted({i.topic.split("/", 1)[0] for i in items} - set(tags))
    got = r.retrieve(query, k, topics=tags, paths=tuple(path or ()), pin=not no_pin,
                     authority_weighted=authority_weighted)
    pinned = set(got.pinned)
    if as_json:  # "text" is the item's own; "rendered" is it under its governing context, as an agent must see it
        sys.stdout.write(json.dumps({"topics": got.topics, "in_scope": got.in_scope, "items": [
            {"id": i.id, "type": i.type, "topic": i.topic, "pinned": i.id in pinned, "text": i.text,
             "governing_context": list(i.governing_context), "rendered": render_with_context(i)}
            for i in got.items]}, ensure_ascii=False) + "\n")
    else:
        for i in got.items:
            line = " ".join(render_with_context(i).split())
            sys.stdout.write(f"{'PIN' if i.id in pinned else '   '} {i.type} [{i.topic}] {line}\n")
    if got.in_scope > len(got.pinned):  # as compact and decompose do when constraints cannot all be kept
        typer.echo(f"UNSAFE: {got.in_scope} constraints are in scope but -k {k} returns {len(got.pinned)} of them; "
                   f"raise -k to at least {got.in_scope}", err=True)
        if not allow_unsafe:
            raise typer.Exit(3)


def eval_operators(
    configs: Path = typer.Option(None, "--configs", help="JSONL records with path + content "
                                 "(default: <repo>/../shared/data/agent_configs_sample.jsonl)."),
    policies: Path = typer.Option(None, "--policies", help="Folder with retail_policy.md (default: shared data)."),
    plots: Path = typer.Option(None, "--plots", help="Write Figure 2 and Figure 3 PNGs here."),
    json_out: Path = typer.Option(None, "--json", help="Write every table and figure as JSON here."),
    limit: int = typer.Option(0, "--limit", min=0, help="Use only the first N configurations (0 = all)."),
    classifier: str = typer.Option("default", "--classifier", help="Classifier registry name."),
    gold: Path = typer.Option(None, "--gold", help="Gold JSONL (repo, path, text, label) labelling items of these "
                              "files: adds constraint recall against its adjudicated constraints (default with the "
                              "default configurations: <repo>/../shared/data/gold_dev.jsonl when present)."),
) -> None:
    """Tables 5–8 and Figures 2–3 of the paper, recomputed on real configurations."""
    from aac.operators.evaluate import default_configs_path, default_gold_path, format_tables, run

    path = configs or default_configs_path()
    if not path.is_file():
        raise typer.BadParameter(f"no configurations file at {path}; pass --configs FILE.jsonl")
    if gold is not None and not gold.is_file():
        raise typer.BadParameter(f"no gold file at {gold}")
    if gold is None and configs is None and default_gold_path().is_file():
        gold = default_gold_path()
    if gold is not None:
        from aac.operators.gold_recall import load_gold_constraints

        try:  # a malformed gold record is named by its line before the long run starts
            load_gold_constraints(gold)
        except ValueError as exc:
            raise typer.BadParameter(str(exc)) from None
    rep = run(path, policies, classifier, limit or None, gold)
    typer.echo(format_tables(rep))
    if json_out:
        json_out.parent.mkdir(parents=True, exist_ok=True)
        json_out.write_text(json.dumps(rep, indent=1), encoding="utf-8")
    if plots:
        from aac.operators.plots import draw

        for p in draw(rep, plots):
            typer.echo(f"wrote {p}", err=True)


def register(app: typer.Typer, eval_app: typer.Typer) -> None:
    app.command("compact")(compact)
    app.command("decompose")(decompose)
    app.command("retrieve")(retrieve)
    eval_app.command("operators")(eval_operators)
