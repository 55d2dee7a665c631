"""The constraint stage: rubric risk features, the two-stage model's format, and its decisions on fixed examples."""

from __future__ import annotations

import numpy as np
import pytest

from aac.classifiers.base import ItemInput
from aac.classifiers.datasets import Labelled, own_examples
from aac.classifiers.features import featurize_two_stage, item_tokens
from aac.classifiers.linear import C_INDEX, LinearModel
from aac.classifiers.risk import risk_tokens, section_families, text_families
from aac.classifiers.training import FitOptions, fit, out_of_fold_proba


def test_prohibition_with_stakes_is_crossed():
    toks = risk_tokens(ItemInput("Never commit .env files", ("Security",)))
    assert {"rx:prohibit:secret", "rx:prohibit:vcs", "rs:safe", "rsf:safe:prohibit"} <= set(toks)


def test_prohibition_about_code_quality_has_no_stakes():
    toks = risk_tokens(ItemInput("Do not use shadow DOM", ("Web components",)))
    assert "r:force_without_stakes" in toks and "r#stakes:0" in toks
    assert not [t for t in toks if t.startswith("rx:")]


def test_bare_fragment_under_a_never_commit_heading():
    toks = risk_tokens(ItemInput("`logs/*.sqlite`", ("Project rules", "Never commit")))
    assert "rs:safe" in toks and "rslen:safe:1" in toks


def test_declarative_statement_about_something_at_stake():
    toks = risk_tokens(ItemInput("The archive bucket has no versioning, so an overwrite is permanent."))
    assert "rdecl:destroy" in toks


def test_stakes_of_regulated_domains_are_stakes():
    # written for this test, in domains the dev files do not show
    toks = risk_tokens(ItemInput("The vendor is in active litigation with our parent company."))
    assert "rdecl:legal" in toks
    assert "health" in text_families("Warfarin has dangerous side effects with aspirin.")
    assert "privacy" in text_families("Passport scans sit in the onboarding folder.")


def test_domain_words_can_be_left_out_for_the_ablation():
    from aac.classifiers.risk import compile_families

    narrow, narrow_any = compile_families(domain=False)
    wide, _ = compile_families()
    assert [n for n, _ in narrow] == [n for n, _ in wide]
    assert not narrow_any.search("litigation")
    assert any(p.search("litigation") for n, p in wide if n == "legal")


def test_cjk_and_other_languages_fire_the_same_families():
    assert {"prohibit", "secret"} <= text_families("不要把 API 密钥写进代码。")
    assert {"prohibit", "secret"} <= text_families("Niemals Zugangsdaten ins Repository committen.")
    assert "safe" in section_families(("安全规则",))


def test_approval_gate_is_a_stake():
    assert "gate" in text_families("Do not upgrade dependencies without approval.")
    assert "gate" in text_families("All commits must be signed off (DCO).")


def test_two_stage_features_are_type_features_plus_risk():
    idx, ptr, cidx, cptr = featurize_two_stage([ItemInput("Never drop the users table", ("Database",))])
    assert set(idx[ptr[0]:ptr[1]]) < set(cidx[cptr[0]:cptr[1]])


def test_item_tokens_hands_back_risk_tokens_on_request():
    risk: list[str] = []
    item = ItemInput("Never push to main.")
    assert item_tokens(item, risk) == item_tokens(item)
    assert risk == risk_tokens(item)


def test_two_stage_model_round_trips_and_gives_distributions(tmp_path):
    model = fit(own_examples(), FitOptions(folds=3))
    assert model.c_weights is not None
    again = LinearModel.load(model.save(tmp_path / "m.npz"))
    items = [ItemInput("Never force-push to main."), ItemInput("Use tabs, not spaces.")]
    p, q = model.probabilities(items), again.probabilities(items)
    assert np.allclose(p, q, atol=1e-2) and np.allclose(q.sum(axis=1), 1.0)
    assert q[0, C_INDEX] > q[1, C_INDEX]


def test_single_stage_models_still_fit_and_load(tmp_path):
    model = fit(own_examples(), FitOptions(folds=3, two_stage=False))
    again = LinearModel.load(model.save(tmp_path / "m.npz"))
    assert again.c_weights is None
    assert np.allclose(again.probabilities([ItemInput("x")]).sum(), 1.0)


def test_out_of_fold_scores_only_items_that_are_not_own_examples():
    own = own_examples()
    dev = [Labelled(e.item, e.label, group=f"g{i % 4}", source="gold") for i, e in enumerate(own[::3])]
    P = out_of_fold_proba([*own, *dev], FitOptions(folds=3))
    assert np.isnan(P[: len(own)]).all() and not np.isnan(P[len(own):]).any()


@pytest.mark.parametrize("text,section", [
    ("Never force-push to the main branch.", ["Git"]),
    ("Do not delete the production database backups.", ["Operations"]),
    ("Ask the user before running any command that sends email.", ["Agent behaviour"]),
])
def test_shipped_model_calls_stakes_constraints_c(text, section):
    from aac.classifiers.trained import TrainedClassifier

    assert TrainedClassifier().predict([ItemInput(text, tuple(section))])[0].label == "C"


@pytest.mark.parametrize("text,section", [
    ("Do not use default exports in React components.", ["Code style"]),
    ("Prefer small, focused functions.", ["Guidelines"]),
    ("Run `pnpm test` to run the unit tests.", ["Testing"]),
])
def test_shipped_model_does_not_call_style_or_steps_c(text, section):
    from aac.classifiers.trained import TrainedClassifier

    assert TrainedClassifier().predict([ItemInput(text, tuple(section))])[0].label != "C"


def test_numbers_fire_no_family_and_stay_out_of_the_cache():
    from aac.classifiers import risk

    risk.clear_cache()
    assert text_families("1234 5678 90") == set()
    assert not risk._TOKEN_CACHE
