"""TypeCompact (paper Algorithm 1): a hard lane kept verbatim, a soft lane compressed into what is left.

Hard lane: constraints (risk = p(C) x authority weight >= theta_C, or abstained with non-trivial risk) and
procedures (p(P) >= theta_P), deduplicated, verbatim, in source order. If it alone exceeds the budget the
result is Unsafe — nothing is dropped silently. The soft lane gets the remaining tokens: every belief and
preference first at its shortest rendering (coverage), then episodic placeholders, then items upgraded to
longer renderings (detail), then - once everything else is whole - episodic runs in full where room is left (a
budget the whole input fits loses nothing), all in a fixed priority order, so the same input always gives the
same output.
The verifier then checks every hard-lane item is in the output and restores what is missing, evicting soft
pieces if needed; the output is measured as a whole with the same tokenizer as the budget.
"""

from __future__ import annotations

import decimal
import math
import numbers
import operator
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Sequence

import regex as re

from aac.operators.context import governed_presence, render_blocks
from aac.operators.model import Item, KnowledgeBase
from aac.operators.soft import NearDuplicateIndex, analyse, episodic_placeholder, rarest_first
from aac.operators.verify import norm_ws, verbatim_presence

_norm = lru_cache(maxsize=200_000)(norm_ws)
from aac.core.tokens import ApproxBPETokenizer, count_tokens, default_tokenizer

from aac.classifiers.operating_point import hard_lane_risk  # noqa: E402

# The hard lane's threshold on an item's constraint risk: the default classifier's hard-lane operating point
# (grouped CV: >= 95 % of gold constraints; its model card), so compact, decompose and retrieve agree with the
# ``hard_lane`` column `aac classify` writes. 0.5 (the C decision) for a model without one.
THETA_C = hard_lane_risk()
THETA_P = 0.5
THETA_ABSTAIN = 0.25  # an abstained item joins the hard lane when its risk is at least this (not mere fallback)
SEPARATOR = "\n"


@dataclass
class HardItem:
    item: Item
    lane: str  # "C" or "P"
    survived: bool = False
    duplicate_of: str | None = None

    def as_dict(self) -> dict:
        return {"id": self.item.id, "text": self.item.text, "type": self.lane, "label": self.item.type,
                "risk": round(self.item.risk, 4), "survived": self.survived, "duplicate_of": self.duplicate_of}


@dataclass
class CompactResult:
    text: str
    budget: int
    b_min: int
    tokens_in: int
    tokens_out: int
    unsafe: bool
    hard_lane: list[HardItem]
    kept: list[str] = field(default_factory=list)  # item ids rendered verbatim
    compressed: dict[str, int] = field(default_factory=dict)  # item id -> ladder step (1 = first sentence, ...)
    dropped: dict[str, str] = field(default_factory=dict)  # item id -> reason
    restored: list[str] = field(default_factory=list)  # hard-lane ids the verifier had to put back
    reason: str = ""
    pieces: list[tuple[str | None, str]] = field(default_factory=list)  # (item id or None, rendered text) in order

    def as_dict(self) -> dict:
        return {"unsafe": self.unsafe, "reason": self.reason, "budget": self.budget, "b_min": self.b_min,
                "tokens_in": self.tokens_in, "tokens_out": self.tokens_out,
                "hard_lane": [h.as_dict() for h in self.hard_lane], "kept": self.kept,
                "compressed": self.compressed, "dropped": self.dropped, "restored": self.restored}


def resolve_budget(budget: float | int, total_tokens: int) -> int:
    """A non-integral number in (0, 1] (any float type, a Decimal, a Fraction; and 1.0) is a share of the input's
    tokens; a whole number is an absolute token count."""
    if isinstance(budget, bool) or not isinstance(budget, (numbers.Real, decimal.Decimal)):
        raise TypeError(f"budget must be a number (a share in (0, 1] or tokens), not {type(budget).__name__}")
    if not math.isfinite(float(budget)) or budget < 0:
        raise ValueError(f"budget must be a finite number >= 0, got {budget}")
    if not isinstance(budget, numbers.Integral) and 0 < budget <= 1:
        return int(math.floor(float(budget) * total_tokens))
    if budget != int(budget):  # 1.5 is neither a share nor a whole token count: refuse rather than round
        raise ValueError(f"budget {budget} is neither a share in (0, 1] nor a whole number of tokens")
    return int(budget)


