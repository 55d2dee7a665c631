"""Classifier fingerprints: equal for equal predictors, different when the model, an option or a stage changes."""

from __future__ import annotations

from dataclasses import replace

from aac.classifiers import get_classifier
from aac.classifiers.base import fingerprint_of, make_fingerprint
from aac.classifiers.cascade import CascadeClassifier
from aac.classifiers.linear import LinearModel
from aac.classifiers.regex import RegexClassifier
from aac.classifiers.trained import TrainedClassifier, shipped_model_path


def test_every_registered_no_llm_classifier_has_a_stable_fingerprint():
    for name in ("regex", "trained", "cascade", "encoder"):
        a, b = get_classifier(name), get_classifier(name)
        assert fingerprint_of(a) == fingerprint_of(b) and fingerprint_of(a).startswith(f"{name}/v")


def test_a_model_saved_and_loaded_again_keeps_its_fingerprint_and_a_changed_one_does_not(tmp_path):
    m = LinearModel.load(shipped_model_path())
    copy = TrainedClassifier(m.save(tmp_path / "copy.npz"))
    assert copy.fingerprint == TrainedClassifier().fingerprint
    assert TrainedClassifier(replace(m, c_threshold=m.c_threshold + 0.01)).fingerprint != copy.fingerprint
    changed = m.weights.copy()
    changed[7, 2] += 0.5
    assert TrainedClassifier(replace(m, weights=changed)).fingerprint != copy.fingerprint


def test_options_and_stages_are_part_of_the_fingerprint():
    assert RegexClassifier(match_confidence=0.8).fingerprint != RegexClassifier().fingerprint
    assert TrainedClassifier(abstain_below=0.3).fingerprint != TrainedClassifier().fingerprint
    assert CascadeClassifier(abstain_below=0.3).fingerprint != CascadeClassifier().fingerprint
    assert CascadeClassifier(llm=RegexClassifier()).fingerprint != CascadeClassifier().fingerprint


def test_llm_fingerprints_name_the_endpoint_and_the_model_never_the_key():
    from aac.classifiers.llm import LLMClassifier, SafetyMarginClassifier
    from aac.core.config import Secret

    a = LLMClassifier("http://127.0.0.1:9/v1", "m1", api_key=Secret("sk-secret-value"), cache=None)
    b = LLMClassifier("http://127.0.0.1:9/v1", "m2", api_key=Secret("sk-other-value"), cache=None)
    assert a.fingerprint != b.fingerprint and "secret" not in a.fingerprint
    margin = SafetyMarginClassifier("http://127.0.0.1:9/v1", "m1", fallback=RegexClassifier(), cache=None)
    other = SafetyMarginClassifier("http://127.0.0.1:9/v1", "m1", fallback=TrainedClassifier(), cache=None)
    assert margin.fingerprint != other.fingerprint


def test_a_classifier_without_a_fingerprint_has_none():
    class Plain:
        name = "plain"

    assert fingerprint_of(Plain()) is None
    assert make_fingerprint("x", 1, 0.5) != make_fingerprint("x", 2, 0.5) != make_fingerprint("x", 1, 0.6)
