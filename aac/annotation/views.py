"""SQL of the annotation views, importable without DuckDB (aac.store registers them in every catalog)."""

ADJUDICATOR = "adjudicator"

GOLD_SQL = f"""
WITH adj AS (
  SELECT item_id, label, meta, text, section_path, kind, repo,
         row_number() OVER (PARTITION BY item_id ORDER BY round DESC) AS rn
  FROM annotations WHERE annotator = '{ADJUDICATOR}'
), agreed AS (
  SELECT item_id, min(label) AS label, bool_or(meta) AS meta, any_value(text) AS text,
         any_value(section_path) AS section_path, any_value(kind) AS kind, any_value(repo) AS repo
  FROM annotations WHERE annotator <> '{ADJUDICATOR}'
  GROUP BY item_id HAVING count(DISTINCT annotator) >= 2 AND count(DISTINCT label) = 1
)
SELECT item_id, label, meta, text, section_path, kind, repo, 'adjudicated' AS provenance FROM adj WHERE rn = 1
UNION ALL
SELECT item_id, label, meta, text, section_path, kind, repo, 'agreed' AS provenance FROM agreed
WHERE item_id NOT IN (SELECT item_id FROM adj)
"""