_SHELL_LANGS = frozenset({"", "bash", "sh", "shell", "console", "zsh", "fish", "powershell", "ps1", "pwsh", "cmd",
                          "bat", "terminal", "text", "make", "makefile", "dockerfile"})
_COMMAND_LINE = re.compile(
    r"^\s*(\$|>|#|//|npm|pnpm|yarn|npx|bun|pip|pipx|uv|poetry|python3?|pytest|cargo|go|make|docker|git|cd|ls|mkdir|"
    r"export|source|curl|wget|dotnet|mvn|gradle|\.?/|deno|node|ruff|black|mypy|tox|nox|just|rake|bundle|rails|brew|apt)\b")


def is_procedure(item: Item) -> bool:
    """Steps to carry out. A code block counts when it is commands (a shell fence or command-like lines);
    other code is an illustrative example and belongs to the soft lane whatever its P probability."""
    if item.kind != "code":
        return True
    lines = [l for l in item.text.strip().splitlines() if l.strip()]
    if not lines:
        return False
    first = lines[0].strip()
    fenced = first.startswith(("```", "~~~"))
    lang = first.lstrip("`~").strip().split(" ")[0].lower() if fenced else ""
    body = [l for l in (lines[1:-1] if fenced else lines) if not l.strip().startswith(("```", "~~~"))]
    if fenced and lang not in _SHELL_LANGS:
        return False
    return bool(body) and sum(bool(_COMMAND_LINE.match(l)) for l in body) >= 0.5 * len(body)


def hard_lane_of(item: Item, theta_c: float = THETA_C, theta_p: float = THETA_P,
                 theta_abstain: float = THETA_ABSTAIN) -> str | None:
    """'C', 'P' or None: which hard lane, if any, an item belongs to. An item typed C always is in the C lane:
    the label is the classifier's (or the caller's) decision, and its probabilities may be calibrated otherwise,
    come from another source, or be missing. An item under a prohibitive heading or lead-in (its governing
    context) is a constraint too: "Force-push to main." under "## Forbidden actions" is one, whatever its type."""
    risk = item.risk
    if item.type == "C" or risk >= theta_c or (item.abstained and risk >= theta_abstain) or item.governing_context:
        return "C"
    if item.p("P") >= theta_p and is_procedure(item):
        return "P"
    return None


@dataclass
class _Piece:
    order: float
    text: str
    priority: tuple  # lower = kept longer under pressure
    item_id: str | None = None
    step: int = 0
    hard: bool = False
    tokens: int = 0
    context: tuple[str, ...] = ()  # the governing context printed with it (see aac.operators.context)


def _render(pieces: Sequence[_Piece]) -> str:
    """Pieces in source order; governed ones under their context lines, as the context module renders them."""
    ordered = sorted(pieces, key=lambda p: p.order)
    if not any(p.context for p in ordered):
        return SEPARATOR.join(p.text for p in ordered)
    return SEPARATOR.join(render_blocks((p.text, p.context) for p in ordered))


def _additive() -> bool:
    """Whether joining texts with SEPARATOR adds exactly their counts (true of the default tokenizer, whose
    pieces never span whitespace; property-tested). Then the whole output's count is the sum of its pieces'."""
    return isinstance(default_tokenizer(), ApproxBPETokenizer) and count_tokens(SEPARATOR) == 0


def _measure(pieces: Sequence[_Piece], text: str) -> int:
    if any(p.context for p in pieces):  # context lines and bullets are the renderer's: count what it printed
        return count_tokens(text)
    return sum(p.tokens for p in pieces) if _additive() else count_tokens(text)


