from aac.operators.ingest import segment_text

DOC = """---
globs: src/**/*.ts
---
# Project

Never commit secrets.

## Testing

- Run `pytest -q` before pushing.
- Keep fixtures small.

```bash
make test
```

| tool | use |
|------|-----|
| ruff | lint |
"""


def test_light_segmenter_splits_kinds_and_scopes_items_under_their_section_topic():
    rows = segment_text(DOC)
    kinds = [r["kind"] for r in rows]
    assert kinds == ["front_matter", "paragraph", "bullet", "bullet", "code", "table_row", "table_row"]
    intro = rows[1]
    assert intro["text"] == "Never commit secrets." and intro["topic"] == "general" and intro["scope"] == ["*"]
    assert all(r["topic"] == "testing" and r["scope"] == ["testing"] for r in rows[2:])
    assert rows[2]["text"] == "Run `pytest -q` before pushing." and rows[4]["text"].startswith("```bash")
