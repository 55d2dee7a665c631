"""Features, the linear model's persistence and decision rule, threshold choice, grouped cross-validation."""

from __future__ import annotations

import json

import numpy as np
import pytest

from aac.classifiers.base import TYPES, ItemInput
from aac.classifiers.datasets import Labelled, own_examples
from aac.classifiers.features import featurize, hash_tokens, item_tokens
from aac.classifiers.linear import LinearModel, decide, risk_adjust
from aac.classifiers.training import FitOptions, choose_threshold, fit


def test_feature_hashing_is_stable_across_processes():
    # CRC32, not Python's salted hash(): a saved model must mean the same thing in every process.
    import zlib

    assert hash_tokens(["never"], 1 << 17) == [zlib.crc32(b"never") & ((1 << 17) - 1)]


def test_declarative_risk_facts_get_the_declarative_risk_feature():
    toks = item_tokens(ItemInput("The prod database holds the only copy of patient records."))
    assert "declarative_risk" in toks and "cue:health" in toks and "cue:destroy" in toks


def test_section_headings_contribute_features():
    assert "scue:safety" in item_tokens(ItemInput("data/*.db", ("Never Commit",)))


def test_featurize_returns_csr_arrays():
    idx, ptr = featurize([ItemInput("a b"), ItemInput("c")])
    assert ptr[0] == 0 and ptr[-1] == len(idx) and len(ptr) == 3


def test_risk_adjust_puts_the_threshold_at_one_half_and_keeps_distributions():
    p = np.array([[0.2, 0.2, 0.2, 0.2, 0.2], [0.1, 0.6, 0.1, 0.1, 0.1]])
    q = risk_adjust(p, ["user", "user"], threshold=0.2)
    assert q[0, 0] == pytest.approx(0.5) and decide(q) == [0, 1]
    assert np.allclose(q.sum(axis=1), 1.0)


def test_choose_threshold_prefers_recall():
    p = np.array([0.9, 0.3, 0.25, 0.1, 0.05])
    is_c = np.array([True, True, False, False, False])
    assert choose_threshold(p, is_c) <= 0.3


def test_fit_save_load_round_trip(tmp_path):
    model = fit(own_examples(), FitOptions(folds=3))
    path = model.save(tmp_path / "m.npz")
    again = LinearModel.load(path)
    items = [e.item for e in own_examples()[:5]]
    assert np.allclose(model.probabilities(items), again.probabilities(items), atol=1e-2)
    assert again.c_threshold == pytest.approx(model.c_threshold)


def test_own_examples_have_at_least_ten_per_type():
    from collections import Counter

    counts = Counter(e.label for e in own_examples())
    assert all(counts[t] >= 10 for t in "CPBFE")


def test_labelled_rejects_unknown_labels(tmp_path):
    from aac.classifiers.datasets import load_gold

    bad = tmp_path / "g.jsonl"
    bad.write_text('{"id": "1", "text": "x", "label": "Q"}\n')
    with pytest.raises(ValueError, match="not one of"):
        load_gold(bad)
    assert isinstance(Labelled(ItemInput("x"), "C"), Labelled)


def test_cluster_features_round_trip_and_assign_each_item(tmp_path):
    from aac.classifiers.clusters import ClusterModel

    items = [e.item for e in own_examples()]
    cm = ClusterModel.fit(items, dims=10, min_cluster_size=3)
    ids = cm.assign(items[:7])
    assert len(ids) == 7 and all(k == -1 or 0 <= k < len(cm.centroids) for k in ids)
    np.savez(tmp_path / "c.npz", **cm.arrays())
    with np.load(tmp_path / "c.npz") as z:
        again = ClusterModel.from_arrays(z)
    assert (again.assign(items[:7]) == ids).all()


def _toy_matrix():
    from scipy.sparse import csr_matrix

    # four items over three features; feature 0 only in type P (1), feature 2 only in type B (2)
    X = csr_matrix(np.asarray([[1, 1, 0], [1, 0, 0], [0, 1, 1], [0, 0, 1]], dtype=np.float32))
    y = np.asarray([1, 1, 2, 2])
    return X, y


