"""The governing context shown above a rule: its heading path, and its list's lead-in when that governs it."""

from __future__ import annotations

import importlib.util

import pytest

from aac.hooks.governing import governing_context

HAS_MODEL = importlib.util.find_spec("aac.operators.context") is not None


def test_heading_path():
    assert governing_context(("Acme", "Forbidden actions")) == "Acme > Forbidden actions"
    assert governing_context((), "") == ""
    assert governing_context((" Acme ", "", "Rules")) == "Acme > Rules"


@pytest.mark.skipif(HAS_MODEL, reason="the operator library's governing-context model is installed")
def test_without_the_model_the_heading_path_alone():
    assert governing_context(("Acme", "Workflow"), "**Don't:**") == "Acme > Workflow"


@pytest.mark.skipif(not HAS_MODEL, reason="needs the operator library's governing-context model")
def test_a_prohibitive_lead_in_is_shown_a_neutral_one_is_not():
    assert governing_context(("Acme", "Workflow"), "**Don't:**") == "Acme > Workflow > **Don't:**"
    assert governing_context(("Acme", "Setup"), "You will need:") == "Acme > Setup"
