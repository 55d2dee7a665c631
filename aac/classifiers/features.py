"""Item -> sparse binary feature indices, with no heavy imports, so the default classifier loads in milliseconds.

Features are hashed (CRC32, stable across processes) into a fixed number of buckets:
word unigrams of the text (bigrams overfit in grouped cross-validation), CJK character bigrams, words of the nearest two section headings,
the cue families of :mod:`aac.classifiers.cues` (and their conjunctions: prohibition x stakes, fact x stakes,
the "declarative constraint" shape), and structure (kind, length bucket, opening word, markdown shape).
"""

from __future__ import annotations

import zlib
from array import array
from sys import intern
from typing import Iterable, Sequence

import numpy as np
import regex as re

from aac.classifiers.base import ItemInput
from aac.classifiers.risk import clear_cache as clear_risk_cache
from aac.classifiers.risk import risk_section_tokens, risk_text_tokens, risk_tokens
from aac.classifiers.spanning import spanning_families
from aac.classifiers.static_embed import segment_sums
from aac.classifiers.cues import (
    COND_OPENERS,
    COND_WORDS,
    DESTROY_MARKS,
    HOWTO_WORDS,
    PHRASE_CUES,
    PHRASE_NEEDS,
    PROHIBIT_SYMBOLS,
    SECTION_CUES,
    SECURITY_MARKS,
    SHOUT_FAST,
    STAKES,
    UPPER_RUN,
    WORD_CUES,
    CODE_MARKS,
    CJK_CUES,
)

N_FEATURES = 1 << 17
WORD = re.compile(r"[\p{Han}\p{Hiragana}\p{Katakana}]|[\p{L}\p{N}_]+(?:['’.-][\p{L}\p{N}_]+)*")
CJK = re.compile(r"[\p{Han}\p{Hiragana}\p{Katakana}]")
MARKDOWN_NOISE = re.compile(r"[*_~>#]+")
_crc = zlib.crc32
_WORD_CUE_CACHE: dict[str, tuple[str, ...]] = {}
ANY_WORD_CUE = re.compile("|".join(f"(?:{p.pattern})" for _, p in WORD_CUES), re.IGNORECASE | re.V1)
# A word pair is tested only against the branches of the families that can match across its space ("must not"): the
# families of both its words are added on their own (see aac.classifiers.spanning), and most branches are one word.
# Family by family: with so few branches left, one combined search costs more than the 17 small ones (17 vs 14 us a
# pair on agent_configs_train's 130,248 distinct pairs).
PAIR_CUES = spanning_families(WORD_CUES)[0]
_PAIR_CUE_CACHE: dict[str, tuple[str, ...]] = {}
_SECTION_CACHE: dict[tuple[str, ...], tuple[str, ...]] = {}
_PHRASES = tuple((name, pattern, PHRASE_NEEDS.get(name, ())) for name, pattern in PHRASE_CUES)
_HASH_CACHE: dict[str, int] = {}  # token -> CRC32 (frequent tokens recur in every item)
_TEXT_IDS: dict[tuple[str, bool, int], tuple] = {}  # see featurize_two_stage
_SECTION_IDS: dict[tuple, tuple] = {}
MAX_HASHED = 500_000


def clear_caches() -> None:
    _WORD_CUE_CACHE.clear()
    _PAIR_CUE_CACHE.clear()
    _SECTION_CACHE.clear()
    _HASH_CACHE.clear()
    _TEXT_IDS.clear()
    _SECTION_IDS.clear()
    clear_risk_cache()
    from aac.classifiers.word_vectors import forget_words  # lazy: the word table is optional for featurisation

    forget_words()


def _word_cues(token: str) -> tuple[str, ...]:
    """Word-family cues of one word (pairs: :func:`_pair_cues`), memoised (vocabularies are Zipfian: the cache stays small)."""
    hit = _WORD_CUE_CACHE.get(token)
    if hit is None:
        if token.isdigit() and not (len(token) == 4 and token[:2] in ("19", "20")):
            hit = ()  # numbers carry no cue (years do: temporal)
        elif not ANY_WORD_CUE.search(token):
            hit = ()  # one combined search rules out most rare tokens instead of one search per family
        else:
            hit = tuple(name for name, pattern in WORD_CUES if pattern.search(token))
        if len(_WORD_CUE_CACHE) < 500_000:
            _WORD_CUE_CACHE[token] = hit
    return hit


