"""Word pairs tested only against the cue branches across their space (aac.classifiers.spanning) give the same
features as testing them against whole families, as the featurisers did before."""

from __future__ import annotations

import re as stdre

import pytest
import regex

from aac.classifiers import features, risk
from aac.classifiers.base import ItemInput
from aac.classifiers.cues import WORD_CUES
from aac.classifiers.datasets import load_gold, load_multilingual_phrasing, load_phrasing
from aac.classifiers.spanning import spanning_families, spanning_pattern

V1 = regex.IGNORECASE | regex.V1

# written for this test: multi-word cues, words that only cue together, multilingual and CJK text, digits, flags
TRICKY = [
    "You must not push to main.", "Do not delete the database.", "Please ask the user before deleting files.",
    "Never run rm -rf / on the host.", "Use git push --force only on your own branch.", "不要删除生产数据库。",
    "禁止 提交 密钥", "本番環境のデータベースを上書きしてはいけない。", "하지 마세요: 운영 데이터베이스 삭제", "비밀번호 자격 증명",
    "Não deve apagar os dados pessoais.", "No debe borrar la base de datos.", "Не должен удалять продакшн базу.",
    "Không được xóa dữ liệu, bắt buộc phải hỏi.", "The staging bucket is off limits.", "Off-limits: the vault.",
    "Store the API key in the vault.", "api_key rotation", "Released 2024-05-01; 3 days ago we migrated.",
    "Since 2020 the team has been on call.", "It was deployed on Monday.", "In 12 months, sign off the release.",
    "The customers table holds the only copy of the data.", "Wait for a human review before merging.",
    "Keep functions small and readable.", "You are an expert reviewer; act as a senior engineer.",
    "- [ ] migrate the db", "Run `npm run build` then `pytest -q`.", "$ docker compose up",
    "It breaks the build and can cause data loss.", "Real users see this: a third party webhook.",
    "NEVER commit .env files", "Das ist verboten: niemals Zugangsdaten committen.", "mot de passe",
]


def _sources(items: list[ItemInput]) -> list[tuple]:
    out = []
    for it in items:
        risk_toks: list[str] = []
        words: list[list[str]] = []
        toks = features.item_tokens(it, risk=risk_toks, words_out=words)
        out.append((sorted(toks), sorted(risk_toks), sorted(risk.text_families(it.text)),
                    sorted(risk.text_families(it.text, words[0]))))
    return out


def _reference(items: list[ItemInput], monkeypatch) -> list[tuple]:
    """The features with pairs tested against whole families (the featurisers before the change)."""
    with monkeypatch.context() as m:
        m.setattr(features, "PAIR_CUES", features.WORD_CUES)
        m.setattr(risk, "_PAIR_FAMILIES", risk._FAMILIES)
        m.setattr(risk, "_PAIR_ANY", risk._ANY)
        features.clear_caches()
        out = _sources(items)
    features.clear_caches()
    return out


def _items(texts):
    return [ItemInput(t, ("Rules",), lead_in=lead) for t in texts for lead in ("", "Do not:")]


def test_tricky_items_have_the_same_features_as_with_whole_families(monkeypatch):
    items = _items(TRICKY)
    features.clear_caches()
    assert _sources(items) == _reference(items, monkeypatch)
    # and the multi-word cues do fire through the pair patterns
    fired = risk.text_families("You must not push to main.")
    assert "prohibit" in fired and "prohibit" not in risk.token_families("must") + risk.token_families("not")
    assert risk.pair_families("must not") == ("prohibit",)
    assert "prohibit" in features._pair_cues("must not")
    assert features._pair_cues("하지 마세요") == ("prohibit",)


def test_a_pair_adds_only_what_a_match_across_its_space_gives():
    pairs = []
    for t in TRICKY:
        ws = features.WORD.findall(features.MARKDOWN_NOISE.sub(" ", t).lower())
        pairs += [a + " " + b for a, b in zip(ws, ws[1:])]
    assert len(pairs) > 150
    for pair in pairs:
        a, b = pair.split(" ")
        whole = {n for n, p in WORD_CUES if p.search(pair)}
        got = set(features._pair_cues(pair))
        assert got <= whole, pair  # never more than the whole families
        assert whole <= got | {n for n, p in WORD_CUES if p.search(a) or p.search(b)}, pair
        whole = {n for n, p in risk._FAMILIES if p.search(pair)}
        got = set(risk.pair_families(pair))
        assert got <= whole and whole <= got | set(risk.token_families(a)) | set(risk.token_families(b)), pair


