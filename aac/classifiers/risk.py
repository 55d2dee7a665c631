"""Rubric-derived constraint features: what is at stake x how forcefully it is said x where it is listed.

The rubric's test for a Constraint is about consequences (secrets, destructive commands, production, shared
git history, external side effects, money, privacy, law, health, harm, needing a human's approval), not about
imperative mood: "Do not use shadow DOM" is a Preference, a bare file glob under a "Never commit" heading is a
Constraint. These few families (many multilingual), their crosses with deontic force and with section-heading
cues, and counter-cues for code-quality topics feed the separate constraint stage of the ``trained`` model.
Word lists generalise where hashed words overfit (grouped cross-validation, see ``bench/classify_ablation.py``).

Speed: the text families are tested per word and word pair and memoised (as in :mod:`features`; a pair only against
the branches that can match across its space, :mod:`aac.classifiers.spanning`), heading families per section path,
so the default classifier stays above 10,000 items/s.
"""

from __future__ import annotations

import re
from typing import Sequence

from aac.classifiers.base import ItemInput
from aac.classifiers.spanning import spanning_families

# Family name -> alternation (lower-case text). Order matters only where words overlap: earlier wins.
_TEXT_FAMILIES: tuple[tuple[str, str], ...] = (
    ("gate", r"\b(?:dco|signed[-\s]?off|sign[-\s]?off|approv\w*|permission|consent|confirm\w*|explicit(?:ly)?|"
             r"ask(?:s|ing)?\s+(?:the\s+)?(?:user|human|developer|maintainer|owner|first|before)|"
             r"without\s+(?:asking|approval|permission|confirmation|review|being\s+asked)|human\s+(?:review|approval)|"
             r"unless\s+(?:the\s+)?(?:user|developer|human)|authori[sz]\w*|maintainers?)\b"
             r"|批准|审批|承認|許可|许可|确认|確認|通知|genehmig\w*|autoris\w*|aprobaci\w*"),
    ("prohibit", r"\b(?:never|must\s+not|mustn'?t|do\s+not|don'?t|shall\s+not|should\s+not|shouldn'?t|cannot|can'?t|"
                 r"may\s+not|forbidden|prohibited|not\s+allowed|not\s+permitted|disallowed|under\s+no\s+circumstances|"
                 r"off[-\s]limits|not\s+to\s+be|niemals|nicht|verboten|jamais|interdit\w*|nunca|prohibid\w*)\b"
                 r"|[❌🚫⛔🛑]|不要|禁止|绝不|永远不要|不得|严禁|勿|してはいけない|しないこと|しない|しません|せず|ないこと|不可"),
    ("stop", r"\b(?:stop|halt|abort|wait\s+for|do\s+not\s+proceed|refuse|escalat\w*|auto[-\s]?stop|red\s+flags?)\b"
             r"|停止|中止"),
    ("secret", r"\b(?:secrets?|credentials?|passwords?|passwd|api[-_\s]?keys?|tokens?|private[-_\s]keys?|signing[-_\s]keys?|"
               r"ssh[-_\s]keys?|\.env\w*|env(?:ironment)?\s+var\w*|certificates?|keychain|vault|zugangsdaten)\b"
               r"|密钥|秘密|密码|パスワード|令牌|トークン|機密|机密|秘密鍵"),
    ("destroy", r"\b(?:delet\w*|drop(?:s|ping|ped)?|truncat\w*|destroy\w*|wip(?:e|es|ed|ing)|purg\w*|eras\w*|overwrit\w*|"
                r"rm\s+-\w+|irreversib\w*|irrecoverab\w*|cannot\s+be\s+undone|permanent\w*|data\s+loss|lose\s+(?:data|work)|"
                r"only\s+copy|corrupt\w*|clobber\w*|reset\s+--hard|clean\s+-f\w*|append[-\s]only|löschen|supprim\w*|"
                r"borrar|eliminar)\b|破坏|破壊|上書き|删除|削除|覆盖|消去"),
    ("vcs", r"\b(?:force[-\s]?push\w*|--force|push\w*|commit\w*|merg\w*|rebas\w*|main\s+branch|master|"
            r"protected\s+branch\w*|history|tag(?:s|ging)?|pull\s+requests?)\b|提交|推送|コミット|プッシュ"),
    ("prod", r"\b(?:prod|production|live|deploy\w*|releases?|publish\w*|customers?|real\s+users?|end[-\s]users?|"
             r"public|dns|servers?|infrastructure|cluster|database|db|migrations?|schemas?|produktion)\b"
             r"|本番|生产|生産|公開|数据库|データベース"),
    ("external", r"\b(?:send\w*|emails?|e-mail|mail|posts?|posting|social|sms|notif\w*|download\w*|online|internet|"
                 r"network|external|third[-\s]party|upload\w*|webhooks?|tracking|telemetry|analytics)\b|外部"),
    ("money", r"\b(?:payment\w*|billing|billed|money|funds?|refund\w*|charg\w*|trad(?:e|es|ing)|invoice\w*|currency|"
              r"bank\w*|credit\s+cards?|card\s+numbers?|financ\w*|pricing|purchase\w*|costs?|paid)\b"),
    ("privacy", r"\b(?:pii|personal\s+(?:data|information)|privacy|private|gdpr|hipaa|ccpa|confidential\w*|sensitive|"
                r"user\s+data|customer\s+data|emails?\s+address\w*|datenschutz)\b|隐私|個人情報"),
    ("legal", r"\b(?:licen[cs]\w*|gpl|agpl|copyright\w*|legal\w*|illegal\w*|laws?|complian\w*|regulat\w*|audit\w*|"
              r"contract\w*|nda|embargo\w*|sanction\w*|trademark\w*)\b"),
    ("security", r"\b(?:secur\w*|vulnerab\w*|injection|xss|csrf|saniti[sz]\w*|exploit\w*|malware|untrusted|unsafe|"
                 r"attack\w*|threats?|auth\w*|privileges?|root|sudo|admin\w*|encrypt\w*|unencrypted|interpolat\w*|"
                 r"eval|exec\w*|shell|cors|firewall|leak\w*|expos\w*|rate\s+limit\w*|verif\w*|--no-verify|sicherheit)\b"
                 r"|安全|セキュリティ"),
    # harm to health, not the domain's nouns: "patients" or "clinic" alone occur as often in plain facts
    ("health", r"\b(?:allerg\w*|dos(?:e|es|age|ing)|medicat\w*|prescri\w*|toxic\w*|bleed\w*|injur\w*|fatal|death|"
               r"lethal|overdos\w*|pregnan\w*|contraindicat\w*|interact\w*)\b"),
    ("harm", r"\b(?:harm\w*|danger\w*|hazard\w*|risk\w*|crash\w*|outage\w*|downtime|incident\w*|catastroph\w*|critical|"
             r"severe|violat\w*|safety|minors?|children|breaks?\s+(?:prod\w*|the\s+build|everything))\b"),
    ("quality", r"\b(?:style|naming|names?|format\w*|indent\w*|comments?|docstrings?|readab\w*|clean\w*|concise|"
                r"consisten\w*|idiomatic|best\s+practices?|simple|simplicity|small|short|verbose|emoji\w*|tone|css|"
                r"colou?rs?|ui|ux|layout|components?|class(?:es)?|variables?|functions?|types?|typescript|any|lint\w*|"
                r"prettier|eslint|tests?|testing|mocks?|imports?|exports?|hooks?|props|dash|markdown|headings?|"
                r"docs?|documentation|readme|placeholders?|fallbacks?|logs?|logging|errors?|abbreviations?|"
                r"identifiers?|ternar\w*|nest\w*|inline|var|let|const)\b|风格|命名|注释|コメント|規約"),
    ("pref", r"\b(?:prefer\w*|ideally|favou?r\w*|avoid\w*|try\s+to|where\s+possible|when\s+possible|if\s+possible|"
             r"rather\s+than|instead\s+of|should|recommend\w*|consider|encourag\w*|aim\s+(?:to|for))\b"),
    ("must", r"\b(?:must|shall|required|requires|mandatory|obligatory|have\s+to|has\s+to|need\s+to|needs\s+to|always|"
             r"only|exclusively|solely|zero[-\s]tolerance|non[-\s]negotiable|muss|doit|debe)\b|必须|必ず|务必|しなければ|のみ|只能|仅"),
    ("cond", r"\b(?:if|unless|whenever|before|until)\b|如果|場合"),
    ("fact", r"\b(?:is|are|holds|contains|stores|has|have|uses|runs|backs)\b"),
    ("howto", r"^\W*(?:to|for)\s+\w+(?:\s+\w+){0,6}[,:]|\b(?:then|next|afterwards|finally)\b"),
    ("past", r"\b(?:yesterday|last\s+(?:week|month|year|quarter|sprint|session)|recently|ago|was|were|had\s+been)\b"
             r"|\b(?:19|20)\d\d-\d\d"),
)
# The stakes of regulated domains beyond software (law, finance, medicine, personal records, physical harm),
# added to the families above: a rule stated as a plain fact ("... is in active litigation against ...", "...
# a reportable breach") names its stake in such words, and held-out rules come from domains the dev files
# never show. Words and word pairs only, as the families fire per word and pair. Grouped CV, 6 shuffles
# (``bench/classify_ablation.py --variants shipped,nodomain``): C-prec 0.48 -> 0.50, C-rec 0.80 -> 0.79,
# declarative 0.88 -> 0.89 (model card).
DOMAIN_STAKES: dict[str, str] = {
    "legal": r"\b(?:litigat\w*|lawsuits?|liab(?:le|ilit\w*)|breach\w*|infring\w*|fraud\w*|penalt\w*|subpoena\w*|"
             r"courts?|fiduciar\w*|insider|restricted\s+list|kyc|aml|statutor\w*|jurisdiction\w*|indemn\w*|"
             r"reportable|export\s+control\w*|exclusive\s+rights?|distribution\s+rights?|whistleblow\w*)\b",
    "harm": r"\b(?:flammab\w*|explos\w*|weapons?|firearms?|suicid\w*|self\s+harm|abus\w*|poison\w*|carcinogen\w*|"
            r"radiation|electrocut\w*|unaccompanied|emergenc\w*|life\s+threatening|casualt\w*|birth\s+defects?)\b",
    "health": r"\b(?:adverse|side\s+effects?|anaphyla\w*|hypoglyc\w*|respirat\w*|sedat\w*|opioids?|insulin|"
              r"warfarin|anticoagul\w*|chemotherap\w*|narcotic\w*|controlled\s+substances?|transfus\w*|vaccin\w*)\b",
    "privacy": r"\b(?:medical\s+records?|health\s+(?:records?|information|data)|phi|ssn|social\s+security|"
               r"salar(?:y|ies)|passports?|biometric\w*|home\s+address\w*|phone\s+numbers?)\b",
    "money": r"\b(?:fees?|compensat\w*|reimburs\w*|vouchers?|store\s+credit|chargebacks?|wire\s+transfers?|"
             r"segregated|loans?|tax(?:es)?|securities|discretionary)\b",
    "security": r"\b(?:phishing|ransomware|mfa|2fa|interception|impersonat\w*|spoof\w*)\b",
}


