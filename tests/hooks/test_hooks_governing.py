"""The governing context shown above a rule: its heading path, and its list's lead-in when that governs it."""

from __future__ import annotations

from aac.hooks.governing import governing_context


def test_heading_path():
    assert governing_context(("Acme", "Forbidden actions")) == "Acme > Forbidden actions"
    assert governing_context((), "") == ""
    assert governing_context((" Acme ", "", "Rules")) == "Acme > Rules"


def test_a_prohibitive_lead_in_is_shown_a_neutral_one_is_not():
    assert governing_context(("Acme", "Workflow"), "**Don't:**") == "Acme > Workflow > **Don't:**"
    assert governing_context(("Acme", "Setup"), "You will need:") == "Acme > Setup"