def test_naive_bayes_weights_are_smoothed_log_frequencies():
    from aac.classifiers.training import _fit_naive_bayes

    X, y = _toy_matrix()
    W, b = _fit_naive_bayes(X, y, alpha=0.5)
    # type P: counts (2, 1, 0) + 0.5 -> (2.5, 1.5, 0.5) / 4.5
    assert np.allclose(W[:, 1], np.log(np.asarray([2.5, 1.5, 0.5]) / 4.5), atol=1e-6)
    assert np.allclose(W[:, 2], np.log(np.asarray([0.5, 1.5, 2.5]) / 4.5), atol=1e-6)
    assert np.allclose(b[[1, 2]], -np.log(2))  # uniform prior over the types present
    assert (b[[0, 3, 4]] == -30.0).all()  # absent types can never win


def test_naive_bayes_counts_follow_sample_weights():
    from aac.classifiers.training import _fit_naive_bayes

    X, y = _toy_matrix()
    W, _ = _fit_naive_bayes(X, y, alpha=1.0, w=np.asarray([3.0, 1.0, 1.0, 1.0]))
    # type P: weighted counts (4, 3, 0) + 1 -> (5, 4, 1) / 10
    assert np.allclose(W[:, 1], np.log(np.asarray([5.0, 4.0, 1.0]) / 10), atol=1e-6)


def test_type_stage_blend_is_the_weighted_average_and_keeps_absent_types_out():
    from aac.classifiers.training import _fit_naive_bayes, _fit_type_stage, _fit_weights

    X, y = _toy_matrix()
    lr_only = _fit_type_stage(X, y, FitOptions(nb_blend=0.0))
    W_lr, b_lr = _fit_weights(X, y, FitOptions())
    assert np.allclose(lr_only[0], W_lr) and np.allclose(lr_only[1], b_lr)
    W, b = _fit_type_stage(X, y, FitOptions(nb_blend=0.25, nb_alpha=0.3))
    W_nb, b_nb = _fit_naive_bayes(X, y, 0.3)
    assert np.allclose(W, 0.25 * W_nb + 0.75 * W_lr, atol=1e-5)
    assert np.allclose(b[[1, 2]], (0.25 * b_nb + 0.75 * b_lr)[[1, 2]], atol=1e-5)
    assert (b[[0, 3, 4]] == -30.0).all()
    # the blended stage still separates the toy types: feature 0 points to P, feature 2 to B
    assert W[0, 1] > W[0, 2] and W[2, 2] > W[2, 1]


def test_two_stage_model_with_naive_bayes_types_clear_fixed_items():
    model = fit(own_examples(), FitOptions(folds=2, nb_blend=0.5))
    meta = json.loads(model.meta)
    assert meta["nb_blend"] == 0.5 and 0.5 <= meta["type_temperature"] <= 5.0
    items = [ItemInput("Run `pnpm test` in the web folder before you push.", section=("Testing",)),
             ItemInput("The backend is a FastAPI service backed by PostgreSQL.", section=("Architecture",)),
             ItemInput("Prefer small, descriptive function names over abbreviations.", section=("Code style",))]
    labels = [TYPES[k] for k in decide(risk_adjust(model.probabilities(items), ["unknown"] * 3, model.c_threshold))]
    assert labels == ["P", "B", "F"]


def test_choose_temperature_softens_overconfident_and_sharpens_timid_type_shares():
    from aac.classifiers.training import choose_temperature

    # columns C, P, B, F, E; C share 0 (the type stage alone), one row per item
    sure = np.asarray([[0.0, 0.97, 0.01, 0.01, 0.01]] * 10)
    wrong_4_of_10 = np.asarray([1] * 6 + [2] * 4)  # P predicted with 0.97 but right only 6 times in 10
    assert choose_temperature(sure, wrong_4_of_10) > 1.5
    timid = np.asarray([[0.0, 0.4, 0.2, 0.2, 0.2]] * 10)
    assert choose_temperature(timid, np.asarray([1] * 10)) == 0.5  # always right: sharpen to the grid's floor
    # constraint items and never-scored rows (NaN) are ignored
    mixed = np.vstack([sure, np.full((3, 5), np.nan), [[0.9, 0.1, 0.0, 0.0, 0.0]]])
    assert choose_temperature(mixed, np.concatenate([wrong_4_of_10, [1, 1, 1], [0]])) == choose_temperature(sure, wrong_4_of_10)


