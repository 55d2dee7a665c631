"""Hand-written lexical cue families shared by the regex stage and the trained model's features.

Each family is one compiled pattern that answers a yes/no question about an item ("does it prohibit?",
"does it name something whose loss or misuse is harmful?"). The trained model sees which families fire,
so it generalises to wordings it was never trained on: a declarative constraint ("The customers table holds
the only copy of ...") shares risk cues with an imperative one even when it has no "never".
"""

from __future__ import annotations

import re as stdre

import regex as re

_I = re.IGNORECASE | re.V1


def _c(pattern: str, flags: int = _I) -> re.Pattern:
    return re.compile(pattern, flags)


# --- obligation / prohibition -------------------------------------------------------------------
PROHIBIT = _c(
    r"\b(never|must\s+not|mustn'?t|do\s+not|don'?t|shall\s+not|should\s+not|shouldn'?t|cannot|can'?t|may\s+not|"
    r"forbidden|prohibited|not\s+allowed|not\s+permitted|disallowed|no\s+longer\s+allowed|under\s+no\s+circumstances|"
    r"at\s+no\s+time|in\s+no\s+case|refuse|avoid\s+at\s+all\s+costs|off[-\s]limits)\b"
    r"|[❌🚫⛔🛑]|\b(不要|禁止|绝不|永远不要|不得|严禁|しない|禁止|しません|ません|してはいけない|不可)"
)
NOT_TO_BE = _c(r"\b(is|are|be|was|were)\s+not\s+to\s+be\b|\bnot\s+to\s+be\s+\w+ed\b|\bmay\s+only\b|\bonly\s+(be\s+)?\w+ed\s+by\b")
MODAL_MUST = _c(r"\b(must|shall|required|requires|mandatory|obligatory|have\s+to|has\s+to|need\s+to|needs\s+to)\b|必须|必ず")
SHOUT = re.compile(r"\b(IMPORTANT|CRITICAL|WARNING|NEVER|MUST|DO NOT|DON'T|ALWAYS|STOP|MANDATORY|REQUIRED|NOT)\b")
ALWAYS = _c(r"\b(always|ensure|make\s+sure|be\s+sure)\b")
APPROVAL = _c(r"\b(approv\w*|permission|consent|sign[-\s]?off|signed\s+off|explicit(ly)?\s+(ask|request|confirm)\w*|"
              r"confirm\w*\s+(with|first|before)|human\s+(review|approval)|ask\s+(the\s+)?(user|human|developer)\s+(first|before)|"
              r"without\s+(asking|approval|permission|confirmation|review))")
ONLY = _c(r"\b(only|exclusively|solely|limited\s+to|restricted\s+to|reserved\s+for)\b")
NO_AUTHORITY = _c(r"\b(no|not\s+any|without)\s+(legitimate|discretionary|authori[sz]\w*|right|rights|permission|access|use\s+for|clearance)\b"
                  r"|\bnot\s+(sandboxed|backed\s+up|reversible|recoverable|covered|insured|authori[sz]ed|eligible)\b"
                  r"|\b(fall|falls)\s+outside\b|\bno\s+\w+\s+(under|below|over)\s+\d")