def compile_families(domain: bool = True, multilingual: bool = True) -> tuple[tuple[tuple[str, re.Pattern], ...], re.Pattern]:
    """The per-word families (with or without :data:`DOMAIN_STAKES` and the other languages' words of
    :mod:`aac.classifiers.lexicons`) and one pattern any of them matches."""
    from aac.classifiers import lexicons

    pats = []
    for name, p in _TEXT_FAMILIES:
        if name in ("howto", "past"):
            continue
        if domain and name in DOMAIN_STAKES:
            p += "|" + DOMAIN_STAKES[name]
        if multilingual and name in lexicons.TEXT:
            p += "|" + lexicons.TEXT[name]
        pats.append((name, p))
    pats += [(name, p) for name, p in lexicons.TEXT.items() if multilingual and name not in dict(_TEXT_FAMILIES)]
    return tuple((name, re.compile(p)) for name, p in pats), re.compile("|".join(f"(?:{p})" for _, p in pats))


_FAMILIES, _ANY = compile_families()
# A word pair adds to its two words' families only through a match across its space: it is tested against those
# branches alone (aac.classifiers.spanning). Recompute both when swapping _FAMILIES (bench/classify_ablation.py).
_PAIR_FAMILIES, _PAIR_ANY = spanning_families(_FAMILIES)
_WHOLE_TEXT = tuple((name, re.compile(p)) for name, p in _TEXT_FAMILIES if name in ("howto", "past"))
# Substrings without one of which a whole-text family cannot match (the patterns are case-sensitive over the
# lower-cased text, so the test is exact); it skips most searches. "howto"'s first branch is anchored at the start
# of the text, so it is tried with ``match`` on its own (cheap) and the rest of it only behind the test.
_HOWTO_START = re.compile(r"\W*(?:to|for)\s+\w+(?:\s+\w+){0,6}[,:]")
_WHOLE_NEEDS = {"howto": ("then", "next", "afterwards", "finally"),
                "past": ("yesterday", "last", "recently", "ago", "was", "were", "had", "19", "20")}