def _hard_piece(it: Item) -> _Piece:
    return _Piece(it.order, it.text.strip(), (0,), it.id, 0, True, context=it.governing_context)


@dataclass
class _Prepared:
    """Everything about a knowledge base that does not depend on the budget, computed once per KB."""

    items: tuple[Item, ...]
    hard: list[tuple[Item, str, str | None]]  # (item, lane, duplicate_of)
    hard_pieces: list[_Piece]
    b_min: int
    candidates: list[tuple[Item, tuple[str, ...], tuple[int, ...]]]  # soft items in priority order
    episodic_runs: list[list[Item]]
    dropped: dict[str, str]


def _prepare(kb: KnowledgeBase, theta_c: float, theta_p: float, theta_abstain: float, dedup: float) -> _Prepared:
    key = (theta_c, theta_p, theta_abstain, dedup)
    cached = kb.__dict__.get("_compact_prepared")
    if cached and cached[0] == key and len(cached[1].items) == len(kb.items) \
            and all(map(operator.is_, cached[1].items, kb.items)):
        return cached[1]
    items = sorted(kb.items, key=lambda i: i.order)
    hard: list[tuple[Item, str, str | None]] = []
    first_of: dict[tuple, str] = {}
    soft: list[Item] = []
    episodic: list[Item] = []
    dropped: dict[str, str] = {}
    for it in items:  # lanes; the hard lane is deduplicated on whitespace-normalised text under the same context
        lane = hard_lane_of(it, theta_c, theta_p, theta_abstain)
        if lane:
            k = (it.governing_context, _norm(it.text))
            hard.append((it, lane, first_of.get(k)))
            first_of.setdefault(k, it.id)
        elif it.type == "E":
            episodic.append(it)
        elif not it.text.strip():
            dropped[it.id] = "empty"
        else:
            soft.append(it)
    hard_pieces = [_hard_piece(it) for it, _, d in hard if d is None]
    additive = _additive()
    for p, it in zip(hard_pieces, (it for it, _, d in hard if d is None)):
        p.tokens = it.tokens if additive else count_tokens(p.text)  # Item.tokens counts the same text
    b_min = _measure(hard_pieces, _render(hard_pieces))
    # a lead-in line is printed as the context of the items it governs: as an item of its own it would be twice
    lead_ins = {(it.section, it.lead_in.strip()) for it, _, _ in hard if it.lead_in and it.governing_context}
    for it in soft + episodic:
        if (it.section, it.text.strip()) in lead_ins:
            dropped[it.id] = "governing-context"
    soft = [it for it in soft if it.id not in dropped]
    episodic = [it for it in episodic if it.id not in dropped]
    originals = [it for it, _, d in hard if d is None]
    analysed = {id(it): analyse(it.text, it.kind) for it in originals + soft}
    order = rarest_first(a[0] for a in analysed.values())
    index = NearDuplicateIndex(dedup)  # soft near-duplicates of anything earlier (hard or soft) are merged
    for it in originals:
        ws = analysed[id(it)][0]
        index.add(ws, order(ws))
    candidates = []
    for it in soft:
        ws, steps, costs = analysed[id(it)]
        ordered = order(ws)
        if index.find(ws, ordered) is not None:
            dropped[it.id] = "near-duplicate"
            continue
        index.add(ws, ordered)
        candidates.append((it, steps, costs))
    rank = {"B": 0, "F": 1, "P": 2, "C": 3}
    candidates.sort(key=lambda c: (-c[0].risk, rank.get(c[0].type, 4), c[0].order))
    prep = _Prepared(tuple(kb.items), hard, hard_pieces, b_min, candidates, _runs(episodic, items), dropped)
    kb.__dict__["_compact_prepared"] = (key, prep)
    return prep