def test_constraint_class_weights_move_from_pooled_to_per_source_balance():
    from aac.classifiers.training import _class_weights

    # source a: 1 C of 4 items; source b: 3 C of 4 items -> pooled 4 C of 8, i.e. weight 1 for both classes
    is_c = np.asarray([True, False, False, False, True, True, True, False])
    src = np.asarray(["a"] * 4 + ["b"] * 4)
    pos, neg = _class_weights(is_c, src, 0.0)
    assert np.allclose(pos, 1.0) and np.allclose(neg, 1.0)
    pos, neg = _class_weights(is_c, src, 1.0)
    for s in "ab":  # fully balanced within each source: its C rows weigh as much as its other rows
        m = src == s
        assert pos[m & is_c].sum() == pytest.approx(neg[m & ~is_c].sum())
    assert pos[0] == pytest.approx(2.0) and neg[1] == pytest.approx(4 / 6)
    half, _ = _class_weights(is_c, src, 0.5)
    assert half[0] == pytest.approx(np.sqrt(2.0))  # geometric mean of pooled (1) and per-source (2)


def test_soft_c_targets_follow_the_annotators_votes():
    from aac.classifiers.training import _c_shares, _votes

    data = [Labelled(ItemInput("a"), "F", source="gold", extra={"label_a": "F", "label_b": "C"}),
            Labelled(ItemInput("b"), "C", source="gold", extra={"label_a": "C", "label_b": "C"}),
            Labelled(ItemInput("c"), "C", source="own")]
    opts = FitOptions(soft_c=0.5)
    votes = _votes(data, opts)
    assert votes.tolist() == [[TYPES.index("F"), 0], [0, 0], [-1, -1]]
    shares = _c_shares(np.asarray([TYPES.index("F"), 0, 0]), votes, 0.5)
    assert shares[0] == pytest.approx(0.25) and shares[1] == pytest.approx(1.0) and np.isnan(shares[2])
    assert _votes(data, FitOptions(soft_c=0.0, soft_type=0.0)) is None


def test_gold_rows_keep_the_annotators_labels(tmp_path):
    from aac.classifiers.datasets import load_gold

    p = tmp_path / "g.jsonl"
    p.write_text('{"id": "1", "repo": "o/r", "text": "x", "label": "F", "label_a": "F", "label_b": "C"}\n')
    (row,) = load_gold(p)
    assert row.extra["label_a"] == "F" and row.extra["label_b"] == "C"


def test_a_disputed_item_counts_partly_as_constraint():
    from scipy.sparse import csr_matrix

    from aac.classifiers.training import _fit_c_stage

    # feature 0 marks two clear C items, feature 1 two clear non-C items; feature 2 only the disputed item
    X = csr_matrix(np.asarray([[1, 0, 0], [1, 0, 0], [0, 1, 0], [0, 1, 0], [0, 1, 1]], dtype=np.float32))
    is_c = np.asarray([True, True, False, False, False])
    hard, _ = _fit_c_stage(X, is_c, FitOptions(c_source_balance=0.0), None)
    soft, _ = _fit_c_stage(X, is_c, FitOptions(c_source_balance=0.0), None,
                           c_share=np.asarray([np.nan, np.nan, np.nan, np.nan, 0.5]))
    assert hard[2] < 0 and soft[2] > hard[2]  # its own feature no longer argues against C


