"""Annotations in the corpus: the ``annotations`` table, the adjudication queue and the ``gold`` view.

``gold`` = per item, the latest adjudicator label when there is one, else the label at least two annotators
agree on, else the label of a strict majority of three or more annotators (see :mod:`aac.core.gold_view`).
Items where annotators disagree and neither settles it form the adjudication queue.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import pyarrow as pa

from aac.annotation.formats import ADJUDICATOR
from aac.core.schema import ANNOTATIONS
from aac.core.gold_view import GOLD_SQL, LEAN_C_SQL, QUEUE_SQL
from aac.core.store import Corpus, register_view


register_view("gold", GOLD_SQL)  # also registered by aac.core.store itself (see aac/core/gold_view.py)


def save(corpus: Corpus, rows: Sequence[dict]) -> int:
    """Upsert annotation rows (key item_id, annotator, round)."""
    if not rows:
        return 0
    from aac.core.corpus_lock import corpus_lock

    cols = {f.name: [r.get(f.name) for r in rows] for f in ANNOTATIONS}
    with corpus_lock(corpus.root, "aac annotate"):  # never beside a pull or process rewriting the corpus
        return corpus.upsert("annotations", pa.Table.from_pydict(cols, schema=ANNOTATIONS))


def adjudication_queue(corpus: Corpus) -> list[dict]:
    if not corpus.exists("annotations"):
        return []
    return corpus.sql(QUEUE_SQL).to_pylist()


def adjudicate(corpus: Corpus, item_id: str, label: str, round_: int | None = None,
               meta: bool | None = None) -> int:
    """Record the adjudicated label of one item; returns the round it was recorded under.

    Without ``round_`` it is the round after the item's latest adjudication (1 for the first), so a second thought
    supersedes the first in ``gold`` (the latest round wins) and a re-import of gold_dev-format labels (round 1)
    does not undo it. The text, section and place come from the item's annotation that has them; ``meta`` left
    unset takes the annotators' flag.
    """
    from aac.annotation.formats import _check

    label = _check(label, item_id)
    quoted = "'" + item_id.replace("'", "''") + "'"
    prior = _places(corpus, [item_id]).get(item_id)
    if prior is None:
        raise KeyError(f"no annotations for item {item_id}")
    if round_ is None:
        latest = corpus.sql(f"SELECT max(round) AS r FROM annotations WHERE item_id = {quoted} "
                            f"AND annotator = '{ADJUDICATOR}'").to_pylist()[0]["r"]
        round_ = 1 if latest is None else int(latest) + 1
    save(corpus, [{"item_id": item_id, "annotator": ADJUDICATOR, "label": label, "round": round_, "meta": meta,
                   **prior}])
    return round_


PLACE = ("text", "section_path", "kind", "repo", "path", "platform", "line")


def _places(corpus: Corpus, item_ids: Sequence[str]) -> dict[str, dict]:
    """Text, section and place of each item from its annotation that has text, latest round first: what an
    adjudicator's row carries, so ``gold`` keeps the item's text whoever settles it."""
    con = corpus.connect()
    try:
        con.register("wanted", pa.table({"item_id": list(item_ids)}, schema=pa.schema([("item_id", pa.string())])))
        rows = con.sql(f"SELECT item_id, {', '.join(PLACE)} FROM (SELECT *, row_number() OVER (PARTITION BY item_id "
                       "ORDER BY text IS NULL, round DESC, annotator) AS rn FROM annotations "
                       "WHERE item_id IN (SELECT item_id FROM wanted)) WHERE rn = 1").to_arrow_table().to_pylist()
    finally:
        con.close()
    return {r.pop("item_id"): r for r in rows}


def settle_constraint_lean(corpus: Corpus, queued_only: bool = False) -> list[str]:
    """Record the adjudicator's C for every item whose annotators disagree and of which at least one voted C, or of
    which one marked a hesitation towards C (``leans_c``) on another label, not adjudicated yet; returns their ids.
    Why: on blind gold checks of this project's rounds each annotator under-calls constraints against the
    adjudicated gold (C recall 0.74-0.86 at precision 0.95-0.97), and "either says C" lifts recall to 0.86-0.93
    (precision 0.91-0.95), while a missed constraint costs more downstream than an extra one. ``queued_only``: leave
    alone items a strict majority already settled (e.g. C, F, F). Each row is an ordinary adjudication (round 1), so
    a later ``aac annotate adjudicate`` of the item supersedes it."""
    if not corpus.exists("annotations"):
        return []
    rows = [r["item_id"] for r in corpus.sql(LEAN_C_SQL).to_pylist() if not (queued_only and r["settled"])]
    if not rows:
        return []
    place = _places(corpus, rows)
    save(corpus, [{**place[i], "item_id": i, "annotator": ADJUDICATOR, "label": "C", "round": 1} for i in rows])
    return rows


def fill_text(corpus: Corpus, rows: list[dict]) -> list[dict]:
    """Rows without text or file take them (and section, kind, place) from the item's stored annotations, else
    from the corpus's items table, never replacing what a row has; returns the rows still without text."""
    missing = {r["item_id"] for r in rows if not r.get("text") or not r.get("path")}
    found: dict[str, dict] = {}
    if missing and corpus.exists("annotations"):
        for r in corpus.read("annotations", columns=["item_id", *PLACE]).to_pylist():
            if r["item_id"] in missing and r["text"] and (r["item_id"] not in found or
                                                           (r["path"] and not found[r["item_id"]]["path"])):
                found[r["item_id"]] = r  # one with its file, when one has it
    wanted = sorted(i for i in missing if not (found.get(i) or {}).get("path"))
    if wanted and corpus.exists("items") and corpus.exists("artifacts"):
        con = corpus.connect()
        try:
            con.register("wanted", pa.table({"item_id": wanted}))
            for r in con.sql("SELECT i.item_id, i.text, i.section_path, i.kind, a.repo, a.path, a.platform "
                             "FROM items i JOIN artifacts a USING (artifact_id) "
                             "WHERE i.item_id IN (SELECT item_id FROM wanted)").to_arrow_table().to_pylist():
                known = found.get(r["item_id"]) or {}  # a stored annotation's text and section stand
                found[r["item_id"]] = {**r, **{k: v for k, v in known.items() if v not in (None, "", [])}}
        finally:
            con.close()
    for r in rows:
        if r["item_id"] in found:
            r.update({k: v for k, v in found[r["item_id"]].items()
                      if k in PLACE and v is not None and r.get(k) in (None, "", [])})
    return [r for r in rows if not r.get("text")]


