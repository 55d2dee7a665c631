"""Labelled items for training and evaluation: our own written examples, gold_dev-style JSONL, phrasing JSONL.

Every labelled item carries a ``group`` (repository for gold, rule id for phrasing) so cross-validation can
hold out whole groups and report figures that say something about unseen repositories and unseen rules.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from aac.classifiers.base import ItemInput
from aac.core.gold_view import gold_rows
from aac.core.ids import annotated_item_id
from aac.core.jsonl import read_objects
from aac.core.labels import parse_type
from aac.core.labels import TYPES


@dataclass(frozen=True)
class Labelled:
    item: ItemInput
    label: str
    group: str = ""
    form: str | None = None
    source: str = ""
    extra: dict = field(default_factory=dict, compare=False, hash=False)


def _label(row: dict, where: str) -> str:
    label = parse_type(row.get("label"))
    if label is None:
        raise ValueError(f"{where}: label {row.get('label')!r} is not one of {', '.join(TYPES)}")
    return label


def _with_text(row: dict, where: str) -> dict:
    """A labelled row must carry its text: an item without one would be scored as an empty string."""
    if not isinstance(row.get("text"), str):
        raise ValueError(f"{where}: expected a string 'text', got {type(row.get('text')).__name__}")
    return row


def item_from_row(row: dict) -> ItemInput:
    section = row.get("section") or row.get("section_path") or ()
    if isinstance(section, str):
        section = (section,)
    return ItemInput(text=str(row.get("text", "")), section=tuple(str(s) for s in section),
                     kind=str(row.get("kind") or "paragraph"), authority=str(row.get("authority") or "user"))


def own_examples() -> list[Labelled]:
    """The labelled examples written for this package (≥10 per type): prototypes and training seed."""
    text = resources.files("aac.classifiers").joinpath("data/examples.jsonl").read_text(encoding="utf-8")
    rows = [json.loads(line) for line in text.splitlines() if line.strip()]
    return [Labelled(item_from_row(r), _label(r, "examples.jsonl"), group=f"own:{i // 6}", source="own")
            for i, r in enumerate(rows)]


def heldout_own() -> list[Labelled]:
    """215 more items written for this package and never trained on: a held-out check in new wordings and domains.

    Adding them to training did not help grouped CV on gold (see bench/classify_ablation.py), so they stay out of it
    and measure the shipped model on text it has never seen.
    """
    text = resources.files("aac.classifiers").joinpath("data/heldout_own.jsonl").read_text(encoding="utf-8")
    rows = [json.loads(line) for line in text.splitlines() if line.strip()]
    return [Labelled(item_from_row(r), _label(r, "heldout_own.jsonl"), group=f"heldout:{i // 5}", source="heldout")
            for i, r in enumerate(rows)]


def load_gold(path: str | Path, holdout: frozenset[str] | None = None) -> list[Labelled]:
    """gold_dev.jsonl / gold_train.jsonl format: id, repo, path, platform, section, kind, text, label (adjudicated),
    label_a / label_b (the two annotators), and for gold_train ``sample`` (how the item was drawn, see
    :func:`prevalence_weights`). Items of a repository in ``holdout`` (sha256 of lower-case owner/name) are left
    out: the hidden evaluation sets must never be trained or tuned on."""
    rows = read_objects(path)
    return [Labelled(item_from_row(_with_text(r, f"{path}:{i + 1}")), _label(r, f"{path}:{i + 1}"),
                     group=str(r.get("repo", "")),
                     source="gold", extra={"id": r.get("id"), "label_a": r.get("label_a"), "label_b": r.get("label_b"),
                                           "sample": r.get("sample") or "natural", "platform": r.get("platform") or "",
                                           "file": Path(path).name, "path": r.get("path"), "line": r.get("line")})
            for i, r in enumerate(rows) if not (holdout and repo_digest(str(r.get("repo", ""))) in holdout)]


def repo_digest(repo: str) -> str:
    """sha256 of the lower-case ``owner/name``: how holdout_repos.sha256 names a repository."""
    return hashlib.sha256(repo.strip().lower().encode("utf-8")).hexdigest()


def load_holdout(path: str | Path | None = None) -> frozenset[str]:
    """The digests of the hidden evaluation repositories (empty when the file is absent: nothing to leave out)."""
    if path is None:
        from aac.classifiers.paths import shared_data

        path = shared_data() / "holdout_repos.sha256"
    p = Path(path)
    if not p.exists():
        return frozenset()
    return frozenset(line.strip().lower() for line in p.read_text(encoding="utf-8").splitlines() if line.strip())


GOLD_FILES = ("gold_dev.jsonl", "gold_train.jsonl")


def load_union(data_dir: str | Path | None = None) -> list[Labelled]:
    """Every real labelled item: gold_dev + gold_train (4,400 items of 248 repositories), holdout repositories out.

    One repository's items share a group across both files, so grouped folds hold the whole repository out.
    """
    from aac.classifiers.paths import shared_data

    base = Path(data_dir) if data_dir else shared_data()
    holdout = load_holdout(base / "holdout_repos.sha256")
    out: list[Labelled] = []
    for name in GOLD_FILES:
        if (base / name).exists():
            out.extend(load_gold(base / name, holdout))
    return attach_lead_ins(out, [base / f for f in CONFIG_FILES])


CONFIG_FILES = ("agent_configs_train.jsonl", "agent_configs_sample.jsonl")


def attach_lead_ins(data: list[Labelled], config_paths: list[Path]) -> list[Labelled]:
    """Gold items with the lead-in of their list (:mod:`aac.classifiers.context`), read from their source file (the
    real files the gold items were drawn from, found by repository, path and line) as the pipeline sees it."""
    from dataclasses import replace

    from aac.classifiers.context import with_lead_ins
    from aac.core.segment import segment

    wanted = {(d.group, d.extra.get("path")) for d in data if d.extra.get("line") is not None}
    leads: dict[tuple, str] = {}
    for p in config_paths:
        if not Path(p).exists():
            continue
        for r in read_objects(p):
            key = (r.get("repo"), r.get("path"))
            if key not in wanted:
                continue
            wanted.discard(key)
            segs = segment(str(r.get("content", "")), str(r.get("path", "")))
            items = with_lead_ins([ItemInput(x.text, tuple(x.section_path), x.kind) for x in segs])
            for x, it in zip(segs, items):
                if it.lead_in:
                    leads[(*key, x.line)] = it.lead_in
    return [replace(d, item=replace(d.item, lead_in=leads[k]))
            if (k := (d.group, d.extra.get("path"), d.extra.get("line"))) in leads else d for d in data]


NATURAL_SAMPLES = ("natural", "natural2")


def prevalence_weights(data: list[Labelled]) -> list[float]:
    """Per-item weights that undo the over-sampling of constraints in gold_train's non-natural samples.

    gold_dev and gold_train's ``natural`` / ``natural2`` samples are plain samples of items (about 6 % C);
    ``enriched`` / ``enriched2`` were drawn by a rule-cue regex (23-30 % C) and ``non_english`` by script. Within each
    non-natural sample the C and non-C items are reweighted to the natural C share (a prior-shift correction), so
    prevalence-dependent figures (precision, F1, the hard lane's share of items) estimate what a plain sample of
    items would give. Items of other sources (phrasing, own examples) weigh 1.
    """
    def sample_of(d: Labelled) -> str | None:
        return d.extra.get("sample") if d.source == "gold" else None

    nat = [d for d in data if sample_of(d) in NATURAL_SAMPLES]
    if not nat:
        return [1.0] * len(data)
    p_nat = sum(d.label == "C" for d in nat) / len(nat)
    share: dict[str, float] = {}
    for s in {sample_of(d) for d in data} - {None, *NATURAL_SAMPLES}:
        members = [d for d in data if sample_of(d) == s]
        share[s] = sum(d.label == "C" for d in members) / len(members)
    out = []
    for d in data:
        s = sample_of(d)
        if s is None or s in NATURAL_SAMPLES or s not in share or share[s] in (0.0, 1.0):
            out.append(1.0)
        elif d.label == "C":
            out.append(p_nat / share[s])
        else:
            out.append((1 - p_nat) / (1 - share[s]))
    return out


def load_multilingual_phrasing() -> list[Labelled]:
    """The package's multilingual phrasing set (``data/phrasing_multilingual.jsonl``): phrasing_dev's 20 rules in
    four forms written anew in Spanish, Portuguese, Russian, Chinese and Japanese, plus distractors (12 per
    language). Grouped by rule id (``r061`` ...), shared with phrasing_dev, so a fold holds a rule out in every
    language at once."""
    text = resources.files("aac.classifiers").joinpath("data/phrasing_multilingual.jsonl").read_text(encoding="utf-8")
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        r = json.loads(line)
        out.append(Labelled(item_from_row(r), _label(r, f"phrasing_multilingual.jsonl:{n}"),
                            group=str(r.get("rule_id") or r["id"]), form=r.get("form"), source="phrasing",
                            extra={"id": r["id"], "lang": r.get("lang")}))
    return out


def load_phrasing(path: str | Path) -> list[Labelled]:
    """phrasing_dev.jsonl format: id, text, label, form (C items), rule_id (C items)."""
    return [Labelled(item_from_row(_with_text(r, f"{path}:{i + 1}")), _label(r, f"{path}:{i + 1}"),
                     group=str(r.get("rule_id") or r.get("id")),
                     form=r.get("form"), source="phrasing", extra={"id": r.get("id")})
            for i, r in enumerate(read_objects(path))]



def packaged_annotations() -> Path:
    """The package's annotated sample: labels (no text) of 11,196 segmented items of agent_configs_sample.jsonl (every
    distinct one but gold_dev's)."""
    return Path(str(resources.files("aac.classifiers").joinpath("data/annotated_sample.jsonl")))


def packaged_round1() -> Path:
    """The Label Studio round-1 labels (no text): 150 segmented items of agent_configs_train.jsonl, two annotators
    each, adjudicated (tests/annotation/test_train_round1.py)."""
    return Path(str(resources.files("aac.classifiers").joinpath("data/annotated_train_round1.jsonl")))


def packaged_train_annotations() -> Path:
    """The second annotation round on the train files (no text): every other distinct segmented item of
    agent_configs_train.jsonl, labelled blind by two annotators and settled by a third vote or the constraint lean
    (tests/annotation/test_train_round2.py; bench/annotator_agreement.py reports its agreement)."""
    return Path(str(resources.files("aac.classifiers").joinpath("data/annotated_train.jsonl")))


def vote_extra(votes: list[str]) -> dict:
    """An item's annotator votes as training sees them: the first two become ``label_a``/``label_b``, as for gold
    items, so a disputed item counts partly as C (``FitOptions.soft_c``); one vote or none adds nothing."""
    if len(votes) < 2:
        return {}
    return {"label_a": votes[0], "label_b": votes[1], "votes": list(votes)}


MAX_UNMATCHED_SHARE = 0.02  # labels whose item the segmenter no longer yields, left out; more means a wrong sample


def load_annotated(labels_path: str | Path, sample_path: str | Path,
                   unmatched: list[str] | None = None) -> list[Labelled]:
    """Labelled items of the real sample whose labels live apart from their text.

    ``labels_path`` holds id (:func:`annotated_item_id`), repo, path, label lines; the text, headings and kind
    come from segmenting that file of ``sample_path`` (agent_configs_sample.jsonl format) with the package's
    segmenter, so no third-party text is stored with the package. A label whose item is not found is left out
    and named in ``unmatched`` (the segmenter has learnt to split or mend that item since it was labelled) while
    they are at most ``MAX_UNMATCHED_SHARE`` of the labels; more is an error (not the sample they were made on).
    An item labelled by several annotators carries their labels in ``votes`` (in annotation order; ``label`` is
    the adjudicated one): the first two become the item's ``label_a``/``label_b``, as for gold items, so a disputed
    item counts partly as C (``FitOptions.soft_c``).
    """
    from aac.core.segment import segment

    rows = read_objects(labels_path)
    wanted = {(r.get("repo"), r.get("path")) for r in rows}
    found: dict[tuple, dict[str, ItemInput]] = {}
    for r in read_objects(sample_path):
        key = (r.get("repo"), r.get("path"))
        if key in wanted:
            from aac.classifiers.context import with_lead_ins

            items = with_lead_ins([ItemInput(text=s.text, section=tuple(s.section_path), kind=s.kind)
                                   for s in segment(str(r.get("content", "")), str(r.get("path", "")))])
            found[key] = {annotated_item_id(it.text): it for it in items}
    out, missing = [], []
    for n, r in enumerate(rows, 1):
        item = found.get((r.get("repo"), r.get("path")), {}).get(r.get("id"))
        if item is None:
            missing.append(f"{labels_path}:{n} ({r.get('repo')}/{r.get('path')} {r.get('id')})")
            continue
        where = f"{labels_path}:{n}"
        extra = {"id": r.get("id"), "annotator": r.get("annotator"), "labels": Path(labels_path).name}
        votes = r.get("votes") or []
        if not isinstance(votes, list):
            raise ValueError(f"{where}: votes must be a list of labels, got {votes!r}")
        extra.update(vote_extra([_label({"label": v}, f"{where} (votes)") for v in votes]))
        out.append(Labelled(item, _label(r, where), group=str(r["repo"]), source="annotated", extra=extra))
    if len(missing) > MAX_UNMATCHED_SHARE * len(rows):
        raise ValueError(f"{len(missing)} annotated labels match no item of {sample_path}: first {missing[0]}")
    if unmatched is not None:
        unmatched.extend(missing)
    return out


def load_any(path: str | Path) -> list[Labelled]:
    """Phrasing files are recognised by their ``form`` field; anything else is read as gold format."""
    rows = read_objects(path)
    if rows and "form" in rows[0]:
        return load_phrasing(path)
    return load_gold(path)


def gold_from_corpus(root: str | Path) -> list[Labelled]:
    """The corpus' ``gold`` view (the annotators' agreed labels) as labelled items (grouped by repository) for
    training and evaluation."""
    from aac.core.store import Corpus  # DuckDB: only when a corpus is read

    return [Labelled(ItemInput(r["text"] or "", tuple(r["section_path"] or ()), r["kind"] or "paragraph"),
                     r["label"], group=r["repo"] or r["item_id"], source="gold",
                     extra={"id": r["item_id"], "provenance": r["provenance"], **vote_extra(r["votes"] or [])})
            for r in gold_rows(Corpus(root))]