def test_the_check_would_see_a_missing_pair_pattern(monkeypatch):
    items = _items(["You must not push to main.", "Wait for a human review before merging."])
    reference = _reference(items, monkeypatch)
    with monkeypatch.context() as m:
        m.setattr(features, "PAIR_CUES", ())
        features.clear_caches()
        assert _sources(items) != reference
    features.clear_caches()


def test_dev_and_multilingual_items_have_the_same_features(monkeypatch, gold_path, phrasing_path):
    items = [d.item for d in load_gold(gold_path) + load_phrasing(phrasing_path) + load_multilingual_phrasing()]
    features.clear_caches()
    assert _sources(items) == _reference(items, monkeypatch)


@pytest.mark.parametrize("pattern, expected", [
    (r"\b(?:never|must\s+not|don'?t)\b", r"\b(?:must\s+not)\b"),
    (r"\b(never|do\s+not)\b|禁止|하지\s?마", r"\b(?:do\s+not)\b|하지\s?마"),
    (r"\b(?:delet\w*|rm\s+-rf|force[-\s]?push\w*)", r"\b(?:rm\s+-rf|force[-\s]?push\w*)"),
    (r"\bask\s+(the\s+)?(user|human)\s+first", r"\bask\s+(the\s+)?(user|human)\s+first"),  # several: kept whole
    (r"\b(?:a|b(?:c|d\se))?x", r"\b(?:b(?:d\se))x"),  # an optional group a spanning match needs once
    (r"\b(?:a|b\s)*x", r"\b(?:a|b\s)*x"),  # repeated: kept whole
    (r"`[^`]*\b(run|test)\b[^`]*`|\$", r"`[^`]*\b(run|test)\b[^`]*`"),  # a negated class can match a space
    (r"\[ \]|\[x\]|v\d+\.\d+", r"\[ \]"),
    (r"\bfoo(?=\s)|\bbar", r"\bfoo(?=\s)"),  # a lookaround that can see the space keeps its branch
    (r"(?<!^)nice|(?=x)y|\bbar", r"(?<!^)nice|(?=x)y"),  # any lookaround keeps its branch: "(?<!^)" differs
    (r"\b(?:never|always)\b|[❌🚫]", None),
])
def test_spanning_pattern_keeps_exactly_the_branches_across_a_space(pattern, expected):
    assert spanning_pattern(pattern, regex, V1) == expected


def test_the_standard_engine_and_its_classes():
    assert spanning_pattern(r"\b(?:a|b c|d[-_\s]e|f\.g)\b", stdre) == r"\b(?:b c|d[-_\s]e)\b"
    assert spanning_pattern(r"x[[\s]--[\t]]y", regex, V1) == r"x[[\s]--[\t]]y"  # V1 nested sets


@pytest.mark.parametrize("pattern", [r"(a)\s\1", r"(?i)a\sb", r"(?#note)a", r"a\sb)", r"(a\sb", r"[a\s"])
def test_unsupported_or_broken_patterns_raise_instead_of_guessing(pattern):
    with pytest.raises(ValueError):
        spanning_pattern(pattern, regex, V1)


def test_every_shipped_family_reads_back_and_compiles():
    for fams in (WORD_CUES, risk._FAMILIES, risk.compile_families(domain=False)[0]):
        pair_fams, combined = spanning_families(fams)
        assert pair_fams and combined.search("must not")
        assert {n for n, _ in pair_fams} <= {n for n, _ in fams}
    assert spanning_families(())[1].search("anything") is None


def test_ablation_variants_swap_the_pair_patterns_with_the_families(load_bench):
    bench = load_bench("classify_ablation")
    hard = {attr: value for mod, attr, value in bench._patches("hardstakes") if mod is risk}
    assert "prod_hard" in {n for n, p in hard["_PAIR_FAMILIES"] if p.search("real users")}
    narrow = {attr: value for mod, attr, value in bench._patches("nodomain") if mod is risk}
    assert not narrow["_PAIR_ANY"].search("life threatening")  # a domain stake: left out with its families
    assert risk._PAIR_ANY.search("life threatening")


def test_numbers_the_featuriser_skips_would_fire_no_family():
    # features gives a number no cues without testing it (years aside), yet pairs with a number on the left are
    # formed: they may drop its families only because it has none
    numbers = [str(n) for n in range(1000)] + ["0000", "1234", "99999", "12345678", "٣٤", "１２"]
    for n in numbers:
        assert n.isdigit()
        assert not any(p.search(n) for _, p in WORD_CUES), n