# Flags and multi-word marks the word tokeniser splits apart, tested as substrings of the lower-cased text.
_MARKS = (("--force", "vcs"), ("--hard", "destroy"), ("rm -rf", "destroy"), ("rm -r ", "destroy"),
          ("--no-verify", "security"), (".env", "secret"), ("cannot be undone", "destroy"),
          ("ask the user", "gate"), ("unless the user", "gate"), ("not to be", "prohibit"))
CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")  # Hangul too: its stems carry endings
_TOKEN_CACHE: dict[str, tuple[str, ...]] = {}
_PAIR_CACHE: dict[str, tuple[str, ...]] = {}
SHOUT = re.compile(r"\b(?:IMPORTANT|CRITICAL|WARNING|NEVER|MUST|DO NOT|DON'T|ALWAYS|STOP|MANDATORY|REQUIRED|NOT|NO)\b"
                   r"|[⚠🔴🚨‼❗]")
WORDS = re.compile(r"\w+")
_SHOUT_HINT = re.compile(r"[A-Z]{2}|[⚠🔴🚨‼❗]")  # every SHOUT match has one: texts without it skip the search

def _with_lexicon(name: str, p: str) -> str:
    from aac.classifiers.lexicons import SECTION

    return p + "|" + SECTION[name] if name in SECTION else p