# --- what is at stake ----------------------------------------------------------------------------
DESTRUCTIVE = _c(
    r"\b(delet\w*|drop\w*|truncat\w*|destroy\w*|wip(e|es|ed|ing)|purg\w*|eras\w*|overwrit\w*|rm\s+-rf|force[-\s]?push\w*|"
    r"--force|push\s+--force|reset\s+--hard|rewrit\w*\s+history|irreversib\w*|irrecoverabl\w*|cannot\s+be\s+undone|"
    r"permanent\w*|data\s+loss|lose\s+data|only\s+copy|no\s+backup|corrupt\w*|破坏|破壊|上書き|删除)"
)
SECURITY = _c(
    r"\b(secret\w*|credential\w*|password\w*|passwd|api[-_\s]?keys?|tokens?|private\s+keys?|\.env\b|ssh|"
    r"encrypt\w*|unencrypted|decrypt\w*|tls|ssl|certificates?|verification|auth\w*|administratoraccess|admin\w*|"
    r"root\b|privilege\w*|iam\b|vulnerab\w*|injection|xss|csrf|sanitiz\w*|sanitis\w*|exploit\w*|malware|"
    r"tracking|shell\s+interpolation|exec\w*\s*\(|eval\s*\(|keys?\s+rotation|leak\w*|expos\w*|intercept\w*|"
    r"attack\w*|threat\w*|firewall|cors|signed\s+url)"
)
PRODUCTION = _c(r"\b(prod|production|live|main\s+branch|master\s+branch|protected\s+branch\w*|release\s+branch|"
                r"real\s+(customer|user|client)\w*|customer\s+data|user\s+data|shared\s+history|published|public\s+server)\b")
PRIVACY_LEGAL = _c(
    r"\b(pii|personal\s+(data|information)|gdpr|hipaa|ccpa|sox|pci|confidential\w*|privacy|private\s+data|"
    r"license\w*|licence\w*|gpl|agpl|copyright\w*|legal\w*|illegal\w*|lawful\w*|unlawful\w*|litigation|lawsuit|court|"
    r"complian\w*|regulat\w*|audit\w*|breach\w*|restricted\s+list|insider|conflict\s+of\s+interest|exclusive\w*|"
    r"contract\w*|agreement\w*|nda|embargo\w*|sanction\w*|salary|salaries|hr\s+files?|represents?)\b"
)
MONEY = _c(r"\b(payment\w*|billing|bill(s|ed)?|money|funds?|refund\w*|compensation|charg\w*|trades?|trading|"
           r"discretionary|client\s+money|segregated|fraud\w*|frozen|freez\w*|invoice\w*|currency|bank\w*|"
           r"card\s+numbers?|credit\s+card|wire\s+transfer|financial)\b")
HEALTH = _c(r"\b(patient\w*|allerg\w*|dos(e|es|age|ing)|pregnan\w*|contraindicat\w*|fatal\w*|death|deadly|lethal|"
            r"birth\s+defects?|overdos\w*|respiratory|hypoglyc\w*|prescri\w*|medicat\w*|opioid\w*|drug\w*|"
            r"insulin|clinic\w*|ward|diagnos\w*|toxic\w*|injur\w*)\b")
HARM = _c(r"\b(unsafe|harm\w*|danger\w*|hazard\w*|risk\w*|minors?|child(ren)?|unaccompanied|severe\w*|"
          r"crash\w*|outage\w*|downtime|break(s|ing)?\s+(production|the\s+build|prod)|incident\w*|catastroph\w*|"
          r"critical|reportable|violat\w*|abuse\w*|penalt\w*|fine[sd]?\b)")

# --- the other four types ----------------------------------------------------------------------
IMPERATIVE_STEP = _c(
    r"^\W*(?:\d+[.)]\s*|step\s+\d+\W*)?(run|install|build|execute|deploy|start|launch|create|add|open|cd|"
    r"clone|copy|set|configure|navigate|click|select|search|type|enter|call|invoke|import|export|update|upgrade|"
    r"generate|compile|test|lint|format|check|verify|restart|stop|commit|push|pull|merge|rebase|tag|release|"
    r"publish|download|upload|source|activate|edit|register|scroll|drag|match|tag|rebuild|migrate|seed|load|"
    r"write|read|fetch|record|file|log|attach|submit)\b"
)
COMMAND = _c(r"\b(npm|pnpm|yarn|pip|pipx|uv|poetry|cargo|go|make|docker|docker-compose|kubectl|helm|terraform|git|pytest|"
             r"npx|bun|deno|dotnet|mvn|gradle|bundle|rake|rails|python3?|node|composer|php|flutter|swift|xcodebuild|"
             r"brew|apt|apt-get|curl|wget|bash|sh|pwsh|mix|dart)\s+[a-z-]{2,}"
             r"|`[^`]*\b(run|install|build|test|dev|start|lint)\b[^`]*`|^\s*\$\s+\w")
