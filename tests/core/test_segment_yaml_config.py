"""YAML configs to items; YAML source lines (aac.core.segment.yaml_config, yaml_source)."""

from aac.core.segment import segment, segment_document


def texts(segs):
    return [s.text for s in segs]


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


def test_yaml_that_fails_to_construct_or_nests_too_deep_does_not_crash():
    bad_date = segment_document("---\ndate: 2001-02-30\n---\nx\n", "a.mdc")
    assert bad_date.front_matter == {"date": "2001-02-30"} and bad_date.warnings == ("front_matter_not_yaml",)
    assert segment_document("[" * 5000, "a.yml").warnings == ("malformed_yaml",)


def test_yaml_line_numbers_count_newlines_only_not_the_unicode_breaks_pyyaml_also_counts():
    # PyYAML breaks lines at NEL / LS too; the item's line must be the file's own ("\n") line, within the file
    segs = segment("model: x\n\x85\ntest-cmd: pytest\n", ".aider.conf.yml")
    assert [(s.text, s.line) for s in segs] == [("model: x", 1), ("test-cmd: pytest", 3)]
    fm = segment("---\ndescription: a # note\u2028\nglobs: '*.py'\n---\nbody\n", "a.mdc")
    assert [s.line for s in fm] == [2, 3, 5]
