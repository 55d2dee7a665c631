"""Processing loses, merges and leaks nothing on hostile front matter, secrets deep in long
lines, a rule that names a key header, rules underlined by "---", text after a comment, near-duplicate chains and
wordless files, and code that names a secret without holding one."""

from __future__ import annotations

import numpy as np

from aac.processing.dedupe import NearDupConfig, near_components, shingle_hashes
from aac.processing.items import _pending
from aac.core.scope import scope_of
from aac.processing.secrets import scrub
from aac.core.segment import segment_document

GH = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


def test_hostile_globs_neither_crash_nor_expand():
    nested: list = ["src/**/*.ts"]
    for _ in range(2000):
        nested = [nested]
    assert scope_of(("Testing",), "x.mdc", {"globs": nested}) == ("testing",)
    bomb = "---\na: &a [\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\"]\n" + "".join(
        f"{c}: &{c} [*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p}]\n" for p, c in zip("abcdefg", "bcdefgh")) + \
        "globs: *h\n---\n- Never push to main.\n"
    warnings: dict = {}
    rows = _pending("art", ".cursor/rules/x.mdc", bomb, "project", warnings)
    assert rows[-1][1].text == "Never push to main."  # in a fraction of a second, no glob expanded
    assert all(len(g) < 100 for _, _, scope, _ in rows for g in scope)


def test_a_file_without_items_says_so():
    warnings: dict = {}
    assert _pending("art", "CLAUDE.md", "# Title\n\n## Empty\n<!-- nothing -->\n", "project", warnings) == []
    assert warnings == {"art": ("html_comments_dropped:1", "no_items")}


def test_a_secret_deep_in_a_long_line_is_still_redacted():
    out = scrub("x" * 6000 + f" use {GH} here")
    assert GH not in out.text and out.text.endswith("use [REDACTED:github_token] here")


def test_naming_a_key_header_redacts_the_header_only():
    text = ("- Never commit private keys (files starting with `-----BEGIN RSA PRIVATE KEY-----`).\n"
            "- Run the tests.\n- Deploy from main only.")
    out = scrub(text)
    assert out.text.endswith("- Run the tests.\n- Deploy from main only.") and "BEGIN RSA" not in out.text
    body = "MIIEowIBAAKCAQEAxyz1234567890abcdef\nabcdefABCDEF0123456789+/=="
    block = scrub(f"-----BEGIN RSA PRIVATE KEY-----\n{body}\nstill here")
    assert block.text == "[REDACTED:private_key]\nstill here"


def test_a_key_without_its_end_line_loses_its_short_last_line_too():
    body = "MIIEowIBAAKCAQEAxyz1234567890abcdef\nabcdefABCDEF0123456789+/==\nq83/Zx=="
    out = scrub(f"-----BEGIN RSA PRIVATE KEY-----\n{body}\n\n- Run the tests.")
    assert out.text == "[REDACTED:private_key]\n\n- Run the tests." and "q83" not in out.text
    # a short line of words after the body is prose, not the key's last line
    assert scrub(f"-----BEGIN RSA PRIVATE KEY-----\n{body.split(chr(10))[0]}\nab12 more words").text == (
        "[REDACTED:private_key]\nab12 more words")
    # nor is a word on its own line (base64's last line has a digit, "+", "/" or "=" padding)
    assert scrub(f"-----BEGIN RSA PRIVATE KEY-----\n{body.split(chr(10))[0]}\nThanks\nNext.").text == (
        "[REDACTED:private_key]\nThanks\nNext.")


def test_a_sentence_underlined_by_a_rule_stays_an_item_and_a_title_stays_a_title():
    doc = segment_document("# Rules\n\nAlways write tests. Never commit secrets.\n---\nUse pnpm.\n", ".cursorrules")
    assert [s.text for s in doc.segments] == ["Always write tests. Never commit secrets.", "Use pnpm."]
    doc = segment_document("Project Rules\n=============\n\n- Never push to main.\n", "CLAUDE.md")
    assert [(s.text, s.section_path) for s in doc.segments] == [("Never push to main.", ("Project Rules",))]


def test_text_after_a_comment_on_its_line_is_kept():
    doc = segment_document("<!-- generated --> Never delete the prod database.\n", "AGENTS.md")
    assert [s.text for s in doc.segments] == ["Never delete the prod database."]


def test_a_chain_of_small_edits_does_not_merge_its_far_ends():
    cfg = NearDupConfig()
    words = [f"w{i}" for i in range(400)]
    versions = []
    for v in range(13):  # each version replaces a fresh tenth of the words
        words = words[:]
        for j in range(v * 10, v * 10 + 10):
            words[j] = f"edit{v}_{j}"
        versions.append(" ".join(words))
    sig = np.stack([cfg.signature(t) for t in versions])
    canon = near_components(sig, cfg.threshold, *cfg.bands)
    for i, c in enumerate(canon):
        assert (sig[i] == sig[c]).mean() >= cfg.threshold


def test_wordless_files_match_only_their_own_copies():
    assert not np.array_equal(shingle_hashes("---\n***\n---"), shingle_hashes("!!! ??? ..."))
    assert np.array_equal(shingle_hashes("---\n***\n---"), shingle_hashes("---\n***\n---"))


def test_code_naming_a_secret_and_dev_seed_addresses_are_not_redacted():
    text = ("pwd = os.getcwd2()\napiKey: config.apiKey2\nsecret_key = settings.SECRET_KEY_V2\n"
            "login as platform@noir.local")
    assert scrub(text).text == text
    assert "[REDACTED:password]" in scrub("password = hunter2abc9").text


def test_a_key_written_with_escaped_newlines_is_redacted_through_its_end_line():
    body = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC" + "\\n" + "abcdefABCDEF0123456789"
    for text in (f'{{"private_key": "-----BEGIN PRIVATE KEY-----\\n{body}\\n-----END PRIVATE KEY-----\\n"}}',
                 f'PRIVATE_KEY="-----BEGIN RSA PRIVATE KEY-----\\n{body}\\n-----END RSA PRIVATE KEY-----"'):
        out = scrub(text).text
        assert "MIIEvQ" not in out and "abcdefABCDEF" not in out and "[REDACTED:private_key]" in out