CODE = re.compile(r"`[^`]+`|```|\(\)|::|=>|\w+\.\w{1,4}\b|/\w+/|\{|\}|\[\w+\]")
TEMPORAL = _c(
    r"\b(yesterday|today|tomorrow|last\s+(week|month|year|quarter|sprint|night|time)|this\s+(week|month|quarter|sprint)|"
    r"recently|currently|as\s+of|so\s+far|to\s+date|ago|since\s+\d|on\s+(monday|tuesday|wednesday|thursday|friday|saturday|sunday)|"
    r"in\s+(january|february|march|april|may|june|july|august|september|october|november|december)|"
    r"\d{1,2}\s+(january|february|march|april|may|june|july|august|september|october|november|december)|"
    r"(we|i|they|team|someone)\s+(migrated|moved|switched|added|removed|fixed|rebuilt|ran|completed|closed|shipped|"
    r"released|recovered|upgraded|replaced|dropped|redesigned|introduced)|"
    r"was\s+\w+ed|were\s+\w+ed|has\s+been|have\s+been|had\s+been|status:|done:|completed|in\s+progress|"
    r"wip|todo|fixme|changelog|v\d+\.\d+|phase\s+\d|milestone|last\s+synced|updated\s+on|deprecated\s+in)\b"
    r"|\b(19|20)\d\d(-\d\d(-\d\d)?)?\b|\[x\]|\[ \]"
)
PAST_VERB = _c(r"\b\w+ed\s+(on|in|after|before|last|by)\b|\b(was|were)\b")
PREFERENCE = _c(
    r"\b(prefer\w*|preferably|ideally|favou?r\w*|avoid\w*|try\s+to|where\s+possible|when\s+possible|if\s+possible|"
    r"keep\s+\w+(\s+\w+)?\s+(small|short|simple|concise|clean|readable|focused)|rather\s+than|instead\s+of|"
    r"consistent\w*|readab\w*|clean\w*|concise\w*|descriptive|naming|style|tone|format\w*|idiomatic|"
    r"best\s+practices?|should\s+be\s+(short|brief|clear|concise)|you\s+are\s+(an?\s+)?(expert|senior|helpful)|"
    r"act\s+as|persona|polite\w*|friendly|greet\w*|apologi[sz]e\w*|emoji\w*|comment\w*|docstring\w*|"
    r"camelcase|snake_case|pascalcase|kebab-case|indent\w*|bullet\s+points?|summary|summar\w*)\b"
)
BELIEF_FACT = _c(r"\b(is|are|uses|use[sd]?|contains?|stores?|holds?|exposes?|runs?\s+on|built\s+(with|on)|written\s+in|"
                 r"based\s+on|located\s+in|lives?\s+in|handles?|provides?|consists?\s+of|has|have|supports?|"
                 r"powered\s+by|backed\s+by|manages?|relies\s+on|relay\w*|belongs?\s+to|counts?\s+as|causes?|carr(y|ies))\b")
POINTER = _c(r"^\W*(see|refer\s+to|read|check|follow)\s+[`@\[]?[\w./-]+\.(md|mdc|txt)|^\W*@[\w./-]+")
SAFETY_SECTION = _c(
    r"\b(safety|safe|security|secur\w*|never|don'?ts?|do\s+not|forbidden|prohibit\w*|restrict\w*|critical|"
    r"red\s+flags?|hard\s+rules?|rules?|constraints?|guardrails?|boundar\w*|must|mandatory|zero\s+tolerance|"
    r"danger\w*|warning\w*|caution|stop|limits?|permissions?|approval\w*|compliance|privacy|secrets?|"
    r"non-negotiable|golden\s+rules?|invariants?|protected|policy|policies|never\s+commit|must\s+not|no-go)\b"
    r"|[❌🚫⛔🛑⚠🔒]|不要|禁止|必须"
)
STYLE_SECTION = _c(r"\b(style|conventions?|naming|formatting|code\s+quality|best\s+practices?|guidelines?|preferences?|"
                   r"tone|persona|communication|philosophy|principles?|documentation|comments?)\b")
