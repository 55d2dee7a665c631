"""Segmentation of synthetic Markdown / YAML: one behaviour per test."""

from aac.core.segment import KINDS, segment, segment_document, statement_lines
from aac.core.tokens import count_tokens


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


def test_soft_wrapped_paragraph_stays_one_item_with_its_newline():
    para = (
        "This paragraph is long enough to have been wrapped by an editor at about eighty\n"
        "columns, and the second line simply continues the same sentence to its end.\n"
    )
    segs = segment(para, "CLAUDE.md")
    assert len(segs) == 1 and segs[0].kind == "paragraph" and "\n" in segs[0].text


def test_one_statement_per_line_paragraph_splits_at_hard_breaks():
    para = "use sql for the database\nall tables have a uuid key\nnever use serial ids\n"
    segs = segment(para, ".cursorrules")
    assert texts(segs) == ["use sql for the database", "all tables have a uuid key", "never use serial ids"]
    assert [s.line for s in segs] == [1, 2, 3]


def test_statement_lines_reports_offsets_within_the_paragraph():
    assert statement_lines("Do this.\nThen that.") == [(0, "Do this."), (1, "Then that.")]


def test_blockquote_items_keep_their_quote_marker_verbatim():
    segs = segment("# T\n\n> Edit the source, then render.\n", "AGENTS.md")
    assert texts(segs) == ["> Edit the source, then render."]


def test_crlf_and_bom_do_not_change_items_or_line_numbers():
    md = "# T\n\n- a rule\n- another rule\n"
    plain = segment(md, "CLAUDE.md")
    crlf = segment("\ufeff" + md.replace("\n", "\r\n"), "CLAUDE.md")
    assert plain == crlf


def test_indented_lines_in_plain_rule_files_are_prose_not_code():
    text = "Rules:\n\n    always write tests first\n"
    assert [s.kind for s in segment(text, ".cursorrules")] == ["paragraph", "paragraph"]
    assert [s.kind for s in segment(text, "README.md")] == ["paragraph", "code"]


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


def test_yaml_config_top_level_keys_become_config_items_and_prose_comments_paragraphs():
    yml = (
        "# Aider settings for this repository, keep them small\n"
        "model: gpt-4\n"
        "read:\n  - AGENTS.md\n  # a comment inside\n  - CONVENTIONS.md\n"
        "## Specify the editor model\n#editor-model: xxx\n"
        "auto-commits: false\n"
        "empty:\n"
    )
    segs = segment(yml, ".aider.conf.yml")
    assert [(s.kind, s.text, s.line) for s in segs] == [
        ("paragraph", "Aider settings for this repository, keep them small", 1),
        ("config", "model: gpt-4", 2),
        ("config", "read:\n  - AGENTS.md\n  - CONVENTIONS.md", 3),
        ("config", "auto-commits: false", 9),
    ]


def test_block_scalar_config_values_keep_their_blank_lines():
    yml = "message-template: |\n  line one\n\n  line two\n"
    (s,) = segment(yml, ".aider.conf.yml")
    assert s.text == "message-template: |\n  line one\n\n  line two"


def test_unparsable_yaml_config_keeps_its_lines_and_warns():
    doc = segment_document("model: [gpt-4\nread: AGENTS.md\n", ".aider.conf.yml")
    assert doc.warnings == ("malformed_yaml",)
    assert texts(doc.segments) == ["model: [gpt-4", "read: AGENTS.md"]


def test_every_segment_has_a_known_kind_and_its_token_count():
    md = "---\nalwaysApply: true\n---\n# T\n\n- a\n\npara\n\n```\ncode\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"
    segs = segment(md, "x.mdc")
    assert {s.kind for s in segs} == {"front_matter", "bullet", "paragraph", "code", "table_row"}
    assert all(s.kind in KINDS and s.n_tokens == count_tokens(s.text) for s in segs)


def test_yaml_that_fails_to_construct_or_nests_too_deep_does_not_crash():
    bad_date = segment_document("---\ndate: 2001-02-30\n---\nx\n", "a.mdc")
    assert bad_date.front_matter == {"date": "2001-02-30"} and bad_date.warnings == ("front_matter_not_yaml",)
    assert segment_document("[" * 5000, "a.yml").warnings == ("malformed_yaml",)


def test_nesting_past_the_parser_limit_loses_no_line_and_is_flagged():
    md = "".join("  " * i + f"- item{i}\n" for i in range(80)) + "\nafter\n"
    doc = segment_document(md, "AGENTS.md")
    assert texts(doc.segments) == [f"item{i}" for i in range(80)] + ["after"]
    assert [s.ordinal for s in doc.segments] == list(range(81))
    assert doc.warnings == ("markdown_nesting_limit",)


def test_link_reference_definitions_are_kept_as_text():
    assert texts(segment("[docs]: https://example.org/docs\n", "CLAUDE.md")) == ["[docs]: https://example.org/docs"]


def test_a_short_line_ending_in_a_function_word_continues_on_the_next():
    segs = segment("- Use Postgres for\n  the main database\n", "AGENTS.md")
    assert texts(segs) == ["Use Postgres for\nthe main database"]


def test_prose_between_two_thematic_breaks_is_not_front_matter():
    doc = segment_document("---\nWelcome to the project.\n\n---\n\n- rule\n", ".cursorrules")
    assert doc.front_matter is None and doc.warnings == ()
    assert texts(doc.segments) == ["Welcome to the project.", "rule"]


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


