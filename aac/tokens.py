"""One pluggable token counter for the whole project (item sizes, budgets, overheads).

The default needs no download and is fast: it approximates a BPE tokenizer (cl100k-like) by counting word
pieces of at most four characters, punctuation marks one each, and runs of whitespace free. Budgets and
B_min are computed with the same tokenizer that measures the output, so the approximation never lets an
output exceed its budget; it only shifts where the budget falls relative to a vendor's exact count.
"""

from __future__ import annotations

import math
from typing import Protocol

import regex as re

_PIECES = re.compile(r"\p{L}+|\p{N}+|[^\s\p{L}\p{N}]")


class Tokenizer(Protocol):
    name: str

    def count(self, text: str) -> int: ...


class ApproxBPETokenizer:
    name = "approx-bpe-v1"

    def __init__(self, chars_per_piece: int = 4):
        self.chars_per_piece = chars_per_piece

    def count(self, text: str) -> int:
        n = 0
        cpp = self.chars_per_piece
        for m in _PIECES.finditer(text):
            size = m.end() - m.start()
            n += 1 if size <= cpp else math.ceil(size / cpp)
        return n


_DEFAULT: Tokenizer = ApproxBPETokenizer()


def default_tokenizer() -> Tokenizer:
    return _DEFAULT


def set_default_tokenizer(tokenizer: Tokenizer) -> None:
    """Swap the project-wide tokenizer (e.g. for a vendor's exact tokenizer)."""
    global _DEFAULT
    _DEFAULT = tokenizer


def count_tokens(text: str) -> int:
    return _DEFAULT.count(text)