PROC_SECTION = _c(r"\b(setup|set\s+up|install\w*|build\w*|test\w*|commands?|scripts?|workflow\w*|deploy\w*|release\w*|"
                  r"development|getting\s+started|quick\s*start|usage|how\s+to|steps?|running|ci|checklist)\b")
EPISODIC_SECTION = _c(r"\b(status|changelog|history|progress|todo|roadmap|done|completed|recent|updates?|"
                      r"session|log|notes?|milestones?|sprint|phase|current|future)\b")
BELIEF_SECTION = _c(r"\b(architecture|overview|structure|stack|tech\w*|project|context|about|directory|layout|"
                    r"modules?|components?|reference|glossary|domain|background|data\s+model)\b")

from aac.classifiers import lexicons as _lex  # noqa: E402  (other languages' words of the same families)

PROHIBIT = _c(PROHIBIT.pattern + "|" + _lex.TEXT["prohibit"])
MODAL_MUST = _c(MODAL_MUST.pattern + "|" + _lex.TEXT["must"])
SAFETY_SECTION = _c(SAFETY_SECTION.pattern + "|" + _lex.SECTION["safe"])
STYLE_SECTION = _c(STYLE_SECTION.pattern + "|" + _lex.SECTION["style"])
PROC_SECTION = _c(PROC_SECTION.pattern + "|" + _lex.SECTION["proc"])
BELIEF_SECTION = _c(BELIEF_SECTION.pattern + "|" + _lex.SECTION["belief"])
EPISODIC_SECTION = _c(EPISODIC_SECTION.pattern + "|" + _lex.SECTION["episodic"])
TEMPORAL = _c(TEMPORAL.pattern + "|" + _lex.TEMPORAL + "|" + _lex.TEMPORAL_CJK)
PREFERENCE = _c(PREFERENCE.pattern + "|" + _lex.PREF)

# Families made of words and two-word phrases: the featurizer tests them per word / word pair (memoised), which
# is what keeps the default classifier above 10,000 items/s; phrase-shaped families run on the whole text.
WORD_CUES: tuple[tuple[str, re.Pattern], ...] = (
    ("prohibit", PROHIBIT), ("must", MODAL_MUST), ("always", ALWAYS), ("approval", APPROVAL), ("only", ONLY),
    ("destroy", DESTRUCTIVE), ("security", SECURITY), ("prod", PRODUCTION), ("legal", PRIVACY_LEGAL),
    ("money", MONEY), ("health", HEALTH), ("harm", HARM), ("temporal", TEMPORAL), ("past", PAST_VERB),
    ("pref", PREFERENCE), ("fact", BELIEF_FACT), ("command", COMMAND),
)
# Phrase-shaped families, run on the whole (lower-cased) text with the faster stdlib engine.
PHRASE_CUES: tuple[tuple[str, "stdre.Pattern"], ...] = tuple(
    (name, stdre.compile(pattern)) for name, pattern in (
        ("not_to_be", NOT_TO_BE.pattern), ("no_auth", NO_AUTHORITY.pattern), ("step", IMPERATIVE_STEP.pattern),
        ("pointer", POINTER.pattern),
    ))
