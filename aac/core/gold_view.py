"""SQL of the annotation views, importable without DuckDB (aac.core.store registers them in every catalog).

An item's **votes** are its annotators' labels, each annotator's latest round only, ordered by round then
annotator. The ``gold`` label of an item is, in this order:

- ``adjudicated``: the adjudicator's label of the latest round, whatever the votes say (where the adjudicator's
  row leaves the text, place or meta flag empty, the votes' fill it);
- ``agreed``: two or more annotators, one label;
- ``majority``: three or more annotators and one label held by more than half of them (a second round or a
  tie-break annotator settles a disagreement of the first without a human adjudicator, as in the package's own
  annotated sample).

Every other item with two or more distinct labels waits in the adjudication queue.

``LEAN_C_SQL`` lists the items the constraint lean would settle as C: annotators disagree and at least one voted C,
or one marked a hesitation towards C (``leans_c``) on another label; and no adjudication exists yet
(``aac annotate lean-c``).
"""

ADJUDICATOR = "adjudicator"

_VOTES = f"""
latest AS (
  SELECT * FROM (
    SELECT *, row_number() OVER (PARTITION BY item_id, annotator ORDER BY round DESC) AS latest_rn
    FROM annotations WHERE annotator <> '{ADJUDICATOR}'
  ) WHERE latest_rn = 1
), votes AS (
  SELECT item_id, list(label ORDER BY round, annotator) AS votes, list(annotator ORDER BY round, annotator) AS annotators,
         string_agg(annotator || '=' || label, ', ' ORDER BY round, annotator) AS labels,
         count(*) AS n_votes, count(DISTINCT label) AS n_labels, bool_or(meta) AS meta,
         coalesce(bool_or(leans_c), false) AS leans_c, any_value(text) AS text,
         any_value(section_path) AS section_path, any_value(kind) AS kind, any_value(repo) AS repo,
         any_value(path) AS path, any_value(platform) AS platform, any_value(line) AS line
  FROM latest GROUP BY item_id
), top AS (
  SELECT item_id, label, k FROM (
    SELECT item_id, label, count(*) AS k,
           row_number() OVER (PARTITION BY item_id ORDER BY count(*) DESC, label) AS top_rn
    FROM latest GROUP BY item_id, label
  ) WHERE top_rn = 1
), adj AS (
  SELECT item_id, label, meta, text, section_path, kind, repo, path, platform, line,
         row_number() OVER (PARTITION BY item_id ORDER BY round DESC) AS rn
  FROM annotations WHERE annotator = '{ADJUDICATOR}'
), settled AS (
  SELECT v.item_id, t.label, v.meta, v.text, v.section_path, v.kind, v.repo, v.path, v.platform, v.line,
         CASE WHEN v.n_labels = 1 THEN 'agreed' ELSE 'majority' END AS provenance, v.votes, v.annotators
  FROM votes v JOIN top t USING (item_id)
  WHERE v.n_votes >= 2 AND (v.n_labels = 1 OR (v.n_votes >= 3 AND 2 * t.k > v.n_votes))
)"""

GOLD_SQL = f"""
WITH {_VOTES}
SELECT a.item_id, a.label, coalesce(a.meta, v.meta) AS meta, coalesce(a.text, v.text) AS text,
       CASE WHEN len(a.section_path) > 0 THEN a.section_path ELSE v.section_path END AS section_path, coalesce(a.kind, v.kind) AS kind,
       coalesce(a.repo, v.repo) AS repo, coalesce(a.path, v.path) AS path, coalesce(a.platform, v.platform) AS platform,
       coalesce(a.line, v.line) AS line, 'adjudicated' AS provenance, v.votes, v.annotators
FROM adj a LEFT JOIN votes v USING (item_id) WHERE a.rn = 1
UNION ALL
SELECT item_id, label, meta, text, section_path, kind, repo, path, platform, line, provenance, votes, annotators
FROM settled
WHERE item_id NOT IN (SELECT item_id FROM adj)
"""

QUEUE_SQL = f"""
WITH {_VOTES}
SELECT item_id, text, section_path, kind, repo, path, platform, labels
FROM votes
WHERE n_labels > 1
  AND item_id NOT IN (SELECT item_id FROM adj)
  AND item_id NOT IN (SELECT item_id FROM settled)
ORDER BY item_id
"""

LEAN_C_SQL = f"""
WITH {_VOTES}
SELECT v.item_id, v.item_id IN (SELECT item_id FROM settled) AS settled
FROM votes v
WHERE ((v.n_labels > 1 AND list_contains(v.votes, 'C'))
       OR (v.leans_c AND NOT (v.n_labels = 1 AND list_contains(v.votes, 'C'))))
  AND v.item_id NOT IN (SELECT item_id FROM adj)
ORDER BY v.item_id
"""


def gold_rows(corpus) -> list[dict]:
    """The ``gold`` view of ``corpus`` (an :class:`aac.core.store.Corpus`), one dict per item (ordered by id); empty
    before any annotation."""
    if not corpus.exists("annotations"):
        return []
    return corpus.sql("SELECT * FROM gold ORDER BY item_id").to_pylist()