def test_fold_splits_hold_out_whole_groups_and_keep_own_examples_in_training():
    from aac.classifiers.training import fold_splits

    own = own_examples()[:12]
    dev = [Labelled(ItemInput(f"rule {i}"), "B", group=f"repo{i % 6}", source="gold") for i in range(30)]
    data = own + dev
    splits = fold_splits(data, FitOptions(folds=3), seed=1)
    assert len(splits) == 3
    held = np.concatenate([te for _, te in splits])
    assert sorted(held) == list(range(len(own), len(data)))  # every dev item scored once, own examples never
    for tr, te in splits:
        assert set(range(len(own))) <= set(tr)
        assert not {data[i].group for i in tr} & {data[i].group for i in te}


def test_annotated_items_train_only_the_folds_that_keep_their_repository():
    from aac.classifiers.training import fold_splits

    own = own_examples()[:6]
    gold = [Labelled(ItemInput(f"rule {i}"), "B", group=f"repo{i % 6}", source="gold") for i in range(30)]
    notes = [Labelled(ItemInput(f"note {i}"), "F", group=f"repo{i % 8}", source="annotated") for i in range(16)]
    data = own + notes + gold
    annotated = {i for i, d in enumerate(data) if d.source == "annotated"}
    splits = fold_splits(data, FitOptions(folds=3), seed=2)
    held = np.concatenate([te for _, te in splits])
    assert not annotated & set(held)  # never scored
    for tr, te in splits:
        held_repos = {data[i].group for i in te}
        kept = {i for i in annotated if data[i].group not in held_repos}
        assert annotated & set(tr) == kept  # the fold's own repositories' notes stay out, all others train it
    unique_repos = {f"repo{i}" for i in (6, 7)}  # repositories with notes but no gold train every fold
    assert all({i for i in annotated if data[i].group in unique_repos} <= set(tr) for tr, _ in splits)


def test_item_level_folds_hold_out_single_gold_items_and_keep_their_files_annotated_items():
    from aac.classifiers.training import fold_splits

    own = own_examples()[:6]
    gold = [Labelled(ItemInput(f"rule {i}"), "B", group=f"repo{i % 3}", source="gold") for i in range(30)]
    rules = [Labelled(ItemInput(f"form {k} of rule {i}"), "C", group=f"rule{i}", form=f"f{k}", source="phrasing")
             for i in range(4) for k in range(3)]
    notes = [Labelled(ItemInput(f"note {i}"), "F", group=f"repo{i % 3}", source="annotated") for i in range(9)]
    twin = Labelled(ItemInput("rule  7"), "B", group="repo1", source="annotated")  # the text of gold item 7
    data = own + notes + [twin] + gold + rules
    annotated = {i for i, d in enumerate(data) if d.source == "annotated"}
    twin_row, gold7 = len(own) + len(notes), len(own) + len(notes) + 1 + 7
    splits = fold_splits(data, FitOptions(folds=5), seed=3, holdout="item")
    held = np.concatenate([te for _, te in splits])
    assert sorted(held) == sorted(i for i, d in enumerate(data) if d.source in ("gold", "phrasing"))
    folds_of_repo = {r: {f for f, (_, te) in enumerate(splits) if any(data[i].group == r for i in te
                                                                       if data[i].source == "gold")}
                     for r in ("repo0", "repo1", "repo2")}
    assert all(len(f) > 1 for f in folds_of_repo.values())  # a repository's items land in several folds
    for tr, te in splits:
        rules_held = {data[i].group for i in te if data[i].source == "phrasing"}
        assert not rules_held & {data[i].group for i in tr if data[i].source == "phrasing"}  # a rule stays whole
        assert annotated - {twin_row} <= set(tr)  # their files' other items train every fold
        assert (twin_row in tr) == (gold7 not in te)  # an annotated copy of a held-out item's text does not
    with pytest.raises(ValueError, match="holdout"):
        fold_splits(data, FitOptions(folds=5), holdout="file")
    # short group names must not truncate the per-item groups ("item10" read as "item1" would pair items up)
    short = [Labelled(ItemInput(f"rule {i}"), "B", group="r", source="gold") for i in range(24)]
    splits = fold_splits(short, FitOptions(folds=24), holdout="item")
    assert len(splits) == 24 and all(len(te) == 1 for _, te in splits)