# Substrings without one of which a phrase cue cannot match (the compiled patterns above are case-sensitive and run
# on lower-cased text, so a plain substring test is exact): testing them first skips most regex searches, which
# scan the whole text. A cue without an entry is always searched.
PHRASE_NEEDS: dict[str, tuple[str, ...]] = {"not_to_be": ("not", "only"), "no_auth": ("no", "without", "outside")}
# Every SHOUT word is at least two upper-case ASCII letters long: texts without such a run skip the search.
UPPER_RUN = stdre.compile(r"[A-Z]{2}")
COND_OPENERS = frozenset({"if", "when", "whenever", "unless", "before", "after", "should", "once"})
COND_WORDS = frozenset({"if", "unless", "whenever"})
HOWTO_WORDS = frozenset({"then", "next", "afterwards", "finally", "first"})
PROHIBIT_SYMBOLS = "❌🚫⛔🛑"
CODE_MARKS = ("`", "{", "}", "::", "=>", "()", "/", "$ ")
DESTROY_MARKS = ("rm -rf", "--force", "reset --hard")
SECURITY_MARKS = (".env", "exec(", "eval(")
SHOUT_FAST = stdre.compile(SHOUT.pattern)
# CJK text is tokenised per character, so its cue words are matched on the raw text instead
CJK_CUES: tuple[tuple[str, "stdre.Pattern"], ...] = (
    ("prohibit", stdre.compile(r"不要|禁止|绝不|永远不要|不得|严禁|してはいけない|しないこと|しません|禁止|不可|勿")),
    ("must", stdre.compile(r"必须|必ず|务必|務必|しなければ")),
    ("destroy", stdre.compile(r"破坏|破壊|上書き|删除|削除|覆盖|消去")),
    ("security", stdre.compile(r"密钥|秘密|パスワード|密码|認証|认证|トークン|令牌")),
    ("approval", stdre.compile(r"批准|审批|承認|許可|许可|确认|確認")),
    ("prod", stdre.compile(r"本番|生产|生産|公開")),
    ("temporal", stdre.compile(_lex.TEMPORAL_CJK)),
    ("pref", stdre.compile(_lex.PREF_CJK)),
)
SECTION_CUES: tuple[tuple[str, re.Pattern], ...] = (
    ("safety", SAFETY_SECTION), ("style", STYLE_SECTION), ("proc", PROC_SECTION), ("episodic", EPISODIC_SECTION),
    ("belief", BELIEF_SECTION),
)
STAKES = ("destroy", "security", "prod", "legal", "money", "health", "harm")

# --- governing prohibitions ----------------------------------------------------------------------
# Negation words of other languages than PROHIBIT covers (which is English plus Chinese and Japanese), for the
# lines that give a whole list or section its force: a heading ("## Verboten", "## Запрещено") or a lead-in
# ("Não faça:", "Nicht:", "Никогда не:") over items that read as instructions without it. Not a classifier
# feature (the trained model's families stay as they were trained); used by the operators' governing context
# and to keep a compressed item's prohibitive sentences whole.
PROHIBIT_MORE = _c(
    r"\b(don['’]?ts|don[’]t|do\s+nots?|avoid\w*|anti[-\s]?patterns?|not\s+to\s+(?:do|use|touch|change|edit)|no[-\s]go|"
    r"niemals|nie|nicht|kein\w*|verboten|untersagt|jamais|interdit\w*|ne\s+(?:\w+\s+)?(?:pas|jamais)|défendu\w*|"
    r"nunca|jam[aá]s|prohibid\w*|proibid\w*|n[ãa]o|mai|vietat\w*|niet|nooit|verboden|nigdy|zabronion\w*|"
    r"никогда|нельзя|запрещ\w*|не)\b"
    r"|^\W*(?:no|not|non|nie|ne|nein)(?=[\s:：!]|$)"
    r"|금지|하지\s*마|절대|不要|禁止|不得|严禁|绝不|勿|别|不可|してはいけない|しない|しないこと|禁止事項|ダメ"
)


def prohibits(text: str) -> bool:
    """Whether ``text`` has prohibitive force in one of the cue lexicon's languages (PROHIBIT, PROHIBIT_MORE)."""
    return PROHIBIT.search(text) is not None or PROHIBIT_MORE.search(text) is not None