def replaced_labels(corpus: Corpus, rows: Sequence[dict]) -> int:
    """How many of ``rows`` would replace a stored label (same item, annotator and round) with a different one."""
    if not rows or not corpus.exists("annotations"):
        return 0
    stored = {(r["item_id"], r["annotator"], r["round"]): r["label"]
              for r in corpus.read("annotations", columns=["item_id", "annotator", "round", "label"]).to_pylist()}
    return sum(1 for r in rows if stored.get((r["item_id"], r["annotator"], r["round"]), r["label"]) != r["label"])


def _paired(by_item: dict[str, dict], keys: list, name) -> dict[tuple[str, str], tuple[list[str], list[str]]]:
    """For every two ``keys`` (annotators or rounds), the labels of the items ``by_item`` has under both."""
    out = {}
    for i, a in enumerate(keys):
        for b in keys[i + 1:]:
            both = [(v[a], v[b]) for v in by_item.values() if a in v and b in v]
            if both:
                out[(name(a), name(b))] = ([x for x, _ in both], [y for _, y in both])
    return out


def annotator_pairs(corpus: Corpus) -> dict[tuple[str, str], tuple[list[str], list[str]]]:
    """Paired labels for every pair of (non-adjudicator) annotators over the items both labelled (each annotator's
    latest round)."""
    rows = corpus.sql(f"SELECT item_id, annotator, label FROM annotations WHERE annotator <> '{ADJUDICATOR}' "
                      "ORDER BY item_id, annotator, round").to_pylist()
    by_item: dict[str, dict[str, str]] = {}
    for r in rows:  # ordered by round: an annotator's latest round wins, as in the gold view
        by_item.setdefault(r["item_id"], {})[r["annotator"]] = r["label"]
    return _paired(by_item, sorted({r["annotator"] for r in rows}), str)


def round_pairs(corpus: Corpus) -> dict[tuple[str, str], tuple[list[str], list[str]]]:
    """Paired labels of every two annotation rounds over the items labelled in both.

    When each round is split among many annotators (a batch each), the annotator pairs are many and small; the
    rounds compare as wholes. An item's label in a round is its first annotator's (by name) in that round.
    """
    rows = corpus.sql(f"SELECT item_id, round, label FROM annotations WHERE annotator <> '{ADJUDICATOR}' "
                      "ORDER BY item_id, round, annotator").to_pylist()
    by_item: dict[str, dict[int, str]] = {}
    for r in rows:
        by_item.setdefault(r["item_id"], {}).setdefault(int(r["round"] or 1), r["label"])
    return _paired(by_item, sorted({k for v in by_item.values() for k in v}), lambda k: f"round {k}")


def adjudicated_pairs(corpus: Corpus) -> dict[tuple[str, str], tuple[list[str], list[str]]]:
    """Each round's labels against the adjudicated label, over the adjudicated items that round labelled: how an
    annotation team does on gold questions slipped into its batches (an item's label in a round as in
    :func:`round_pairs`)."""
    rows = corpus.sql(f"""
        WITH adj AS (
          SELECT item_id, label FROM (
            SELECT item_id, label, row_number() OVER (PARTITION BY item_id ORDER BY round DESC) AS rn
            FROM annotations WHERE annotator = '{ADJUDICATOR}') WHERE rn = 1)
        SELECT a.item_id, coalesce(a.round, 1) AS round, a.label, adj.label AS adjudicated
        FROM annotations a JOIN adj USING (item_id) WHERE a.annotator <> '{ADJUDICATOR}'
        ORDER BY a.item_id, round, a.annotator""").to_pylist()
    first: dict[tuple[str, int], tuple[str, str]] = {}
    for r in rows:
        first.setdefault((r["item_id"], int(r["round"])), (r["label"], r["adjudicated"]))
    out: dict[tuple[str, str], tuple[list[str], list[str]]] = {}
    for (_, rnd), (label, adjudicated) in sorted(first.items(), key=lambda kv: kv[0][1]):
        pair = out.setdefault((f"round {rnd}", "adjudicated"), ([], []))
        pair[0].append(label)
        pair[1].append(adjudicated)
    return out
