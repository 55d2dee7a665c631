from aac.core.tokens import ApproxBPETokenizer, count_tokens


def test_counts_words_punctuation_and_splits_long_words():
    t = ApproxBPETokenizer()
    assert t.count("") == 0
    assert t.count("Never push") == 3  # "Never" is 5 chars -> 2 pieces, "push" -> 1
    assert t.count("a, b.") == 4


def test_token_count_is_additive_over_whitespace_joins():
    a, b = "Run `pnpm test` before pushing.", "Do not commit .env files!"
    assert count_tokens(a + "\n" + b) == count_tokens(a) + count_tokens(b)


def test_long_runs_split_into_pieces_of_at_most_chars_per_piece():
    # letters and digits are separate runs; a run of n counts ceil(n / chars_per_piece); marks count one each
    assert ApproxBPETokenizer().count("abcdefghi 12345 x—y") == 3 + 2 + 3
    assert ApproxBPETokenizer(3).count("abcdefg") == 3
    assert ApproxBPETokenizer(1).count("ab12") == 4
    assert ApproxBPETokenizer().count("漢字漢字漢 🙂\t\n") == 5 + 1  # one per CJK character, as vendor tokenizers
    assert ApproxBPETokenizer().count("コードを確認する") == 8 and ApproxBPETokenizer().count("코드검토") == 4
    assert ApproxBPETokenizer().count("Use漢字here") == 1 + 2 + 1  # Latin pieces stop at a CJK character