_SECTION_FAMILIES: tuple[tuple[str, re.Pattern], ...] = tuple((name, re.compile(_with_lexicon(name, p), re.IGNORECASE)) for name, p in (
    ("safe", r"\b(?:never|don'?ts?|do\s+not|forbidden|prohibit\w*|must\s+not|red\s+flags?|hard\s+rules?|zero\s+tolerance|"
             r"non-negotiable|security|safety|secrets?|danger\w*|no-go|guardrails?|boundar\w*|protected|critical|"
             r"stop|auto-stop|permissions?|approvals?|restrict\w*|compliance|privacy|sicherheit|seguridad|sécurité)\b"
             r"|[❌🚫⛔🛑⚠🔒🔴🚨]|不要|禁止|严禁|安全|ルール"),
    ("rules", r"\b(?:rules?|constraints?|must|mandatory|policy|policies|invariants?|golden|important|required|limits?)\b"
              r"|必须|规则|規則"),
    ("style", r"\b(?:style|conventions?|naming|formatting|code\s+quality|best\s+practices?|guidelines?|preferences?|tone|"
              r"persona|communication|philosophy|principles?|documentation|comments?|anti-patterns?|frontend|ui|"
              r"design|css|typescript|react|writing)\b|风格|規約"),
    ("proc", r"\b(?:setup|set\s+up|install\w*|build\w*|test\w*|commands?|scripts?|workflow\w*|deploy\w*|release\w*|"
             r"development|getting\s+started|quick\s*start|usage|how\s+to|steps?|running|ci|checklist|process)\b"),
    ("belief", r"\b(?:architecture|overview|structure|stack|tech\w*|project|context|about|directory|layout|modules?|"
               r"components?|reference|glossary|domain|background|data\s+(?:model|flow))\b"),
    ("episodic", r"\b(?:status|changelog|history|progress|todo|roadmap|done|completed|recent|updates?|session|log|"
                 r"notes?|milestones?|sprint|phase|current)\b"),
))
STAKES = ("gate", "secret", "destroy", "vcs", "prod", "external", "money", "privacy", "legal", "security", "health", "harm")
FORCE = ("prohibit", "must", "shout", "stop")
_SECTION_CACHE: dict[tuple[str, ...], tuple[str, ...]] = {}


