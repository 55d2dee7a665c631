from aac.processing.normalize import MAX_BYTES, normalize


def test_bom_is_stripped_and_recorded():
    n = normalize("\ufeff# Rules\n- be kind\n".encode("utf-8"))
    assert n.kept and n.text.startswith("# Rules") and "bom" in n.fixes


def test_crlf_and_lone_cr_become_lf():
    n = normalize(b"a\r\nb\rc\n")
    assert n.text == "a\nb\nc\n" and "newlines" in n.fixes


def test_nul_bytes_mean_binary():
    assert normalize(b"\x89PNG\r\n\x1a\n\x00\x00\x00IHDR").drop_reason == "binary"


def test_high_control_character_ratio_means_binary():
    assert normalize("".join(chr(i % 8 + 1) for i in range(200))).drop_reason == "binary"


def test_heavily_damaged_utf8_is_dropped_lightly_damaged_is_kept():
    assert normalize(b"\xc3\x28\xfa" * 50 + b" some text").drop_reason == "invalid_utf8"
    light = normalize(b"# Rules\n" + b"- use tabs\n" * 100 + b"caf\xe9\n")
    assert light.kept and "replaced_invalid_utf8" in light.fixes and "\ufffd" in light.text


def test_utf16_with_bom_is_decoded():
    n = normalize("\ufeff# Regeln\n- nie pushen\n".encode("utf-16-le"))
    assert n.kept and "Regeln" in n.text


def test_empty_and_whitespace_only_files_are_dropped():
    assert normalize(b"").drop_reason == "empty"
    assert normalize(" \n\t\r\n").drop_reason == "empty"
    assert normalize(None).drop_reason == "empty"


def test_files_past_the_search_index_limit_are_dropped():
    assert normalize(b"a" * (MAX_BYTES + 1)).drop_reason == "too_large"
    assert normalize("é" * (MAX_BYTES // 2 + 1)).drop_reason == "too_large"  # the limit is in bytes
    assert normalize(b"a" * MAX_BYTES).kept


def test_malformed_front_matter_keeps_the_file_and_records_it():
    n = normalize("---\ndescription: [unclosed\nglobs: *.py\n---\n- rule\n")
    assert n.kept and "front_matter_invalid" in n.fixes
    unclosed = normalize("---\ndescription: x\n- rule without end\n")
    assert unclosed.kept and "front_matter_invalid" in unclosed.fixes
    good = normalize("---\ndescription: x\nalwaysApply: true\n---\n- rule\n")
    assert good.kept and "front_matter_invalid" not in good.fixes


def test_front_matter_yaml_cannot_build_is_malformed_not_a_crash():
    # valid YAML syntax whose timestamp does not exist: PyYAML raises ValueError, not YAMLError
    n = normalize("---\ndescription: x\ndate: 2024-13-45\n---\n- rule\n")
    assert n.kept and "front_matter_invalid" in n.fixes


def test_a_symbolic_links_target_path_is_dropped_as_symlink_not_kept_as_instructions():
    """GitHub serves a symlink's blob, its target path with no newline, as the file's content."""
    for target in ("AGENTS.md", "../AGENTS.md", "docs/ai/rules.md", ".github/copilot-instructions.md"):
        assert normalize(target.encode()).drop_reason == "symlink"
    assert normalize(b".cursorrules").drop_reason == "symlink"
    for written in ("@AGENTS.md", "AGENTS.md\n", "See AGENTS.md", "Be concise.", "TODO", "TODO.", "v1.2.3", "WIP..."):
        assert normalize(written.encode()).kept, written  # an import line, a file someone wrote, prose