def type_compact(kb: KnowledgeBase, budget: float | int, *, theta_c: float = THETA_C, theta_p: float = THETA_P,
                 theta_abstain: float = THETA_ABSTAIN, dedup_threshold: float = 0.8) -> CompactResult:
    """Compact ``kb`` into at most ``budget`` tokens (or share of its tokens) without losing a hard-lane item."""
    if not isinstance(kb, KnowledgeBase):
        raise TypeError(f"type_compact needs a KnowledgeBase (e.g. KnowledgeBase.from_rows(rows)), not "
                        f"{type(kb).__name__}")
    total = kb.total_tokens
    limit = resolve_budget(budget, total)
    prep = _prepare(kb, theta_c, theta_p, theta_abstain, dedup_threshold)
    hard = [HardItem(it, lane, duplicate_of=d) for it, lane, d in prep.hard]
    hard_pieces = [replace(p) for p in prep.hard_pieces]
    b_min = prep.b_min
    dropped = dict(prep.dropped)
    if b_min > limit:
        return _unsafe(kb, hard, hard_pieces, [c[0] for c in prep.candidates],
                       [i for run in prep.episodic_runs for i in run], limit, b_min, total, dropped)

    # Soft lane: coverage at the shortest rendering, then episodic placeholders, then detail.
    pieces = list(hard_pieces)
    used = b_min
    sep = count_tokens(SEPARATOR)
    chosen: dict[str, _Piece] = {}
    for prio, (it, steps, costs) in enumerate(prep.candidates):
        step = len(steps) - 1
        c = costs[step] + (sep if pieces else 0)
        if used + c <= limit:
            p = _Piece(it.order, steps[step], (1, prio), it.id, step, tokens=costs[step])
            pieces.append(p)
            chosen[it.id] = p
            used += c
        else:
            dropped[it.id] = "budget"
    placeholders: list[tuple[list[Item], _Piece]] = []
    for run in prep.episodic_runs:
        text = episodic_placeholder(len(run))
        n = count_tokens(text)
        if used + n + (sep if pieces else 0) <= limit:
            holder = _Piece(run[0].order, text, (2, run[0].order), tokens=n)
            pieces.append(holder)
            placeholders.append((run, holder))
            used += n + (sep if len(pieces) > 1 else 0)
            reason = "episodic-placeholder"
        else:
            reason = "budget"
        for it in run:
            dropped[it.id] = reason
    improved = True  # detail: upgrade chosen items one ladder step at a time, in priority order, while they fit
    while improved:
        improved = False
        for it, steps, costs in prep.candidates:
            p = chosen.get(it.id)
            if p is None or p.step == 0:
                continue
            delta = costs[p.step - 1] - costs[p.step]
            if used + delta <= limit:
                p.step -= 1
                p.text, p.tokens = steps[p.step], costs[p.step]
                used += delta
                improved = True
    # episodic runs come back in full last, once every belief and preference is whole, where room is left
    everything_whole = len(chosen) == len(prep.candidates) and all(p.step == 0 for p in chosen.values())
    for run, holder in placeholders if everything_whole else []:
        full = [_Piece(it.order, it.text.strip(), (3, it.order), it.id, 0) for it in run]
        for p in full:
            p.tokens = count_tokens(p.text)
        delta = sum(p.tokens for p in full) + sep * (len(full) - 1) - holder.tokens
        if used + delta <= limit:
            pieces.remove(holder)
            pieces.extend(full)
            used += delta
            for it in run:
                dropped.pop(it.id, None)

    # Render, measure, verify; restore missing hard items or evict soft pieces until complete and within budget.
    text, restored, tokens_out = _finalise(pieces, hard, limit)
    result = CompactResult(text=text, budget=limit, b_min=b_min, tokens_in=total, tokens_out=tokens_out,
                           unsafe=False, hard_lane=hard, dropped=dropped, restored=restored)
    result.pieces = [(p.item_id, p.text) for p in sorted(pieces, key=lambda p: p.order)]
    for p in pieces:
        if p.item_id is None:
            continue
        if p.step == 0:
            result.kept.append(p.item_id)
        else:
            result.compressed[p.item_id] = p.step
    remaining = {id(p) for p in pieces}
    for it_id, piece in chosen.items():
        if id(piece) not in remaining:
            result.dropped[it_id] = "evicted-for-restore"
    present = _presence(text, [h.item for h in hard])
    for h in hard:
        h.survived = present[h.item.id]
    if not all(h.survived for h in hard) or tokens_out > limit:
        result.unsafe = True
        result.reason = "verifier: hard-lane item missing, or without its governing context, or budget exceeded " \
                        "after restore"
    return result


