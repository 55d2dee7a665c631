"""Markdown to items: bullets, headings as sections, code, tables, quotes (aac.core.segment.markdown)."""

from aac.core.segment import segment


def texts(segs):
    return [s.text for s in segs]


def test_bullets_lose_their_markers_and_nested_bullets_are_separate_items():
    md = "# Title\n\n- parent rule\n  - child rule\n  - second child\n- sibling\n1. first step\n2. second step\n"
    segs = segment(md, "AGENTS.md")
    assert texts(segs) == ["parent rule", "child rule", "second child", "sibling", "first step", "second step"]
    assert {s.kind for s in segs} == {"bullet"}
    assert [s.line for s in segs] == [3, 4, 5, 6, 7, 8]


def test_headings_are_not_items_but_form_the_section_path_with_the_file_title():
    md = "# Guide\n\nintro\n\n## Testing\n\n### Unit\n\n- run pytest\n\n## Style\n\nuse black\n"
    segs = segment(md, "CLAUDE.md")
    assert [(s.text, s.section_path) for s in segs] == [
        ("intro", ("Guide",)),
        ("run pytest", ("Guide", "Testing", "Unit")),
        ("use black", ("Guide", "Style")),
    ]


def test_first_heading_stays_the_title_even_when_later_headings_share_its_depth():
    md = "## Project X\n\n## Setup\n\n- install deps\n"
    assert segment(md, "AGENTS.md")[0].section_path == ("Project X", "Setup")


def test_a_later_h1_replaces_the_title_and_ascii_ruler_headings_are_ignored():
    md = "# Old title\n# ======\n# New title\n# ======\n\n## Rules\n\n- be nice\n"
    assert segment(md, "CLAUDE.md")[0].section_path == ("New title", "Rules")


def test_fenced_code_is_one_item_without_fences_and_points_at_its_first_code_line():
    md = "# T\n\nRun:\n\n```bash\nnpm test\nnpm run lint\n```\n"
    code = [s for s in segment(md, "CLAUDE.md") if s.kind == "code"]
    assert [(c.text, c.line) for c in code] == [("npm test\nnpm run lint", 6)]


def test_table_rows_become_items_with_cells_joined_by_pipes():
    md = "| Command | Purpose |\n|---|---|\n| `make test` | run tests |\n| | |\n"
    rows = [s for s in segment(md, "AGENTS.md") if s.kind == "table_row"]
    assert [(r.text, r.line) for r in rows] == [("Command | Purpose", 1), ("`make test` | run tests", 3)]


def test_html_comments_are_skipped_but_other_html_keeps_its_text():
    md = "<!-- generated, do not edit -->\n\n<details>\nhidden rule text\n</details>\n\nvisible\n"
    segs = segment(md, "CLAUDE.md")
    assert texts(segs) == ["hidden rule text", "visible"]


def test_blank_items_are_dropped_and_ordinals_are_dense():
    md = "-   \n- real\n\n   \n\nprose\n"
    segs = segment(md, "AGENTS.md")
    assert texts(segs) == ["real", "prose"]
    assert [s.ordinal for s in segs] == [0, 1]


def test_blockquote_items_keep_their_quote_marker_verbatim():
    segs = segment("# T\n\n> Edit the source, then render.\n", "AGENTS.md")
    assert texts(segs) == ["> Edit the source, then render."]


def test_link_reference_definitions_are_kept_as_text():
    assert texts(segment("[docs]: https://example.org/docs\n", "CLAUDE.md")) == ["[docs]: https://example.org/docs"]


def test_a_soft_wrapped_blockquote_stays_one_item_with_its_markers():
    quote = "> Regenerate this file whenever the guide changes; do not edit it by hand or it\n> drifts out of sync.\n"
    assert texts(segment(quote, "AGENTS.md")) == [quote.strip()]
    assert texts(segment("> Keep it short.\n> Cite sources.\n", "AGENTS.md")) == ["> Keep it short.", "> Cite sources."]


def test_cjk_sentences_and_list_like_lines_over_a_rule_stay_items():
    assert texts(segment("# T\n\n不要提交密钥。\n---\n\nNext.\n", "AGENTS.md")) == ["不要提交密钥。", "Next."]
    segs = segment("# T\n\n-不允许写伪代码\n---\n\nNext.\n", "AGENTS.md")
    assert [(s.text, s.section_path) for s in segs] == [("-不允许写伪代码", ("T",)), ("Next.", ("T",))]
