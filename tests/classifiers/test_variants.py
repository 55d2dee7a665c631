"""Each no-LLM variant on fixed examples written for these tests (not taken from the dev data)."""

from __future__ import annotations

import pytest

from aac.classifiers import ItemInput, get_classifier
from aac.classifiers.base import DEFAULT, NO_LLM, REGISTRY
from aac.core.schema import TYPES

FIXED = [
    (ItemInput("Never force-push to the main branch."), "C"),
    (ItemInput("Do not store customer passwords in plain text."), "C"),
    (ItemInput("The billing table holds the only copy of ten years of invoices."), "C"),
    (ItemInput("Run `npm run build` before committing."), "P"),
    (ItemInput("We migrated the app from Webpack to Vite last week."), "E"),
    (ItemInput("Prefer small, focused functions with descriptive names."), "F"),
]


@pytest.mark.parametrize("name", NO_LLM)
def test_every_no_llm_variant_returns_one_distribution_per_item(name):
    preds = get_classifier(name).predict([i for i, _ in FIXED])
    assert len(preds) == len(FIXED)
    for p in preds:
        assert p.label in TYPES and len(p.proba) == 5
        assert sum(p.proba) == pytest.approx(1.0, abs=1e-4) and 0 <= p.confidence <= 1


def test_empty_batches_are_fine_for_every_no_llm_variant():
    for name in NO_LLM:
        assert get_classifier(name).predict([]) == []


def test_regex_resolves_marker_families_and_abstains_without_a_match():
    preds = get_classifier("regex").predict([i for i, _ in FIXED] + [ItemInput("The frontend is React.")])
    labels = [p.label for p in preds]
    assert labels[0] == "C" and labels[3] == "P" and labels[4] == "E" and labels[5] == "F"
    assert labels[-1] == "B" and preds[-1].abstained


def test_regex_misses_declarative_constraints_as_the_paper_reports():
    [p] = get_classifier("regex").predict([ItemInput("The billing table holds the only copy of ten years of invoices.")])
    assert p.label != "C"


@pytest.mark.parametrize("name", ["trained", "cascade"])
def test_trained_and_cascade_type_the_fixed_examples(name):
    preds = get_classifier(name).predict([i for i, _ in FIXED])
    assert [p.label for p in preds] == [lab for _, lab in FIXED]


def test_default_is_the_trained_no_llm_model():
    assert DEFAULT in NO_LLM and get_classifier("default").name == DEFAULT


def test_authority_weighting_raises_constraint_risk_of_system_items():
    text = "Customer exports are written to the shared drive."
    sys_, retrieved = get_classifier("trained").predict([ItemInput(text, authority="sys"),
                                                         ItemInput(text, authority="retrieved")])
    assert sys_.proba[0] > retrieved.proba[0]


def test_cascade_resolves_code_blocks_at_the_regex_stage():
    [p] = get_classifier("cascade").predict([ItemInput("make build\nmake test", kind="code")])
    assert p.label == "P" and p.source == "cascade:regex"


def test_cascade_marks_low_confidence_items_abstained_for_the_hard_lane():
    clf = get_classifier("cascade", abstain_below=1.01)  # every confidence is below: all abstain
    preds = clf.predict([ItemInput("Some ambiguous line about things.")])
    assert preds[0].abstained and preds[0].label in TYPES


def test_encoder_prototypes_recover_most_of_their_own_examples():
    from aac.classifiers.datasets import own_examples

    ex = own_examples()
    preds = get_classifier("encoder").predict([e.item for e in ex])
    assert sum(p.label == e.label for p, e in zip(preds, ex)) / len(ex) >= 0.6


def test_minilm_backend_without_the_extra_names_the_install_line(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "sentence_transformers", None)  # as if the extra were not installed
    with pytest.raises(RuntimeError, match=r"pip install 'aac\[minilm\]'"):
        get_classifier("encoder", backend="minilm")


def test_unknown_classifier_names_the_available_ones():
    with pytest.raises(KeyError, match="regex"):
        get_classifier("nope")
    assert {"regex", "encoder", "trained", "cascade", "llm", "safetymargin"} <= set(REGISTRY)


def test_classifier_type_order_is_the_schema_order():
    from aac.classifiers import base
    from aac.core.schema import TYPES as SCHEMA_TYPES

    assert base.TYPES == SCHEMA_TYPES


def test_loading_the_default_classifier_does_not_import_pyarrow():
    import subprocess
    import sys

    code = ("import sys; from aac.classifiers import get_classifier; get_classifier('default'); "
            "print('pyarrow' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