def _pair_cues(pair: str) -> tuple[str, ...]:
    """The word-family cues a pair "prev w" adds to those of its two words: only a match across the space can
    (:data:`PAIR_CUES`), memoised apart from the words' cues, which test whole families."""
    hit = _PAIR_CUE_CACHE.get(pair)
    if hit is None:
        hit = tuple(name for name, pattern in PAIR_CUES if pattern.search(pair))
        if len(_PAIR_CUE_CACHE) < 500_000:
            _PAIR_CUE_CACHE[pair] = hit
    return hit


def item_tokens(item: ItemInput, risk: list[str] | None = None, words_out: list[list[str]] | None = None) -> list[str]:
    """The symbolic features of one item (before hashing); readable, so a model can be explained.

    When ``risk`` is a list, the constraint stage's features (:func:`aac.classifiers.risk.risk_tokens`) are
    appended to it, reusing this function's word split; ``words_out`` receives that split (for word vectors).
    """
    toks, words, shape = text_tokens(item.text or "", item.kind == "code")
    if words_out is not None:
        words_out.append(words)
    if risk is not None:
        risk.extend(risk_tokens(item, words))
    toks.extend(section_part(_nearest(item.section), shape))
    return toks


def _nearest(section: Sequence[str]) -> tuple[str, ...]:
    return tuple(section[-2:]) if section else ()


def text_tokens(raw: str, code_kind: bool = False) -> tuple[list[str], list[str], tuple[bool, bool, bool]]:
    """The features of :func:`item_tokens` that depend on the text alone (``code_kind``: the item is a code
    block), its words, and the text's ``shape`` (hard force, short, modal) that heading features are crossed with."""
    text = MARKDOWN_NOISE.sub(" ", raw)
    low = text.lower()
    words = WORD.findall(low)
    toks = ["bias"]
    toks.extend(words)
    cjk = CJK.search(raw) is not None
    if cjk:  # CJK text has no spaces: character bigrams stand in for words
        toks.extend(a + b for a, b in zip(words, words[1:]) if len(a) == 1 and len(b) == 1)
    if words:
        toks.append("first:" + words[0])
        if len(words) > 1:
            toks.append("first2:" + words[0] + " " + words[1])
    n = len(words)
    toks.append("len:" + ("1" if n <= 1 else "3" if n <= 3 else "6" if n <= 6 else "12" if n <= 12 else "25" if n <= 25 else "long"))
    if code_kind or raw.lstrip().startswith("```"):  # other kinds vary by segmenter: not a feature
        toks.append("kind:code")
    stripped = raw.lstrip()
    if stripped[:1] in "-*+" or stripped[:2].rstrip(".)").isdigit():
        toks.append("shape:listish")
    if stripped.startswith("**") or stripped.startswith("__"):
        toks.append("shape:boldlead")
    if raw.rstrip().endswith(":"):
        toks.append("shape:colon_end")
    if raw.rstrip().endswith("?"):
        toks.append("shape:question")
    if "[x]" in raw or "[ ]" in raw:
        toks.append("shape:checkbox")
    if cjk:
        toks.append("lang:cjk")
    if stripped.startswith("|"):
        toks.append("shape:table_row")
    if stripped.startswith("<!--"):
        toks.append("shape:html_comment")
    fired: set[str] = set()
    get = _WORD_CUE_CACHE.get
    for w in words:
        c = get(w)
        if c is None:
            c = _word_cues(w)
        if c:
            fired.update(c)
    prev = None
    get = _PAIR_CUE_CACHE.get
    for w in words:
        if prev is not None and not w.isdigit():
            pair = prev + " " + w
            c = get(pair)
            if c is None:
                c = _pair_cues(pair)
            if c:
                fired.update(c)
        prev = w
    for name, pattern, needs in _PHRASES:
        if (not needs or any(m in low for m in needs)) and pattern.search(low):
            fired.add(name)
    # cheap substring / word-set tests stand in for the phrase-shaped regexes of the regex stage
    wset = set(words)
    if words and (words[0] in COND_OPENERS or (wset & COND_WORDS and "," in text)):
        fired.add("cond")
    if words and ((words[0] in ("to", "for") and ("," in text or ":" in text)) or wset & HOWTO_WORDS):
        fired.add("howto")
    if any(m in raw for m in CODE_MARKS):
        fired.add("code")
    if any(ch in raw for ch in PROHIBIT_SYMBOLS):
        fired.add("prohibit")
    if any(m in low for m in DESTROY_MARKS):
        fired.add("destroy")
    if any(m in low for m in SECURITY_MARKS):
        fired.add("security")
    if cjk:
        fired.update(name for name, pattern in CJK_CUES if pattern.search(raw))
    toks.extend("cue:" + name for name in fired)
    if UPPER_RUN.search(raw) and SHOUT_FAST.search(raw):
        fired.add("shout")
        toks.append("cue:shout")
    stakes = [s for s in STAKES if s in fired]
    toks.append("stakes:" + str(min(len(stakes), 3)))
    hard = fired & {"prohibit", "not_to_be", "shout", "no_auth"}
    if stakes:
        for h in hard:
            toks.append("hardxstake:" + h)
        for s in stakes:
            toks.append("stake_" + ("hard" if hard else "soft") + ":" + s)
        if "fact" in fired and not hard:
            toks.append("declarative_risk")
            for s in stakes:
                toks.append("declxstake:" + s)
    if "cond" in fired and hard:
        toks.append("cond_prohibit")
    if "must" in fired and stakes:
        toks.append("must_stake")
    if "step" in fired and not hard:
        toks.append("plain_step")
    return toks, words, (bool(hard), n <= 8, bool(fired & {"must", "approval", "only", "always"}))