def test_numbered_steps_that_cannot_interrupt_a_paragraph_are_still_bullets_without_their_numbers():
    text = "**Phase 2**\n6. Read the files first\n7. Check tests\n\nIntro\n11. Plan\n12. Refactor\n"
    segs = segment(text, "CLAUDE.md")
    assert [(s.text, s.kind, s.line) for s in segs] == [
        ("**Phase 2**", "paragraph", 1), ("Read the files first", "bullet", 2), ("Check tests", "bullet", 3),
        ("Intro", "paragraph", 5), ("Plan", "bullet", 6), ("Refactor", "bullet", 7)]


def test_a_plain_rules_file_indented_throughout_is_read_as_if_it_were_not():
    segs = segment("    ## Style\n    - Write concise code.\n    - Follow conventions.\n", ".continuerules")
    assert [(s.text, s.kind, s.line, s.section_path) for s in segs] == [
        ("Write concise code.", "bullet", 2, ("Style",)), ("Follow conventions.", "bullet", 3, ("Style",))]


def test_a_soft_wrapped_blockquote_stays_one_item_with_its_markers():
    quote = "> Regenerate this file whenever the guide changes; do not edit it by hand or it\n> drifts out of sync.\n"
    assert texts(segment(quote, "AGENTS.md")) == [quote.strip()]
    assert texts(segment("> Keep it short.\n> Cite sources.\n", "AGENTS.md")) == ["> Keep it short.", "> Cite sources."]


def test_cjk_sentences_and_list_like_lines_over_a_rule_stay_items():
    assert texts(segment("# T\n\n不要提交密钥。\n---\n\nNext.\n", "AGENTS.md")) == ["不要提交密钥。", "Next."]
    segs = segment("# T\n\n-不允许写伪代码\n---\n\nNext.\n", "AGENTS.md")
    assert [(s.text, s.section_path) for s in segs] == [("-不允许写伪代码", ("T",)), ("Next.", ("T",))]


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


def test_a_number_wrapped_to_the_start_of_a_line_stays_in_its_sentence():
    text = ("We dropped support for the old API in the release of December\n"
            "2019. Since then every client must use the v2 endpoints described below\n")
    assert [s.text for s in segment(text, "AGENTS.md")] == [text.strip()]


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


def test_a_sentence_ending_inside_a_bracket_or_quote_ends_its_line_only_before_a_new_sentence():
    rules = ("Install the dependencies with pnpm only (the lockfile is pnpm-lock.yaml.)\n"
             "Run the whole test suite before every push to the main branch, no exceptions.\n"
             "Never commit secrets.\nAlways run the tests before pushing.\nUse pnpm, not npm.\n")
    assert texts(segment(rules, "AGENTS.md")) == [
        "Install the dependencies with pnpm only (the lockfile is pnpm-lock.yaml.)",
        "Run the whole test suite before every push to the main branch, no exceptions.",
        "Never commit secrets.", "Always run the tests before pushing.", "Use pnpm, not npm."]
    wrap = ('If the dev server crashes with the message "Cannot find module vite..."\n'
            "when anything triggers module resolution, delete node_modules and reinstall.\n")
    assert texts(segment(wrap, "AGENTS.md")) == [wrap.strip()]


def test_a_tag_block_with_a_comment_between_its_tag_and_its_text_is_segmented_not_a_crash():
    doc = segment_document("<rules>\n<!-- reviewed -->\nNever push to main.\n</rules>\n"
                           "<example>\n<!-- c -->\n<code>\nnpm test\n</code>\n</example>\n", "AGENTS.md")
    assert [(s.kind, s.text) for s in doc.segments] == [("paragraph", "Never push to main."), ("code", "npm test")]
    assert doc.warnings == ("html_comments_dropped:2",)


def test_yaml_line_numbers_count_newlines_only_not_the_unicode_breaks_pyyaml_also_counts():
    # PyYAML breaks lines at NEL / LS too; the item's line must be the file's own ("\n") line, within the file
    segs = segment("model: x\n\x85\ntest-cmd: pytest\n", ".aider.conf.yml")
    assert [(s.text, s.line) for s in segs] == [("model: x", 1), ("test-cmd: pytest", 3)]
    fm = segment("---\ndescription: a # note\u2028\nglobs: '*.py'\n---\nbody\n", "a.mdc")
    assert [s.line for s in fm] == [2, 3, 5]


def test_lenient_front_matter_keeps_every_line_of_a_key_given_twice_in_source_order():
    # "!t" is an unknown YAML tag, so the line-based reader takes over; the first "x" line was lost and the
    # second one came before "k", out of line order
    segs = segment("---\nx: first\nk: v\nx: !t\n---\nbody\n", ".cursor/rules/a.mdc")
    assert [(s.text, s.line) for s in segs] == [("x: first", 2), ("k: v", 3), ("x: !t", 4), ("body", 6)]


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


def test_a_file_ending_in_a_quoted_list_item_with_an_open_html_block_does_not_crash():
    # markdown-it-py raised IndexError when such a file had no final newline, so the file lost all its items
    for md in ("# Notes\n\n> - keep this\n> - <!-- todo: more\n>", "> - <pre>\n> ", "> > - <script\n> >"):
        for path in ("CLAUDE.md", ".cursorrules"):
            assert segment(md, path) == segment(md + "\n", path)
    assert texts(segment("# Notes\n\n> - keep this\n> - <!-- todo: more\n>", "AGENTS.md")) == ["> - keep this"]
