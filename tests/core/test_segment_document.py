"""The entry points: formats, normalised text, kinds and token counts (aac.core.segment.document, items)."""

from aac.core.segment import KINDS, segment
from aac.core.tokens import count_tokens


def test_crlf_and_bom_do_not_change_items_or_line_numbers():
    md = "# T\n\n- a rule\n- another rule\n"
    plain = segment(md, "CLAUDE.md")
    crlf = segment("\ufeff" + md.replace("\n", "\r\n"), "CLAUDE.md")
    assert plain == crlf


def test_indented_lines_in_plain_rule_files_are_prose_not_code():
    text = "Rules:\n\n    always write tests first\n"
    assert [s.kind for s in segment(text, ".cursorrules")] == ["paragraph", "paragraph"]
    assert [s.kind for s in segment(text, "README.md")] == ["paragraph", "code"]


def test_every_segment_has_a_known_kind_and_its_token_count():
    md = "---\nalwaysApply: true\n---\n# T\n\n- a\n\npara\n\n```\ncode\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"
    segs = segment(md, "x.mdc")
    assert {s.kind for s in segs} == {"front_matter", "bullet", "paragraph", "code", "table_row"}
    assert all(s.kind in KINDS and s.n_tokens == count_tokens(s.text) for s in segs)


def test_a_plain_rules_file_indented_throughout_is_read_as_if_it_were_not():
    segs = segment("    ## Style\n    - Write concise code.\n    - Follow conventions.\n", ".continuerules")
    assert [(s.text, s.kind, s.line, s.section_path) for s in segs] == [
        ("Write concise code.", "bullet", 2, ("Style",)), ("Follow conventions.", "bullet", 3, ("Style",))]