def section_part(section: tuple[str, ...], shape: tuple[bool, bool, bool]) -> tuple[str, ...]:
    """Heading tokens (:func:`_section_tokens`) and their crosses with the text's ``shape`` (:func:`text_tokens`)."""
    sec_toks = _section_tokens(section)
    if "scue:safety" not in sec_toks:
        return sec_toks
    hard, short, modal = shape
    extra = []
    if hard:
        extra.append("safetysec_hard")
    if short:
        extra.append("safetysec_short")  # listed under a "Never"/"Security"/"Red flags" heading
    if modal:
        extra.append("safetysec_modal")
    return sec_toks + tuple(extra)


def _section_tokens(section: tuple[str, ...]) -> tuple[str, ...]:
    """Heading words and heading cue families, memoised: items of one section share them."""
    hit = _SECTION_CACHE.get(section)
    if hit is not None:
        return hit
    if not section:
        toks = ["s:none"]
    else:
        sec_text = " ".join(section)
        toks = ["s:" + w for w in WORD.findall(MARKDOWN_NOISE.sub(" ", sec_text).lower())]
        toks.extend("scue:" + name for name, pattern in SECTION_CUES if pattern.search(sec_text))
    hit = tuple(toks)
    if len(_SECTION_CACHE) < 100_000:
        _SECTION_CACHE[section] = hit
    return hit


def _crc_cached(token: str) -> int:
    h = _crc(token.encode("utf-8"))
    if len(_HASH_CACHE) < MAX_HASHED:  # unbounded vocabularies (ids, numbers) stop filling it, never grow memory
        _HASH_CACHE[token] = h
    return h


def hash_tokens(tokens: Iterable[str], n_features: int = N_FEATURES) -> list[int]:
    mask = n_features - 1
    get = _HASH_CACHE.get
    return sorted({(get(t) or _crc_cached(t)) & mask for t in tokens})