def test_item_level_cross_validation_row_uses_the_given_threshold():
    from aac.classifiers.evaluation import cross_validated

    texts = {"C": "never delete the {} database", "B": "the {} service runs on port 80", "F": "prefer short {} names"}
    gold = [Labelled(ItemInput(texts[t].format(w)), t, group=f"repo{i % 4}", source="gold")
            for i, (t, w) in enumerate(zip("CBCF" * 6, ["orders", "users", "billing", "audit", "cache", "events"] * 4))]
    notes = [Labelled(ItemInput(f"never wipe the {w} bucket"), "C", group="repo1", source="annotated")
             for w in ("media", "backup", "export")]
    data = [*own_examples()[:20], *notes, *gold]
    strict = cross_validated(data, gold, [], FitOptions(folds=3), holdout="item", threshold=0.999)
    assert strict.name == "trained (item-level CV)"
    assert strict.gold["c_rec"] == 0.0  # nothing reaches the threshold it was given
    loose = cross_validated(data, gold, [], FitOptions(folds=3), holdout="item")
    assert loose.gold["c_rec"] > 0.5


def test_annotated_items_weigh_less_in_the_constraint_stage():
    from aac.classifiers import training

    data = ([Labelled(ItemInput(f"never delete the production database {i}"), "C", group="g", source="gold") for i in range(4)]
            + [Labelled(ItemInput(f"prefer short functions {i}"), "F", group="g", source="gold") for i in range(4)]
            + [Labelled(ItemInput(f"never delete the staging cache {i}"), "C", group="a", source="annotated") for i in range(4)]
            + [Labelled(ItemInput(f"keep the staging cache warm {i}"), "P", group="a", source="annotated") for i in range(4)])
    seen = {}

    def spy(Xc, is_c, opts, w, c_share=None, sources=None):
        seen["w"] = np.asarray(w)
        return np.zeros(Xc.shape[1], dtype=np.float32), 0.0

    Xt, Xc = training._matrices(data, FitOptions())
    saved = training._fit_c_stage
    training._fit_c_stage = spy
    try:
        training._fit_all(Xt, Xc, training._labels(data), FitOptions(annotated_weight=2.0, annotated_c_weight=0.25),
                          training._weights(data, FitOptions(annotated_weight=2.0)), None, training._sources(data))
    finally:
        training._fit_c_stage = saved
    assert seen["w"].tolist() == [1.0] * 8 + [0.25] * 8
    assert training._weights(data, FitOptions(annotated_weight=2.0)).tolist() == [1.0] * 8 + [2.0] * 8


def test_annotated_labels_are_joined_to_their_items_by_text_hash(tmp_path):
    from aac.classifiers.datasets import annotated_item_id, load_annotated
    from aac.core.segment import segment

    content = "# Rules\n\n- Never force-push to main.\n- Prefer small commits.\n"
    sample = tmp_path / "sample.jsonl"
    sample.write_text(json.dumps({"repo": "o/r", "path": "AGENTS.md", "content": content}) + "\n")
    texts = [s.text for s in segment(content, "AGENTS.md")]
    labels = tmp_path / "labels.jsonl"
    labels.write_text("".join(json.dumps({"id": annotated_item_id(t), "repo": "o/r", "path": "AGENTS.md", "label": lab}) + "\n"
                              for t, lab in zip(texts, "CF")))
    got = load_annotated(labels, sample)
    assert [(d.item.text, d.item.section, d.label, d.group, d.source) for d in got] == [
        ("Never force-push to main.", ("Rules",), "C", "o/r", "annotated"),
        ("Prefer small commits.", ("Rules",), "F", "o/r", "annotated")]
    labels.write_text(json.dumps({"id": annotated_item_id("gone"), "repo": "o/r", "path": "AGENTS.md", "label": "B"}) + "\n")
    with pytest.raises(ValueError, match="1 annotated labels match no item"):
        load_annotated(labels, sample)