def _presence(text: str, items: Sequence[Item]) -> dict[str, bool]:
    """Item id -> verbatim in ``text`` and, when a heading or lead-in governs it, printed under that context."""
    present = verbatim_presence(text, items)
    governed = [it for it in items if present[it.id] and it.governing_context]
    if governed:
        present.update(governed_presence(text, governed))
    return present


def _finalise(pieces: list[_Piece], hard: list[HardItem], limit: int) -> tuple[str, list[str], int]:
    """Verify against the rendered text; put missing hard items back, evicting the lowest-priority soft piece."""
    restored: list[str] = []
    while True:
        text = _render(pieces)
        present = _presence(text, [h.item for h in hard])
        missing = [h.item for h in hard if not present[h.item.id]]
        if missing:
            back: set[str] = set()  # texts put back this round: a deduplicated twin is present through its original
            for it in missing:
                if it.text.strip() in back:
                    continue
                if not any(p.item_id == it.id for p in pieces):
                    back.add(it.text.strip())
                    piece = _hard_piece(it)
                    piece.tokens = count_tokens(piece.text)
                    pieces.append(piece)
                    restored.append(it.id)
                else:  # present as a piece but not verbatim in the text: nothing more we can do
                    return text, restored, _measure(pieces, text)
            continue
        n = _measure(pieces, text)
        if n <= limit:
            return text, restored, n
        soft = [p for p in pieces if not p.hard]
        if not soft:
            return text, restored, n
        pieces.remove(max(soft, key=lambda p: p.priority))


def _runs(episodic: list[Item], items: list[Item]) -> list[list[Item]]:
    """Maximal runs of episodic items that are adjacent in source order."""
    pos = {it.id: n for n, it in enumerate(items)}
    runs: list[list[Item]] = []
    for it in episodic:
        if runs and pos[it.id] == pos[runs[-1][-1].id] + 1:
            runs[-1].append(it)
        else:
            runs.append([it])
    return runs


def _unsafe(kb, hard, hard_pieces, soft, episodic, limit, b_min, total, dropped) -> CompactResult:
    """Hard lane alone over budget: report Unsafe; the best-effort text keeps the riskiest hard items that fit."""
    keep: list[_Piece] = []
    risk = {h.item.id: h.item.risk for h in hard}
    by_risk = sorted(hard_pieces, key=lambda p: (-risk[p.item_id], p.order))
    used = 0
    for p in by_risk:
        if used + p.tokens <= limit:
            keep.append(p)
            used += p.tokens
        else:
            dropped[p.item_id] = "unsafe: hard lane over budget"
    for it in list(soft) + list(episodic):
        dropped[it.id] = "unsafe: hard lane over budget"
    text = _render(keep)
    tokens_out = count_tokens(text)
    while keep and tokens_out > limit:  # only for a tokenizer that is not additive at the joins
        gone = max(keep, key=lambda p: (risk[p.item_id] * -1, -p.order))
        keep.remove(gone)
        dropped[gone.item_id] = "unsafe: hard lane over budget"
        text = _render(keep)
        tokens_out = count_tokens(text)
    kept_ids = {p.item_id for p in keep}
    present = _presence(text, [h.item for h in hard])
    for h in hard:
        h.survived = present[h.item.id]
    return CompactResult(text=text, budget=limit, b_min=b_min, tokens_in=total, tokens_out=tokens_out,
                         unsafe=True, hard_lane=hard, kept=sorted(kept_ids, key=str), dropped=dropped,
                         reason=f"hard lane needs {b_min} tokens > budget {limit}",
                         pieces=[(p.item_id, p.text) for p in sorted(keep, key=lambda p: p.order)])
