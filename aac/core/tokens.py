"""One pluggable token counter for the whole project (item sizes, budgets, overheads).

The default needs no download and is fast: it approximates a BPE tokenizer (cl100k-like) by counting word
pieces of at most four characters, Chinese, Japanese and Korean characters one each (vendor tokenizers spend
about one token or more on each; four to a piece made CJK budgets three to four times too generous),
punctuation marks one each, and runs of whitespace free. Budgets and
B_min are computed with the same tokenizer that measures the output, so the approximation never lets an
output exceed its budget; it only shifts where the budget falls relative to a vendor's exact count.
"""

from __future__ import annotations

from typing import Protocol

import regex as re


class Tokenizer(Protocol):
    name: str

    def count(self, text: str) -> int: ...


class ApproxBPETokenizer:
    name = "approx-bpe-v2"

    def __init__(self, chars_per_piece: int = 4):
        self.chars_per_piece = chars_per_piece
        # a run of letters (or digits) of length n matches ceil(n / chars_per_piece) times: one match per piece
        cpp = int(chars_per_piece)
        self._pieces = re.compile(rf"[\p{{Han}}\p{{Hiragana}}\p{{Katakana}}\p{{Hangul}}]|"
                                  rf"(?:(?![\p{{Han}}\p{{Hiragana}}\p{{Katakana}}\p{{Hangul}}])\p{{L}}){{1,{cpp}}}|"
                                  rf"\p{{N}}{{1,{cpp}}}|[^\s\p{{L}}\p{{N}}]")

    def count(self, text: str) -> int:
        return len(self._pieces.findall(text))


_DEFAULT: Tokenizer = ApproxBPETokenizer()


def default_tokenizer() -> Tokenizer:
    return _DEFAULT


def set_default_tokenizer(tokenizer: Tokenizer) -> None:
    """Swap the project-wide tokenizer (e.g. for a vendor's exact tokenizer)."""
    global _DEFAULT
    _DEFAULT = tokenizer


def count_tokens(text: str) -> int:
    return _DEFAULT.count(text)
