"""XML-style tag blocks: wrappers, placeholders, code tags, code that runs on past a blank line (aac.core.segment.tags, block_scan, markdown)."""

from aac.core.segment import segment, segment_document


def texts(segs):
    return [s.text for s in segs]


def test_a_block_wrapped_in_xml_style_tags_is_segmented_inside_and_the_tags_are_no_items():
    text = "# T\n<communication>\n1. Be professional.\n2. NEVER lie.\n</communication>\n"
    doc = segment_document(text, ".cursorrules")
    assert [(s.text, s.kind, s.line, s.section_path) for s in doc.segments] == [
        ("Be professional.", "bullet", 3, ("T",)), ("NEVER lie.", "bullet", 4, ("T",))]


def test_code_inside_a_code_snippet_tag_is_one_code_item_even_across_blank_lines():
    md = '# T\n<code-snippet name="x" lang="php">\nfoo();\n\nbar();\n</code-snippet>\n\nafter\n'
    assert [(s.text, s.kind, s.line) for s in segment(md, "CLAUDE.md")] == [
        ("foo();\n\nbar();", "code", 3), ("after", "paragraph", 8)]


def test_bare_tag_lines_outside_html_blocks_are_no_items_but_autolinks_are():
    text = "<tool_calling>\n1. Call tools.\n</tool_calling>\n\n<https://example.org>\n"
    assert texts(segment(text, ".cursorrules")) == ["Call tools.", "<https://example.org>"]


def test_dropped_html_comments_are_counted_in_a_warning():
    doc = segment_document("<!-- keep this rule -->\n\n- a rule\n\n<!-- a\nb --> tail\n", "AGENTS.md")
    assert texts(doc.segments) == ["a rule", "tail"]
    assert doc.warnings == ("html_comments_dropped:2",)


def test_text_after_a_closing_code_tag_is_its_own_item_not_code():
    segs = segment("# T\n<code>\nnpm test\n</code>\nNever commit secrets to the repository.\n", "AGENTS.md")
    assert [(s.kind, s.text) for s in segs] == [("code", "npm test"),
                                                ("paragraph", "Never commit secrets to the repository.")]
    two = segment('<code-snippet name="a">\nfoo();\n</code-snippet>\n<code-snippet name="b">\nbar();\n</code-snippet>\n',
                  "AGENTS.md")
    assert [(s.kind, s.text) for s in two] == [("code", "foo();"), ("code", "bar();")]


def test_a_lone_placeholder_tag_is_text_not_a_wrapper():
    segs = segment("Set the key:\n<YOUR_API_KEY>\nthen run it.\n\n<password>\n", "AGENTS.md")
    assert "<YOUR_API_KEY>" in [s.text for s in segs] and "<password>" in [s.text for s in segs]


def test_a_block_opened_by_a_tag_never_closed_is_still_read_inside_and_empty_elements_are_markup():
    text = ("# Project rules\n\n<instructions>\n- Never push to main.\n- Always run the tests before committing.\n"
            "</instruction>\n\n<br/>\n\n<p align=\"center\">\n<img src=\"logo.png\" />\n</p>\n")
    assert [(s.kind, s.text) for s in segment(text, "AGENTS.md")] == [
        ("bullet", "Never push to main."), ("bullet", "Always run the tests before committing.")]


def test_a_fenced_sample_inside_a_tag_block_stays_one_code_item_across_its_blank_lines():
    text = ("# Style\n<example>\n```python\ndef area(r):\n    pi = 3.14\n\n    return pi * r * r\n```\n</example>\n"
            "\n## Tests\n<example>\n  ```html\n<div>\n\n</div>\n      ```\n</example>\nRun the tests before pushing.\n")
    for path in ("AGENTS.md", ".cursorrules"):
        doc = segment_document(text, path)
        assert doc.warnings == ()
        assert [(s.kind, s.text, s.line, s.section_path) for s in doc.segments] == [
            ("code", "def area(r):\n    pi = 3.14\n\n    return pi * r * r", 4, ("Style",)),
            ("code", "<div>\n\n</div>", 14, ("Style", "Tests")),
            ("paragraph", "Run the tests before pushing.", 19, ("Style", "Tests"))]


def test_an_indented_sample_inside_a_tag_block_stays_one_code_item_but_its_prose_keeps_paragraphs():
    text = "<example>\n    if ready:\n        ship()\n\n    log()\n</example>\n\nAfter.\n"
    assert [(s.kind, s.text) for s in segment(text, "AGENTS.md")] == [
        ("code", "if ready:\n    ship()\n\nlog()"), ("paragraph", "After.")]
    prose = "<rules>\nKeep it short.\n\nCite sources.\n</rules>\n"
    assert [(s.kind, s.text) for s in segment(prose, "AGENTS.md")] == [
        ("paragraph", "Keep it short."), ("paragraph", "Cite sources.")]


def test_a_fence_left_open_before_its_tag_closes_takes_no_later_fence_as_its_end():
    text = "<example>\n```\na\n\nb\n</example>\n\nText here.\n\n```\nc\n```\n"
    assert [(s.kind, s.text) for s in segment(text, "AGENTS.md")] == [
        ("code", "a"), ("paragraph", "b"), ("paragraph", "Text here."), ("code", "c")]


def test_a_tag_block_with_a_comment_between_its_tag_and_its_text_is_segmented_not_a_crash():
    doc = segment_document("<rules>\n<!-- reviewed -->\nNever push to main.\n</rules>\n"
                           "<example>\n<!-- c -->\n<code>\nnpm test\n</code>\n</example>\n", "AGENTS.md")
    assert [(s.kind, s.text) for s in doc.segments] == [("paragraph", "Never push to main."), ("code", "npm test")]
    assert doc.warnings == ("html_comments_dropped:2",)


def _examples(n: int, between: str) -> str:
    # a fence with a blank line in it ends the HTML block of its "<example>", so each one makes the rest be read again
    return between.join(f"<example>\nCase {k}:\n```python\ndef f():\n\n    return {k}\n```\n</example>\n" for k in range(n))


def test_many_tag_blocks_whose_fences_hold_blank_lines_all_keep_their_code_past_the_reread_limit():
    # past 50 such blocks the rest of the file was no longer read again: fences and "</example>" lines came out
    # as stray items; each reread now parses only up to the next block start, so none is skipped (and it is linear)
    for between in ("\n", ""):
        segs = segment(_examples(60, between), "CLAUDE.md")
        assert [s.text for s in segs if s.kind == "code"] == [f"def f():\n\n    return {k}" for k in range(60)]
        assert [s.text for s in segs if s.kind != "code"] == [f"Case {k}:" for k in range(60)]
        assert segment_document(_examples(60, between), "CLAUDE.md").warnings == ()
