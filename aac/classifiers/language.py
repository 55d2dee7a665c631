"""Which script / language group an item is written in: English, CJK, other Latin, Cyrillic (or other).

Used to report classifier figures per language group (constraint recall was far lower outside English) and as a
feature. A heuristic on letters, not a language identifier: CJK and Cyrillic by script; Latin text by accented
letters or by function words of the Latin-script languages the corpus has (pt, es, fr, de, it, vi, tr, nl, pl).
"""

from __future__ import annotations

import regex as re

GROUPS = ("english", "cjk", "other_latin", "cyrillic", "other")
_CJK = re.compile(r"[\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}]")
_CYRILLIC = re.compile(r"\p{Cyrillic}")
_OTHER_SCRIPT = re.compile(r"[\p{Arabic}\p{Hebrew}\p{Devanagari}\p{Thai}\p{Greek}]")
_ACCENTED = re.compile(r"[À-ÖØ-öø-ÿĀ-žƠ-ưẠ-ỹ]")
_WORD = re.compile(r"\p{L}+")
# Frequent function words of Latin-script languages other than English, none of them an English word.
_LATIN_FUNCTION_WORDS = frozenset(
    "não uma para com pelo pela dos das nas nos você também quando deve ser está são seu sua "  # pt
    "los las del una por como pero más este esta debe usar cuando sin sobre puede "  # es
    "les des une est pour dans avec sur pas être sont ce cette qui doit ne jamais "  # fr
    "der die das und nicht ist mit für auf ein eine den dem zu werden wird sie oder bei nie "  # de
    "il della che non per con una sono gli delle deve essere mai "  # it
    "và của là không các có được cho với những này trong khi phải "  # vi
    "ve bir bu için ile değil olarak veya gibi asla "  # tr
    "het een niet voor zijn wordt naar "  # nl
    "nie jest się na do że oraz".split())  # pl


def language_group(text: str) -> str:
    """One of :data:`GROUPS` for a text (headings may be passed joined to it)."""
    if _CJK.search(text):
        return "cjk"
    if _CYRILLIC.search(text):
        return "cyrillic"
    if _OTHER_SCRIPT.search(text):
        return "other"
    if _ACCENTED.search(text):
        return "other_latin"
    words = [w.lower() for w in _WORD.findall(text)[:60]]
    if words and sum(w in _LATIN_FUNCTION_WORDS for w in words) >= max(2, len(words) // 8):
        return "other_latin"
    return "english"