def test_a_few_labels_of_items_the_segmenter_now_splits_are_left_out_and_named(tmp_path):
    from aac.classifiers.datasets import annotated_item_id, load_annotated

    lines = [f"- Rule number {k} of the file." for k in range(60)]
    sample = tmp_path / "sample.jsonl"
    sample.write_text(json.dumps({"repo": "o/r", "path": "AGENTS.md", "content": "\n".join(lines)}) + "\n")
    rows = [{"id": annotated_item_id(t[2:]), "repo": "o/r", "path": "AGENTS.md", "label": "F"} for t in lines]
    rows.append({"id": annotated_item_id("two rules once merged into one item"), "repo": "o/r", "path": "AGENTS.md",
                 "label": "C"})
    labels = tmp_path / "labels.jsonl"
    labels.write_text("".join(json.dumps(r) + "\n" for r in rows))
    unmatched: list[str] = []
    got = load_annotated(labels, sample, unmatched)
    assert len(got) == 60 and {d.label for d in got} == {"F"}
    assert len(unmatched) == 1 and "labels.jsonl:61" in unmatched[0]


def test_an_annotated_item_with_several_votes_counts_partly_as_constraint(tmp_path):
    from aac.classifiers.datasets import annotated_item_id, load_annotated
    from aac.classifiers.training import _c_shares, _labels, _votes

    content = "# Rules\n\n- Never force-push to main.\n- Keep the main branch green.\n"
    sample = tmp_path / "sample.jsonl"
    sample.write_text(json.dumps({"repo": "o/r", "path": "AGENTS.md", "content": content}) + "\n")
    rows = [{"id": annotated_item_id("Never force-push to main."), "repo": "o/r", "path": "AGENTS.md", "label": "C"},
            {"id": annotated_item_id("Keep the main branch green."), "repo": "o/r", "path": "AGENTS.md", "label": "F",
             "votes": ["C", "F", "F"]}]
    labels = tmp_path / "labels.jsonl"
    labels.write_text("".join(json.dumps(r) + "\n" for r in rows))
    got = load_annotated(labels, sample)
    assert got[1].extra["label_a"] == "C" and got[1].extra["label_b"] == "F" and "label_a" not in got[0].extra
    shares = _c_shares(_labels(got), _votes(got, FitOptions()), 0.5)
    assert np.isnan(shares[0]) and shares[1] == pytest.approx(0.25)  # half the adjudicated F, half one C vote of two
    labels.write_text(json.dumps({**rows[1], "votes": ["C", "X"]}) + "\n")
    with pytest.raises(ValueError, match="votes"):
        load_annotated(labels, sample)


def test_packaged_annotations_store_labels_without_text():
    from aac.classifiers.datasets import packaged_annotations

    rows = [json.loads(line) for line in packaged_annotations().read_text(encoding="utf-8").splitlines()]
    assert len(rows) >= 5000
    assert {k for r in rows for k in r} <= {"id", "repo", "path", "label", "meta", "annotator", "votes", "annotators",
                                            "provenance", "settled_by", "unsure"}
    assert not any(isinstance(v, str) and len(v) > 80 for r in rows for v in r.values())  # names and labels, no text
    assert {r["label"] for r in rows} == set(TYPES)
    assert len({r["id"] for r in rows}) == len(rows)


def test_every_packaged_annotation_finds_its_item_in_the_real_sample(sample_path, gold_path):
    """Guards the segmenter: a change that re-cuts the sample's items orphans the shipped model's labels, so it
    must be a choice. 72 were orphaned on 2026-12-04 by splitting XML-tag blocks, numbered lines inside
    paragraphs and unclosed fences, and by dedenting plain rule files (38 F, 20 B, 10 P, 3 C, 1 E); 10 more
    (6 F, 4 B) were lines of one JavaScript sample in an <example> tag, now the single code item it is."""
    from aac.classifiers.datasets import load_annotated, packaged_annotations

    unmatched: list[str] = []
    notes = load_annotated(packaged_annotations(), sample_path, unmatched)
    assert len(unmatched) == 82
    assert len(notes) + 82 == len(packaged_annotations().read_text(encoding="utf-8").splitlines())
    gold_texts = {json.loads(line)["text"].strip() for line in gold_path.read_text(encoding="utf-8").splitlines()}
    assert not gold_texts & {d.item.text.strip() for d in notes}  # gold items are judged, never re-labelled


