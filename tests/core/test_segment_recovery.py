"""What a failed parse still gives: lost lines, unclosed fences, a missing final newline (aac.core.segment.recovery, parser)."""

from aac.core.segment import segment, segment_document


def texts(segs):
    return [s.text for s in segs]


def test_nesting_past_the_parser_limit_loses_no_line_and_is_flagged():
    md = "".join("  " * i + f"- item{i}\n" for i in range(80)) + "\nafter\n"
    doc = segment_document(md, "AGENTS.md")
    assert texts(doc.segments) == [f"item{i}" for i in range(80)] + ["after"]
    assert [s.ordinal for s in doc.segments] == list(range(81))
    assert doc.warnings == ("markdown_nesting_limit",)


def test_an_unclosed_fence_is_flagged_and_the_markdown_it_swallowed_is_segmented_again():
    doc = segment_document("# T\n```mermaid\ngraph TD\n\n## Rules\n- Never push to main.\n", "AGENTS.md")
    assert doc.warnings == ("unclosed_fence",)
    assert [(s.text, s.kind, s.line, s.section_path) for s in doc.segments] == [
        ("graph TD", "code", 3, ("T",)), ("Never push to main.", "bullet", 6, ("T", "Rules"))]


def test_a_fence_unclosed_at_the_end_of_the_file_stays_one_code_item_and_closed_fences_are_not_flagged():
    unclosed = segment_document("# T\n```bash\nnpm test\nnpm run lint\n", "AGENTS.md")
    assert unclosed.warnings == ("unclosed_fence",)
    assert [(s.text, s.kind, s.line) for s in unclosed.segments] == [("npm test\nnpm run lint", "code", 3)]
    assert segment_document("- x\n  ```\n  a\n  ```\n\n~~~~\nb\n~~~~~\n", "AGENTS.md").warnings == ()


def test_a_file_ending_in_a_quoted_list_item_with_an_open_html_block_does_not_crash():
    # markdown-it-py raised IndexError when such a file had no final newline, so the file lost all its items
    for md in ("# Notes\n\n> - keep this\n> - <!-- todo: more\n>", "> - <pre>\n> ", "> > - <script\n> >"):
        for path in ("CLAUDE.md", ".cursorrules"):
            assert segment(md, path) == segment(md + "\n", path)
    assert texts(segment("# Notes\n\n> - keep this\n> - <!-- todo: more\n>", "AGENTS.md")) == ["> - keep this"]