def featurize(items: Sequence[ItemInput], n_features: int = N_FEATURES,
              extra: Sequence[list[str]] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """CSR-style (indices, indptr) of binary features for a batch of items (``extra``: more tokens per item)."""
    indices: list[int] = []
    indptr = [0]
    for n, item in enumerate(items):
        toks = item_tokens(item)
        if extra is not None:
            toks.extend(extra[n])
        indices.extend(hash_tokens(toks, n_features))
        indptr.append(len(indices))
    return np.asarray(indices, dtype=np.int64), np.asarray(indptr, dtype=np.int64)


def featurize_two_stage(items: Sequence[ItemInput], n_features: int = N_FEATURES,
                        words_out: list[list[str]] | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(indices, indptr) of the type features and of the constraint stage's features (type features + risk).

    The constraint stage sees the union of both hashed sets, so a bucket shared by a word and a risk token
    counts once, exactly as in training. ``words_out`` receives each item's words (for its word vectors; the
    lists are shared with a cache: read them, never change them).

    Speed: a corpus repeats its texts (copied templates, common rules) under many headings, so the features
    of a text are computed once (:func:`_text_ids`) and those of a heading once per text shape
    (:func:`_section_ids`); an item is then the union of the two. The same indices as hashing
    :func:`item_tokens` and :func:`~aac.classifiers.risk.risk_tokens` item by item (tested).
    """
    mask = n_features - 1
    indices: list[int] = []
    indptr = [0]
    cindices: list[int] = []
    cindptr = [0]
    texts = _TEXT_IDS.get
    for item in items:
        key = (item.text or "", item.kind == "code", mask)
        part = texts(key)
        if part is None:
            part = _text_ids(key)
        ids, risk_ids, words, shape, risk_shape = part
        if words_out is not None:
            words_out.append(words)
        sec_ids, sec_risk_ids = _section_ids(tuple(item.section), shape, risk_shape, mask, item.lead_in)
        a = set(ids)
        a.update(sec_ids)
        both = a.union(risk_ids)
        both.update(sec_risk_ids)
        indices.extend(sorted(a))
        indptr.append(len(indices))
        cindices.extend(sorted(both))
        cindptr.append(len(cindices))
    as_arr = lambda v: np.asarray(v, dtype=np.int64)  # noqa: E731
    return as_arr(indices), as_arr(indptr), as_arr(cindices), as_arr(cindptr)


MAX_TEXTS = 100_000  # texts whose features are kept (about 1 KB each, 0.1 GB in all); the cache starts over when full
MAX_CACHED_CHARS = 1_000  # longer texts (code blocks, long paragraphs) rarely repeat and would bloat it: not kept


def _hashed(tokens: Iterable[str], mask: int) -> tuple[int, ...]:
    get = _HASH_CACHE.get  # a CRC of 0 is simply recomputed
    return tuple({(get(t) or _crc_cached(t)) & mask for t in tokens})


def _text_ids(key: tuple[str, bool, int]) -> tuple:
    """Hashed text features of both stages, the words, and the shapes the heading features are crossed with."""
    raw, code_kind, mask = key
    toks, words, shape = text_tokens(raw, code_kind)
    risk, risk_shape = risk_text_tokens(raw, words)
    # compact: ids as a C array, words shared with every other text that has them (about 1 KB a text, not 3)
    part = (array("i", _hashed(toks, mask)), array("i", _hashed(risk, mask)), [intern(w) for w in words], shape,
            risk_shape)
    if len(raw) <= MAX_CACHED_CHARS:
        if len(_TEXT_IDS) >= MAX_TEXTS:
            _TEXT_IDS.clear()
        _TEXT_IDS[key] = part
    return part


def _section_ids(section: tuple[str, ...], shape: tuple, risk_shape: tuple, mask: int, lead_in: str = "") -> tuple:
    """Hashed heading features of both stages for a text of this shape, memoised (``section``: the whole path; the
    type stage reads its two nearest headings, the constraint stage those and the governing ones above)."""
    key = (section, shape, risk_shape, mask, lead_in)
    hit = _SECTION_IDS.get(key)
    if hit is None:
        hit = (_hashed(section_part(_nearest(section), shape), mask),
               _hashed(risk_section_tokens(section, risk_shape, lead_in), mask))
        if len(_SECTION_IDS) >= 100_000:
            _SECTION_IDS.clear()
        _SECTION_IDS[key] = hit
    return hit


def to_csr(indices: np.ndarray, indptr: np.ndarray, n_features: int = N_FEATURES):
    """A scipy CSR matrix (for training only: scipy is imported lazily)."""
    from scipy.sparse import csr_matrix

    data = np.ones(len(indices), dtype=np.float32)
    return csr_matrix((data, indices, indptr), shape=(len(indptr) - 1, n_features))


def linear_scores(weights: np.ndarray, bias: np.ndarray, indices: np.ndarray, indptr: np.ndarray) -> np.ndarray:
    """Sum of weight rows per item (a sparse binary matrix times ``weights``) without scipy."""
    n = len(indptr) - 1
    out = np.tile(bias.astype(np.float32), (n, 1))
    if len(indices) == 0 or n == 0:
        return out
    return out + segment_sums(weights, indices, np.diff(indptr))