def test_word_vector_weights_are_split_from_the_hashed_ones_and_predict_as_in_training(tmp_path):
    from aac.classifiers import training

    data = own_examples()
    opts = FitOptions(folds=3)
    model = fit(data, opts)
    assert model.c_weights.shape == (opts.n_features,) and model.c_dense.shape == (64,) and model.c_dense.any()
    Xt, Xc = training._matrices(data, opts)
    assert Xc.shape[1] == opts.n_features + 64
    cw = np.concatenate([model.c_weights, model.c_dense / opts.word_vectors])
    expected = training._proba(Xt, Xc, model.weights, model.bias, cw, model.c_bias)
    items = [d.item for d in data]
    np.testing.assert_allclose(model.probabilities(items), expected, atol=1e-5)
    again = LinearModel.load(model.save(tmp_path / "m.npz"))
    np.testing.assert_allclose(again.c_dense, model.c_dense, rtol=1e-6)
    assert again.digest() == LinearModel.load(tmp_path / "m.npz").digest()
    without = LinearModel.load(tmp_path / "m.npz")
    without.c_dense = None
    assert without.digest() != again.digest()  # the word-vector weights are part of the model's identity


def test_models_without_word_vectors_still_load_and_predict(tmp_path):
    model = fit(own_examples(), FitOptions(folds=3, word_vectors=0.0))
    assert model.c_dense is None
    again = LinearModel.load(model.save(tmp_path / "m.npz"))
    items = [e.item for e in own_examples()[:5]]
    assert again.c_dense is None
    np.testing.assert_allclose(model.probabilities(items), again.probabilities(items), atol=1e-2)


def test_an_items_probabilities_do_not_depend_on_its_batch():
    """Incremental refreshes compare stored probabilities exactly: batch size must not change a single bit."""
    model = fit(own_examples(), FitOptions(folds=3))
    items = [e.item for e in own_examples()] * 4
    whole = model.probabilities(items)
    for k in range(0, len(items), 97):
        assert np.array_equal(model.probabilities([items[k]])[0], whole[k])
        assert np.array_equal(model.probabilities(items[k:k + 5])[0], whole[k])


def test_rules_written_as_plain_facts_weigh_more_in_the_constraint_stage():
    from aac.classifiers import training

    facts = ["the billing table holds the only copy of the invoices", "the payments vpc carries live card data",
             "the clinic mail relays patient records unencrypted", "client money in the escrow account is not ours"]
    beliefs = ["the billing page lists the invoices", "the payments service is written in go",
               "the clinic site shows opening hours", "the escrow module has unit tests"]
    data = ([Labelled(ItemInput(t), "C", group=f"r{i}", form="declarative", source="phrasing") for i, t in enumerate(facts)]
            + [Labelled(ItemInput(f"never drop the {w} table"), "C", group=f"i{w}", form="imperative", source="phrasing")
               for w in ("orders", "users")]
            + [Labelled(ItemInput(t), "B", group=f"g{k}", source="gold") for k in range(3) for t in beliefs]
            + [Labelled(ItemInput(f"run make test in {w}"), "P", group=f"g{k}", source="gold")
               for k, w in enumerate(("api", "web", "cli"))])
    new_fact = [ItemInput("the audit table holds the only copy of the card data")]
    plain, weighted = (training.fit(data, FitOptions(declarative_c_weight=k, word_vectors=0.0)).probabilities(new_fact)
                       for k in (1.0, 8.0))
    assert weighted[0, TYPES.index("C")] > plain[0, TYPES.index("C")]
    assert training._forms(data).tolist() == ["declarative"] * 4 + ["imperative"] * 2 + [""] * 15
