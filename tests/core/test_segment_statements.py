"""A paragraph cut into statements at hard breaks only (aac.core.segment.statements)."""

from aac.core.segment import segment, statement_lines


def texts(segs):
    return [s.text for s in segs]


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


def test_a_short_line_ending_in_a_function_word_continues_on_the_next():
    segs = segment("- Use Postgres for\n  the main database\n", "AGENTS.md")
    assert texts(segs) == ["Use Postgres for\nthe main database"]


def test_numbered_steps_that_cannot_interrupt_a_paragraph_are_still_bullets_without_their_numbers():
    text = "**Phase 2**\n6. Read the files first\n7. Check tests\n\nIntro\n11. Plan\n12. Refactor\n"
    segs = segment(text, "CLAUDE.md")
    assert [(s.text, s.kind, s.line) for s in segs] == [
        ("**Phase 2**", "paragraph", 1), ("Read the files first", "bullet", 2), ("Check tests", "bullet", 3),
        ("Intro", "paragraph", 5), ("Plan", "bullet", 6), ("Refactor", "bullet", 7)]


def test_a_number_wrapped_to_the_start_of_a_line_stays_in_its_sentence():
    text = ("We dropped support for the old API in the release of December\n"
            "2019. Since then every client must use the v2 endpoints described below\n")
    assert [s.text for s in segment(text, "AGENTS.md")] == [text.strip()]


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
