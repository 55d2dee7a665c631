"""Annotations in the corpus: the ``annotations`` table, the adjudication queue and the ``gold`` view.

``gold`` = per item, the latest adjudicator label when there is one, else the label of items on which at least
two annotators agree. Items where annotators disagree and no adjudication exists form the adjudication queue.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import pyarrow as pa

from aac.annotation.formats import ADJUDICATOR
from aac.schema import ANNOTATIONS
from aac.annotation.views import GOLD_SQL
from aac.store import Corpus, register_view

QUEUE_SQL = f"""
SELECT item_id, any_value(text) AS text, any_value(section_path) AS section_path,
       string_agg(annotator || '=' || label, ', ' ORDER BY annotator) AS labels
FROM annotations
WHERE annotator <> '{ADJUDICATOR}'
  AND item_id NOT IN (SELECT item_id FROM annotations WHERE annotator = '{ADJUDICATOR}')
GROUP BY item_id HAVING count(DISTINCT label) > 1
ORDER BY item_id
"""

register_view("gold", GOLD_SQL)  # also registered by aac.store itself (see aac/annotation/views.py)


def save(corpus: Corpus, rows: Sequence[dict]) -> int:
    """Upsert annotation rows (key item_id, annotator, round)."""
    if not rows:
        return 0
    cols = {f.name: [r.get(f.name) for r in rows] for f in ANNOTATIONS}
    return corpus.upsert("annotations", pa.Table.from_pydict(cols, schema=ANNOTATIONS))


def adjudication_queue(corpus: Corpus) -> list[dict]:
    if not corpus.exists("annotations"):
        return []
    return corpus.sql(QUEUE_SQL).to_pylist()


def adjudicate(corpus: Corpus, item_id: str, label: str, round_: int = 1, meta: bool = False) -> int:
    """Record the adjudicated label of one item (carrying its text/section over from the annotations)."""
    from aac.annotation.formats import _check

    label = _check(label, item_id)
    prior = corpus.sql("SELECT text, section_path, kind, repo FROM annotations WHERE item_id = "
                       + "'" + item_id.replace("'", "''") + "' LIMIT 1").to_pylist()
    if not prior:
        raise KeyError(f"no annotations for item {item_id!r}")
    return save(corpus, [{"item_id": item_id, "annotator": ADJUDICATOR, "label": label, "round": round_,
                          "meta": meta, **prior[0]}])


def annotator_pairs(corpus: Corpus) -> dict[tuple[str, str], tuple[list[str], list[str]]]:
    """Paired labels for every pair of (non-adjudicator) annotators over the items both labelled."""
    rows = corpus.sql(f"SELECT item_id, annotator, label FROM annotations WHERE annotator <> '{ADJUDICATOR}'").to_pylist()
    by_item: dict[str, dict[str, str]] = {}
    for r in rows:
        by_item.setdefault(r["item_id"], {})[r["annotator"]] = r["label"]
    names = sorted({r["annotator"] for r in rows})
    out = {}
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            both = [(v[a], v[b]) for v in by_item.values() if a in v and b in v]
            if both:
                out[(a, b)] = ([x for x, _ in both], [y for _, y in both])
    return out


def gold_from_corpus(root: str | Path):
    """The ``gold`` view as labelled items (grouped by repository) for training and evaluation."""
    from aac.classifiers.base import ItemInput
    from aac.classifiers.datasets import Labelled

    corpus = Corpus(root)
    if not corpus.exists("annotations"):
        return []
    rows = corpus.sql("SELECT * FROM gold ORDER BY item_id").to_pylist()
    return [Labelled(ItemInput(r["text"] or "", tuple(r["section_path"] or ()), r["kind"] or "paragraph"),
                     r["label"], group=r["repo"] or r["item_id"], source="gold", extra={"id": r["item_id"]})
            for r in rows]