def _memoised(token: str, cache: dict, families, prefilter) -> tuple[str, ...]:
    """The ``families`` that match ``token`` (``prefilter`` rules most tokens out in one search), memoised in
    ``cache`` (vocabularies are Zipfian: it stays small; it stops growing at 500,000 entries)."""
    hit = cache.get(token)
    if hit is None:
        hit = tuple(name for name, p in families if p.search(token)) if prefilter.search(token) else ()
        if len(cache) < 500_000:
            cache[token] = hit
    return hit


def token_families(token: str) -> tuple[str, ...]:
    """Families of one lower-case word (pairs: :func:`pair_families`)."""
    return _memoised(token, _TOKEN_CACHE, _FAMILIES, _ANY)


def pair_families(pair: str) -> tuple[str, ...]:
    """The families a word pair "prev w" adds to those of its two words (:data:`_PAIR_FAMILIES`)."""
    return _memoised(pair, _PAIR_CACHE, _PAIR_FAMILIES, _PAIR_ANY)


def text_families(text: str, words: Sequence[str] | None = None) -> set[str]:
    """Which families fire on ``text``: per word and word pair (memoised), marks, whole-text shapes, CJK, shout.

    ``words`` (the lower-case words of ``text``) can be passed in by a caller that already split them.
    """
    low = text.lower()
    if words is None:
        words = WORDS.findall(low)
    fired: set[str] = set()
    get = _TOKEN_CACHE.get
    pget = _PAIR_CACHE.get
    prev = None
    for w in words:
        if w.isdigit():  # numbers name no family; skipping them keeps unique tokens out of the cache
            prev = None
            continue
        c = get(w)
        if c is None:
            c = token_families(w)
        if c:
            fired.update(c)
        if prev is not None:
            pair = prev + " " + w
            c = pget(pair)
            if c is None:
                c = pair_families(pair)
            if c:
                fired.update(c)
        prev = w
    for mark, name in _MARKS:
        if mark in low:
            fired.add(name)
    for name, p in _WHOLE_TEXT:
        if name == "howto" and _HOWTO_START.match(low):
            fired.add(name)
        elif any(m in low for m in _WHOLE_NEEDS[name]) and p.search(low):
            fired.add(name)
    if CJK.search(text):  # no spaces between CJK words: the families run on the whole text
        fired.update(name for name, p in _FAMILIES if p.search(low))
    if _SHOUT_HINT.search(text) and SHOUT.search(text):
        fired.add("shout")
    return fired


def section_families(section: Sequence[str]) -> tuple[str, ...]:
    """Families of the two nearest headings (memoised: items of one section share them)."""
    key = tuple(section[-2:])
    hit = _SECTION_CACHE.get(key)
    if hit is None:
        text = " ".join(key)
        hit = tuple(name for name, p in _SECTION_FAMILIES if p.search(text)) if text.strip() else ("none",)
        if len(_SECTION_CACHE) < 100_000:
            _SECTION_CACHE[key] = hit
    return hit


GOVERNING = ("safe", "rules")  # heading families that give force to everything under them, however deep
_GOVERNING_CACHE: dict[tuple[str, ...], tuple[str, ...]] = {}


def governing_families(section: Sequence[str]) -> tuple[str, ...]:
    """The force-giving families (:data:`GOVERNING`) of the headings above the two nearest ones: a rule three levels
    under "## Forbidden" or "禁止事项" still sits in that section (memoised)."""
    key = tuple(section[:-2])
    if not key:
        return ()
    hit = _GOVERNING_CACHE.get(key)
    if hit is None:
        text = " ".join(key)
        hit = tuple(name for name, p in _SECTION_FAMILIES if name in GOVERNING and p.search(text))
        if len(_GOVERNING_CACHE) < 100_000:
            _GOVERNING_CACHE[key] = hit
    return hit


