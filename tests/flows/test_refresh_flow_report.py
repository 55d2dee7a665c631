"""The refresh flow's report names the version a merge recorded, or says none was (nothing changed upstream)."""

from __future__ import annotations

from aac.flows.refresh import version_title


def test_a_refresh_that_changed_nothing_is_reported_as_no_change_at_the_latest_version():
    assert version_title({"version": 3, "recorded": True}) == "Corpus version 3"
    assert version_title({"version": 3, "recorded": False}) == "No change: the corpus stays at version 3"
