"""YAML front matter to items and a mapping (aac.core.segment.front_matter)."""

from aac.core.segment import segment, segment_document


def texts(segs):
    return [s.text for s in segs]


def test_mdc_front_matter_keys_become_items_and_the_mapping_is_returned():
    mdc = '---\ndescription: "TS rules"\nglobs: src/**/*.ts\nalwaysApply: false\n---\n# TS\n\n- strict mode\n'
    doc = segment_document(mdc, ".cursor/rules/ts.mdc")
    fm = [s for s in doc.segments if s.kind == "front_matter"]
    assert [(s.text, s.line) for s in fm] == [
        ('description: "TS rules"', 2), ("globs: src/**/*.ts", 3), ("alwaysApply: false", 4)]
    assert doc.front_matter == {"description": "TS rules", "globs": "src/**/*.ts", "alwaysApply": False}
    assert doc.segments[-1].text == "strict mode" and doc.segments[-1].line == 8
    assert doc.warnings == ()


def test_empty_front_matter_values_are_not_items():
    mdc = "---\ndescription:\nglobs:\nalwaysApply: true\n---\nbody\n"
    assert texts(segment(mdc, "x.mdc")) == ["alwaysApply: true", "body"]


def test_cursor_style_unquoted_globs_are_read_leniently_with_a_warning():
    mdc = "---\nglobs: **/*.ts, **/*.spec.ts\nalwaysApply: false\n---\n- rule\n"
    doc = segment_document(mdc, "a.mdc")
    assert doc.front_matter["globs"] == "**/*.ts, **/*.spec.ts"
    assert doc.warnings == ("front_matter_not_yaml",)
    assert [s.kind for s in doc.segments] == ["front_matter", "front_matter", "bullet"]


def test_malformed_front_matter_is_kept_as_text_and_flagged():
    mdc = "---\ndescription: [unclosed\nthis line is no key\n---\n# T\n- rule\n"
    doc = segment_document(mdc, "bad.mdc")
    assert doc.warnings == ("malformed_front_matter",)
    assert doc.front_matter is None
    assert [s.kind for s in doc.segments] == ["paragraph", "paragraph", "bullet"]
    assert doc.segments[-1].section_path == ("T",)


def test_a_leading_thematic_break_without_a_closing_one_is_not_front_matter():
    doc = segment_document("---\n\nJust prose.\n", "CLAUDE.md")
    assert doc.front_matter is None and texts(doc.segments) == ["Just prose."]


def test_prose_between_two_thematic_breaks_is_not_front_matter():
    doc = segment_document("---\nWelcome to the project.\n\n---\n\n- rule\n", ".cursorrules")
    assert doc.front_matter is None and doc.warnings == ()
    assert texts(doc.segments) == ["Welcome to the project.", "rule"]


def test_lenient_front_matter_keeps_every_line_of_a_key_given_twice_in_source_order():
    # "!t" is an unknown YAML tag, so the line-based reader takes over; the first "x" line was lost and the
    # second one came before "k", out of line order
    segs = segment("---\nx: first\nk: v\nx: !t\n---\nbody\n", ".cursor/rules/a.mdc")
    assert [(s.text, s.line) for s in segs] == [("x: first", 2), ("k: v", 3), ("x: !t", 4), ("body", 6)]