def clear_cache() -> None:
    _LEAD_CACHE.clear()
    _GOVERNING_CACHE.clear()
    _SECTION_CACHE.clear()
    _TOKEN_CACHE.clear()
    _PAIR_CACHE.clear()


def _length_bucket(n: int) -> str:
    return "1" if n <= 2 else "4" if n <= 4 else "8" if n <= 8 else "16" if n <= 16 else "L"


def risk_tokens(item: ItemInput, words: Sequence[str] | None = None) -> list[str]:
    """The constraint stage's symbolic features (prefixed ``r`` so they never share a hash with words)."""
    toks, shape = risk_text_tokens(item.text or "", words)
    toks.extend(risk_section_tokens(item.section, shape, item.lead_in))
    return toks


_LEAD_CACHE: dict[str, tuple[str, ...]] = {}


def lead_in_families(lead_in: str) -> tuple[str, ...]:
    """What a list's lead-in says: its heading families (:data:`GOVERNING`, as for a governing heading) and its
    force (``prohibit`` / ``must`` / ``stop`` / ``gate``), memoised."""
    hit = _LEAD_CACHE.get(lead_in)
    if hit is None:
        heads = [name for name, p in _SECTION_FAMILIES if name in GOVERNING and p.search(lead_in)]
        force = sorted(text_families(lead_in) & {"prohibit", "must", "stop", "gate", "shout"})
        hit = tuple(heads) + tuple("f:" + f for f in force)
        if len(_LEAD_CACHE) < 100_000:
            _LEAD_CACHE[lead_in] = hit
    return hit


def risk_text_tokens(raw: str, words: Sequence[str] | None = None) -> tuple[list[str], tuple]:
    """The features of :func:`risk_tokens` that depend on the text alone, and the text's ``shape`` (length
    bucket, whether something is at stake, the forces) that the heading features are crossed with."""
    if words is None:
        words = WORDS.findall(raw.lower())
    fired = text_families(raw, words)
    stakes = [s for s in STAKES if s in fired]
    force = tuple(f for f in FORCE if f in fired)
    toks = ["r:" + f for f in fired]
    toks.append(f"r#stakes:{min(len(stakes), 3)}")
    toks.append(f"r#force:{min(len(force), 2)}")
    for s in stakes:
        for f in force:
            toks.append(f"rx:{f}:{s}")
        if not force and "fact" in fired:
            toks.append("rdecl:" + s)  # a statement of fact about something at stake ("holds the only copy")
        if "cond" in fired:
            toks.append("rcond:" + s)
    if force and not stakes:
        toks.append("r:force_without_stakes")  # "Do not use shadow DOM": deontic but about code quality
    if "quality" in fired:
        toks.append("r:quality_" + ("stakes" if stakes else "only"))
    length = _length_bucket(len(words))
    toks.append("rlen:" + length)
    return toks, (length, bool(stakes), force)


def risk_section_tokens(section: Sequence[str], shape: tuple, lead_in: str = "") -> list[str]:
    """The heading features of :func:`risk_tokens`, crossed with the text's ``shape`` (from :func:`risk_text_tokens`);
    a list's ``lead_in`` counts as a governing heading, and its force as force from the heading."""
    length, at_stake, force = shape
    toks = []
    for s in section_families(section):
        toks.append("rs:" + s)
        toks.append(f"rslen:{s}:{length}")  # a bare fragment under a "Never commit" heading
        if at_stake:
            toks.append(f"rsst:{s}")
        for f in force:
            toks.append(f"rsf:{s}:{f}")
    governing = set(governing_families(section))
    if lead_in:
        lead = lead_in_families(lead_in)
        governing.update(f for f in lead if not f.startswith("f:"))
        for f in lead:
            if f.startswith("f:"):
                toks.append("rl" + f)
                toks.append(f"rllen:{f}:{length}")
                if at_stake:
                    toks.append(f"rlst:{f}")
    for s in sorted(governing):
        toks.append("rg:" + s)
        toks.append(f"rglen:{s}:{length}")
        if at_stake:
            toks.append(f"rgst:{s}")
    return toks
